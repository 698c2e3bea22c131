"""An index on Oscar's order table for the fulfilment sweeps.

``retry_fulfillment --all`` lists the orders in Fulfillment Error, and the sweep for orders left
Open by a dead worker looks for Open orders placed before a cutoff. Oscar indexes neither
status nor (status, date_placed), so both read every order: at the 4 M orders of a 64-hour
soak, a full scan per sweep. Oscar's table is Oscar's model, so the index is added here by SQL
and lives with the code that needs it.
"""

from django.db import migrations

INDEX = "order_order_status_placed"


class Migration(migrations.Migration):
    dependencies = [
        ("fulfillment", "0001_initial"),
        ("order", "0021_billingaddress_code_shippingaddress_code"),
    ]

    operations = [
        migrations.RunSQL(
            f"CREATE INDEX {INDEX} ON order_order (status, date_placed)",
            reverse_sql=f"DROP INDEX {INDEX} ON order_order",
        )
    ]
