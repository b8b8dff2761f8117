# On PostgreSQL the run entries lose their index on the document (Django's state keeps it, as
# SQLite keeps the index itself). Nothing reads entries by document but the rare delete of a
# document, and that index took a million keys in random order on every million-line import:
# about 5 s of the server's 19 s for the entries' INSERT (benchmarks/README.md, "The entries'
# document index"). What the index served instead:
# - Django's cascade from a deleted document is one DELETE ... WHERE document_id IN (...) on
#   PostgreSQL (one batch, a hashed list): one pass over the entries;
# - the statement trigger of migration 0027 that refuses a delete leaving entries pointing at a
#   document looked for them one deleted row at a time. Without the index that is a pass over
#   the entries per deleted document (299 documents took 187 s against a million entries), so
#   its check here hashes the deleted ids and reads the entries once.
# SQLite keeps the index: Django's collector deletes there in batches of 500 ids, and each
# batch would read every entry again (a campaign of a million documents, two thousand passes).

from django.db import migrations

_TABLE, _COLUMN = "annotate_runentry", "document_id"
_TRIGGER = "annotate_document_annotate_runentry_check"

# Nested loops off for this function only (its SET clause): with a handful of deleted rows the
# planner would otherwise read the entries once per row, the plan the index made cheap.
_PARENT_DELETED_BY_ONE_PASS = """
CREATE OR REPLACE FUNCTION annotate_parent_deleted_one_pass() RETURNS trigger
LANGUAGE plpgsql SET enable_nestloop = off AS $$
DECLARE
    referenced bigint;
BEGIN
    EXECUTE format(
        'SELECT c.%I FROM %I c WHERE c.%I IN (SELECT o.id FROM deleted_rows o) LIMIT 1',
        TG_ARGV[1], TG_ARGV[0], TG_ARGV[1]
    ) INTO referenced;
    IF referenced IS NOT NULL THEN
        RAISE EXCEPTION 'delete on table "%" leaves rows of "%" pointing at id %',
            TG_TABLE_NAME, TG_ARGV[0], referenced
            USING ERRCODE = 'foreign_key_violation';
    END IF;
    RETURN NULL;
END
$$
"""


def _document_indexes(schema_editor) -> list[str]:
    """The plain indexes of the entries on the document column alone (Django's name for it
    is derived from a hash; reading it back is sturdier than recomputing it)."""
    connection = schema_editor.connection
    with connection.cursor() as cursor:
        constraints = connection.introspection.get_constraints(cursor, _TABLE)
    return [
        name
        for name, c in constraints.items()
        if c["index"] and not c["unique"] and not c["primary_key"] and c["columns"] == [_COLUMN]
    ]


def _set_trigger(schema_editor, function: str) -> None:
    schema_editor.execute(f"DROP TRIGGER IF EXISTS {_TRIGGER} ON annotate_document")
    schema_editor.execute(
        f"CREATE TRIGGER {_TRIGGER} AFTER DELETE ON annotate_document "
        "REFERENCING OLD TABLE AS deleted_rows FOR EACH STATEMENT "
        f"EXECUTE FUNCTION {function}('{_TABLE}', '{_COLUMN}')"
    )


def forwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(_PARENT_DELETED_BY_ONE_PASS, params=None)
    _set_trigger(schema_editor, "annotate_parent_deleted_one_pass")
    for name in _document_indexes(schema_editor):
        schema_editor.execute(f'DROP INDEX "{name}"')


def backwards(apps, schema_editor):
    if schema_editor.connection.vendor != "postgresql":
        return
    if not _document_indexes(schema_editor):
        model = apps.get_model("annotate", "RunEntry")
        field = model._meta.get_field("document")
        schema_editor.execute(schema_editor._create_index_sql(model, fields=[field]))
    _set_trigger(schema_editor, "annotate_parent_deleted")
    schema_editor.execute("DROP FUNCTION IF EXISTS annotate_parent_deleted_one_pass()")


class Migration(migrations.Migration):
    dependencies = [
        ("annotate", "0032_document_known_index"),
    ]

    operations = [migrations.RunPython(forwards, backwards)]
