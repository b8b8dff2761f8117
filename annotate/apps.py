from django.apps import AppConfig
from django.db import connections
from django.db.models.signals import post_migrate, pre_migrate, pre_save


class AnnotateConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "annotate"
    verbose_name = "Annotation"

    def ready(self) -> None:
        pre_migrate.connect(_sqlite_triggers_off, sender=self)
        post_migrate.connect(_sqlite_triggers_on, sender=self)
        pre_save.connect(_raw_counters, sender="annotate.PoolItem")
        pre_save.connect(_raw_counters, sender="annotate.SxsTask")


def _raw_counters(sender, instance, raw: bool = False, using: str = "default", **kwargs):
    """A fixture (loaddata) carries each task's counters as they were when dumped, and its
    answers and leases follow, each adding one through the triggers: start from the answers
    and leases already stored."""
    if not raw:
        return
    from django.db.models import Count, Min

    from annotate.models import Grade, Lease, TaskLease, Verdict

    if sender._meta.model_name == "poolitem":
        answers = Grade.objects.using(using).filter(pool_item_id=instance.pk, cant_judge=False)
        leases = Lease.objects.using(using).filter(pool_item_id=instance.pk)
    else:
        answers = Verdict.objects.using(using).filter(task_id=instance.pk)
        leases = TaskLease.objects.using(using).filter(task_id=instance.pk)
    instance.counted = answers.count()
    held = leases.aggregate(n=Count("pk"), first_end=Min("expires_at"))
    instance.leased, instance.first_lease_end = held["n"], held["first_end"]


# SQLite remakes a table to alter it, which a trigger naming the table breaks; see counted.py.
def _sqlite_triggers_off(sender: AppConfig, using: str = "default", **kwargs) -> None:
    from annotate.counted import triggers_drop

    connection = connections[using]
    if connection.vendor == "sqlite":
        triggers_drop(connection)


def _sqlite_triggers_on(sender: AppConfig, using: str = "default", **kwargs) -> None:
    from annotate.counted import COUNTERS, counted_recount, triggers_install, triggers_present

    connection = connections[using]
    if connection.vendor != "sqlite":
        return
    # Only the triggers whose columns exist: migrating back to before 0010, 0009 or 0007
    # leaves a task table without them.
    which: tuple[str, ...] = ()
    recount = []
    for counters in COUNTERS:
        columns = _columns(connection, counters.task_table)
        if "counted" in columns:
            which += counters.answer_triggers()
            leases = {"leased", "first_lease_end"} <= columns
            which += counters.lease_triggers() if leases else ()
            recount.append((counters, leases))
    if which and triggers_present(connection) != set(which):
        triggers_install(connection, which)
        for counters, leases in recount:
            counted_recount(connection, leases=leases, counters=(counters,))


def _columns(connection, table: str) -> set[str]:
    with connection.cursor() as cursor:
        if table not in connection.introspection.table_names(cursor):
            return set()
        columns = connection.introspection.get_table_description(cursor, table)
        return {column.name for column in columns}
