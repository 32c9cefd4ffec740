from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("compatapp", "0002_order_customer")]
    operations = [
        migrations.AddIndex(
            model_name="customer",
            index=models.Index(fields=["name"], name="idx_customers_name"),
        ),
    ]
