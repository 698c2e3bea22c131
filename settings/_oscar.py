"""Oscar's settings for a store that sells course seats: no shipping, no stock, no storefront
alerts on the order path. Imported by base.py."""

from oscar.defaults import *  # noqa: F403  (Oscar's documented way to take its defaults)

from common.contract.statuses import (
    LINE,
    LINE_STATUS_PIPELINE,
    ORDER,
    ORDER_STATUS_PIPELINE,
)

OSCAR_SHOP_NAME = "Order service"
OSCAR_DEFAULT_CURRENCY = "USD"
OSCAR_FROM_EMAIL = "orders@example.invalid"
OSCAR_SEND_REGISTRATION_EMAIL = False
OSCAR_ALLOW_ANON_CHECKOUT = False

OSCAR_INITIAL_ORDER_STATUS = ORDER.OPEN
OSCAR_INITIAL_LINE_STATUS = LINE.OPEN
OSCAR_ORDER_STATUS_PIPELINE = ORDER_STATUS_PIPELINE
OSCAR_LINE_STATUS_PIPELINE = LINE_STATUS_PIPELINE

# Stock alerts are sent by a command, not by a signal receiver on every stock change.
OSCAR_EAGER_ALERTS = False

HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.simple_backend.SimpleEngine"}}
# Search indexing on every product save is work the order service never uses.
HAYSTACK_SIGNAL_PROCESSOR = "haystack.signals.BaseSignalProcessor"
