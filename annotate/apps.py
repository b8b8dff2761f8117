from django.apps import AppConfig
from django.conf import settings
from django.contrib.auth.signals import user_logged_in
from django.db import connections
from django.db.models.signals import post_migrate, post_save, pre_migrate, pre_save
from django.utils.translation import gettext_lazy as _


class AnnotateConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "annotate"
    verbose_name = _("Annotation")

    def ready(self) -> None:
        from config import checks  # noqa: F401  (registers the deploy checks)

        pre_migrate.connect(_sqlite_triggers_off, sender=self)
        post_migrate.connect(_sqlite_triggers_on, sender=self)
        pre_save.connect(_raw_counters, sender="annotate.PoolItem")
        pre_save.connect(_raw_counters, sender="annotate.SxsTask")
        pre_save.connect(_note_password_change, sender=settings.AUTH_USER_MODEL)
        post_save.connect(_revoke_tokens_on_password_change, sender=settings.AUTH_USER_MODEL)
        user_logged_in.connect(_keep_chosen_language)


def _keep_chosen_language(sender, request, user, **kwargs) -> None:
    """A language picked on the sign-in page (a cookie) becomes the user's choice, unless they
    have one already: otherwise it would give way to their campaign's at once."""
    chosen = request.COOKIES.get(settings.LANGUAGE_COOKIE_NAME) if request else None
    if not chosen:
        return
    from annotate.models import Preferences
    from config.locale import supported_language

    language = supported_language(chosen)
    if language and not Preferences.objects.filter(user=user).exclude(language="").exists():
        Preferences.objects.update_or_create(user=user, defaults={"language": language})


def _note_password_change(sender, instance, raw: bool = False, update_fields=None, **kwargs):
    """Whether this save changes the stored password hash (any way: the password change page,
    the admin, `changepassword`, set_password in code), or deactivates the account."""
    instance._password_hash_changed = False
    instance._deactivated = False
    if raw or instance.pk is None:
        return
    fields = {"password", "is_active"} & set(update_fields or ("password", "is_active"))
    if not fields:
        return
    stored = sender._default_manager.filter(pk=instance.pk).values_list("password", "is_active")
    before = stored.first()
    if before is None:
        return
    instance._password_hash_changed = "password" in fields and before[0] != instance.password
    instance._deactivated = "is_active" in fields and before[1] and not instance.is_active


def _revoke_tokens_on_password_change(sender, instance, raw: bool = False, **kwargs):
    """A new password ends every API token of the user, as Django ends their other sessions:
    a token taken with a leaked password must not outlive the change. A deactivation (from
    the manager's page or the admin) ends their sessions, tokens and leases at once."""
    if raw:
        return
    if getattr(instance, "_deactivated", False):
        from annotate.services.accounts import access_revoke

        instance._deactivated = False
        access_revoke(instance)
    if getattr(instance, "_password_hash_changed", False):
        from knox.models import get_token_model

        get_token_model().objects.filter(user=instance).delete()
        instance._password_hash_changed = False


def _raw_counters(sender, instance, raw: bool = False, using: str = "default", **kwargs):
    """A fixture (loaddata) carries each task's counters as they were when dumped, and its
    answers and leases follow, each adding one through the triggers: start from the answers
    and leases already stored."""
    if not raw:
        return
    from django.db.models import Count, Min

    from annotate.models import Grade, Lease, TaskLease, Verdict

    if sender._meta.model_name == "poolitem":
        answers = Grade.objects.using(using).filter(
            pool_item_id=instance.pk, cant_judge=False, gold=False
        )
        leases = Lease.objects.using(using).filter(pool_item_id=instance.pk)
    else:
        answers = Verdict.objects.using(using).filter(
            task_id=instance.pk, cant_judge=False, gold=False
        )
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
    from annotate.claims import CLAIM_TRIGGERS, claims_refill
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
    claims = {"annotate_answerclaim", "annotate_taskskip"} <= _tables(connection)
    which += CLAIM_TRIGGERS if claims else ()
    if which and triggers_present(connection) != set(which):
        triggers_install(connection, which)
        for counters, leases in recount:
            counted_recount(connection, leases=leases, counters=(counters,))
        if claims:
            claims_refill(connection)


def _tables(connection) -> set[str]:
    with connection.cursor() as cursor:
        return set(connection.introspection.table_names(cursor))


def _columns(connection, table: str) -> set[str]:
    with connection.cursor() as cursor:
        if table not in connection.introspection.table_names(cursor):
            return set()
        columns = connection.introspection.get_table_description(cursor, table)
        return {column.name for column in columns}
