# Side-by-side tasks get PoolItem's counters (0007, 0009), kept by the same triggers.

from django.db import migrations, models


def counted_fill(apps, schema_editor):
    from annotate.counted import (
        TASK_LEASE_TRIGGERS,
        TASKS,
        VERDICT_TRIGGERS,
        counted_recount,
        triggers_install,
    )

    # On SQLite the post_migrate handler installs the triggers (see 0007).
    if schema_editor.connection.vendor != "postgresql":
        return
    # Triggers first, then the recount, in one transaction: no verdict or lease is missed.
    triggers_install(schema_editor.connection, VERDICT_TRIGGERS + TASK_LEASE_TRIGGERS)
    counted_recount(schema_editor.connection, counters=(TASKS,))


def counted_unfill(apps, schema_editor):
    from annotate.counted import (
        GRADE_TRIGGERS,
        LEASE_TRIGGERS,
        triggers_drop,
        triggers_install,
    )

    if schema_editor.connection.vendor != "postgresql":
        return
    triggers_drop(schema_editor.connection)
    triggers_install(schema_editor.connection, GRADE_TRIGGERS + LEASE_TRIGGERS)


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0009_poolitem_leased"),
    ]

    operations = [
        migrations.AddField(
            model_name="sxstask",
            name="counted",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="sxstask",
            name="leased",
            field=models.PositiveIntegerField(default=0, editable=False),
        ),
        migrations.AddField(
            model_name="sxstask",
            name="first_lease_end",
            field=models.DateTimeField(editable=False, null=True),
        ),
        migrations.RunPython(counted_fill, counted_unfill),
    ]
