import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("compatapp", "0001_initial")]
    operations = [
        migrations.AddField(
            model_name="order",
            name="customer",
            field=models.ForeignKey(default=1, on_delete=django.db.models.deletion.CASCADE, to="compatapp.customer"),
            preserve_default=False,
        ),
    ]
