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
        pre_save.connect(_raw_pool_item_counted, sender="annotate.PoolItem")


def _raw_pool_item_counted(sender, instance, raw: bool = False, using: str = "default", **kwargs):
    """A fixture (loaddata) carries each item's `counted` as it was when dumped, and its grades
    follow, each adding one through the triggers: start from the grades already stored."""
    if not raw:
        return
    from annotate.models import Grade

    instance.counted = (
        Grade.objects.using(using).filter(pool_item_id=instance.pk, cant_judge=False).count()
    )


# SQLite remakes a table to alter it, which a trigger naming the table breaks; see counted.py.
def _sqlite_triggers_off(sender: AppConfig, using: str = "default", **kwargs) -> None:
    from annotate.counted import triggers_drop

    connection = connections[using]
    if connection.vendor == "sqlite":
        triggers_drop(connection)


def _sqlite_triggers_on(sender: AppConfig, using: str = "default", **kwargs) -> None:
    from annotate.counted import TRIGGERS, counted_recount, triggers_install, triggers_present

    connection = connections[using]
    if connection.vendor != "sqlite" or not _has_counted_column(connection):
        return
    if triggers_present(connection) != set(TRIGGERS):
        triggers_install(connection)
        counted_recount(connection)


def _has_counted_column(connection) -> bool:
    with connection.cursor() as cursor:
        if "annotate_poolitem" not in connection.introspection.table_names(cursor):
            return False
        columns = connection.introspection.get_table_description(cursor, "annotate_poolitem")
        return any(column.name == "counted" for column in columns)
