"""Models of the Django compat client. Customer and Order are ordinary Django models
(auto-increment ids, a foreign key); Line maps a table with a composite primary key
(Django 3.2 has no composite keys, so the table is made by RunSQL and left unmanaged,
the documented way to use such a table)."""

from django.db import models


class Customer(models.Model):
    region = models.CharField(max_length=16)
    code = models.IntegerField()
    name = models.CharField(max_length=64)
    note = models.CharField(max_length=255, null=True)

    class Meta:
        indexes = [models.Index(fields=["name"], name="idx_customers_name")]


class Order(models.Model):
    customer = models.ForeignKey(Customer, on_delete=models.CASCADE)
    qty = models.IntegerField()
    price = models.DecimalField(max_digits=10, decimal_places=2, null=True)


class Line(models.Model):
    region = models.CharField(max_length=16, primary_key=True)
    customer_id = models.IntegerField()
    order_no = models.IntegerField()
    qty = models.IntegerField()
    price = models.DecimalField(max_digits=10, decimal_places=2, null=True)

    class Meta:
        managed = False
        db_table = "order_lines"
