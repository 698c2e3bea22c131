"""Oscar's staff dashboard at size: the pages that would count or sum the tables that grow
with every order (order_order, order_line, auth_user, basket_basket) answer from an index, a
bounded window or a cheap exact source instead
(docs/decisions/0030-the-dashboard-at-size.md)."""
