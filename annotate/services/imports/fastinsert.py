"""Row inserts below the ORM, for the million rows of a big run or qrels file.

``bulk_create`` spends about 100 µs of Python per row building model instances and compiling
SQL, which caps a run import near 10,000 lines per second. The rows the importers write in bulk
(run entries, labels, placeholder documents) are a few ints, floats and fixed strings, so they
go to the database directly: ``COPY ... FROM STDIN`` on PostgreSQL, ``executemany`` on SQLite.
Values of columns the importer does not set come from the model's own defaults, prepared once
by Django, so a field added to the model later keeps its default here too.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

from django.db import connection, models

# Keep each SELECT under SQLite's historical limit of 999 parameters.
_LOOKUP_CHUNK = 900


def defaults(model: type[models.Model], **values: Any) -> dict[str, Any]:
    """column -> database value for every column but the primary key, from ``values`` and
    the model's defaults (prepared for this database by the fields themselves)."""
    obj = model(**values)
    return {
        field.column: field.get_db_prep_save(field.pre_save(obj, add=True), connection)
        for field in model._meta.concrete_fields
        if not field.primary_key
    }


def insert_rows(
    model: type[models.Model], columns: Sequence[str], rows: Iterable[Sequence[Any]]
) -> None:
    """Insert ``rows`` (values in the order of ``columns``). Database errors come out as
    Django's (IntegrityError for a unique constraint), as they would from the ORM."""
    insert_into(model._meta.db_table, columns, rows)


def insert_into(table_name: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    """``insert_rows`` for a table by name (a temporary table has no model)."""
    quote = connection.ops.quote_name
    table = quote(table_name)
    names = ", ".join(quote(c) for c in columns)
    with connection.cursor() as cursor, connection.wrap_database_errors:
        if connection.vendor == "postgresql":
            with cursor.copy(f"COPY {table} ({names}) FROM STDIN") as copy:
                for row in rows:
                    copy.write_row(row)
        else:
            marks = ", ".join(["%s"] * len(columns))
            cursor.executemany(f"INSERT INTO {table} ({names}) VALUES ({marks})", rows)


def insert_placeholders(campaign_id: int, ext_ids: Sequence[str]) -> dict[str, int]:
    """Create placeholder documents; return external id -> primary key for them.

    One ``INSERT ... SELECT ... RETURNING`` per batch: the ids travel as a single array
    parameter (``unnest`` on PostgreSQL, ``json_each`` on SQLite), so there is no limit on
    parameters and no second query to learn the new keys.
    """
    from annotate.models import Document

    if not connection.features.can_return_rows_from_bulk_insert:  # SQLite older than 3.35
        docs = [
            Document(campaign_id=campaign_id, external_id=e, is_placeholder=True) for e in ext_ids
        ]
        return create_keyed(Document, docs)
    template = defaults(Document, campaign_id=campaign_id, external_id="", is_placeholder=True)
    quote = connection.ops.quote_name
    columns = ", ".join(quote(c) for c in template)
    if connection.vendor == "postgresql":
        source, ids = "unnest(%s::text[]) AS new(ext)", list(ext_ids)
        pick = "new.ext"
    else:
        source, ids = "json_each(%s) AS new", json.dumps(list(ext_ids))
        pick = "new.value"
    select = ", ".join(pick if c == "external_id" else "%s" for c in template)
    params = [v for c, v in template.items() if c != "external_id"]
    sql = (
        f"INSERT INTO {quote(Document._meta.db_table)} ({columns}) SELECT {select} FROM {source}"
        f" RETURNING {quote('external_id')}, {quote('id')}"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, [*params, ids])
        return dict(cursor.fetchall())


def create_keyed(model: type[models.Model], objs: list[models.Model]) -> dict[str, int]:
    """``bulk_create`` objects that have a campaign and an external id; return external id ->
    primary key. The keys come back from the insert on PostgreSQL and SQLite 3.35+, and are
    looked up otherwise."""
    created = model.objects.bulk_create(objs)
    if connection.features.can_return_rows_from_bulk_insert:
        return {obj.external_id: obj.pk for obj in created}
    if not objs:
        return {}
    ext_ids = [obj.external_id for obj in objs]
    lookup = model.objects.filter(campaign_id=objs[0].campaign_id)
    return {
        ext: pk
        for start in range(0, len(ext_ids), _LOOKUP_CHUNK)
        for ext, pk in lookup.filter(
            external_id__in=ext_ids[start : start + _LOOKUP_CHUNK]
        ).values_list("external_id", "pk")
    }
