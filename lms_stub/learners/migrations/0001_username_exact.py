"""Usernames compare exactly, as in ecommerce (ecommerce/core/migrations/0001_username_exact.py):
under the database's utf8mb4_unicode_ci "Ana" and "ana" (and any two characters outside the
Basic Multilingual Plane) were one username. auth_user belongs to Django's auth app; its model
state keeps no collation, so this is SQL. The reverse gives the column the table's default
collation back."""

from django.db import migrations

FORWARD = "ALTER TABLE auth_user MODIFY username varchar(150) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL"
REVERSE = "ALTER TABLE auth_user MODIFY username varchar(150) NOT NULL"


class Migration(migrations.Migration):
    dependencies = [("auth", "0012_alter_user_first_name_max_length")]

    operations = [migrations.RunSQL(FORWARD, REVERSE)]
