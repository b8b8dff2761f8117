# Triggers and recount as in 0007, for the lease counters.

from django.db import migrations, models


def leased_fill(apps, schema_editor):
    from annotate.counted import LEASE_TRIGGERS, POOL, counted_recount, triggers_install

    # On SQLite the post_migrate handler installs the triggers (see 0007).
    if schema_editor.connection.vendor != "postgresql":
        return
    # Triggers first, then the recount, in one transaction: no lease is missed in between.
    triggers_install(schema_editor.connection, LEASE_TRIGGERS)
    counted_recount(schema_editor.connection, counters=(POOL,))


def leased_unfill(apps, schema_editor):
    from annotate.counted import GRADE_TRIGGERS, triggers_drop, triggers_install

    if schema_editor.connection.vendor != "postgresql":
        return
    triggers_drop(schema_editor.connection)
    triggers_install(schema_editor.connection, GRADE_TRIGGERS)


class Migration(migrations.Migration):

    dependencies = [
        ("annotate", "0008_tokenname"),
    ]

    operations = [
        migrations.AddField(
            model_name="poolitem",
            name="leased",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="poolitem",
            name="first_lease_end",
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.RunPython(leased_fill, leased_unfill),
    ]
