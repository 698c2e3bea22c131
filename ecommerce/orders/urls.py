from django.urls import path

from ecommerce.orders import views

orders = views.OrderViewSet.as_view({"get": "list"})
order = views.OrderViewSet.as_view({"get": "retrieve"})

urlpatterns = [
    path("baskets/", views.BasketView.as_view(), name="baskets"),
    path("baskets/<int:basket_id>/order/", views.BasketOrderView.as_view(), name="basket-order"),
    path("orders/", orders, name="orders"),
    path("orders/<str:number>/", order, name="order"),
    path("orders/<str:number>/fulfill/", views.OrderFulfillView.as_view(), name="order-fulfill"),
]
