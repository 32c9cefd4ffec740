from django.db import migrations, models

LINES = """CREATE TABLE order_lines (
  region VARCHAR(16) NOT NULL,
  customer_id INT NOT NULL,
  order_no INT NOT NULL,
  qty INT NOT NULL,
  price DECIMAL(10,2) NULL,
  PRIMARY KEY (region, customer_id, order_no)
)"""


class Migration(migrations.Migration):
    initial = True
    dependencies = []
    operations = [
        migrations.CreateModel(
            name="Customer",
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("region", models.CharField(max_length=16)),
                ("code", models.IntegerField()),
                ("name", models.CharField(max_length=64)),
                ("note", models.CharField(max_length=255, null=True)),
            ],
        ),
        migrations.CreateModel(
            name="Order",
            fields=[
                ("id", models.AutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("qty", models.IntegerField()),
                ("price", models.DecimalField(decimal_places=2, max_digits=10, null=True)),
            ],
        ),
        migrations.RunSQL(LINES, "DROP TABLE order_lines"),
        migrations.CreateModel(
            name="Line",
            fields=[
                ("region", models.CharField(max_length=16, primary_key=True, serialize=False)),
                ("customer_id", models.IntegerField()),
                ("order_no", models.IntegerField()),
                ("qty", models.IntegerField()),
                ("price", models.DecimalField(decimal_places=2, max_digits=10, null=True)),
            ],
            options={"db_table": "order_lines", "managed": False},
        ),
    ]
