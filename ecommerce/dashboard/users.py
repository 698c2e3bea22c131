"""The dashboard's customer list without COUNT(*): auth_user gains a row with every new
learner, so the list is keyset pages on the primary key (newest first), with no sortable
columns and no substring search.

Oscar's list counts auth_user, sorts it by date_joined (no index: a sort of every user) and
searches email and names with ``LIKE '%...%'``, which no index can serve; those searches are
refused with a message instead.
"""

from django.conf import settings
from django.contrib import messages
from django.utils.translation import gettext_lazy as _
from oscar.apps.dashboard.users.tables import UserTable as OscarUserTable
from oscar.apps.dashboard.users.views import IndexView as OscarUserIndexView

from ecommerce.dashboard.keyset import keyset_page


class UserTable(OscarUserTable):
    class Meta(OscarUserTable.Meta):
        orderable = False  # any order but the primary key's would sort every user

    def get_caption_display(self):
        return self.caption  # Oscar's puts the paginator's count in it


class UserListView(OscarUserIndexView):
    template_name = "ecommerce_dashboard/user_list.html"
    table_class = UserTable

    def apply_search_filters(self, queryset, data):
        for name in ("email", "name"):
            if data[name]:
                messages.warning(
                    self.request,
                    _("Not searched by %(field)s: a substring search reads every user; no index serves it.")
                    % {"field": self.form.fields[name].label},
                )
        return queryset

    def get_table_data(self):
        self.page = keyset_page(
            self.get_queryset(), ("id",), self.request.GET, settings.OSCAR_DASHBOARD_ITEMS_PER_PAGE
        )
        return self.page.rows

    def get_table_pagination(self, table):
        return False  # the keyset page above is the pagination

    def get_context_data(self, **kwargs):
        ctx = super().get_context_data(**kwargs)
        ctx["keyset"] = self.page
        return ctx
