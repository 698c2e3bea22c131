from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("enrollment", "0001_initial")]

    operations = [
        migrations.AlterField(
            model_name="enrollment",
            name="user",
            field=models.CharField(db_collation="utf8mb4_bin", max_length=150),
        ),
    ]
