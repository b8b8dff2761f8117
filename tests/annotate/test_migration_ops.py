"""Migration 0031's operations applied in one pass (annotate/migration_ops.py) give the same
project state as applied one by one, and no SQL."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.db import connection
from django.db.migrations.loader import MigrationLoader

from annotate.migration_ops import StateInOnePass

pytestmark = pytest.mark.django_db


def _before_0031():
    loader = MigrationLoader(connection, ignore_no_migrations=True)
    state = loader.project_state(("annotate", "0030_quiz"))
    migration = loader.get_migration("annotate", "0031_verbose_names_translated")
    return state, migration


def test_one_pass_gives_the_state_one_by_one_gives():
    state, migration = _before_0031()
    (batch,) = migration.operations
    assert isinstance(batch, StateInOnePass)
    one_by_one, one_pass = state.clone(), state.clone()
    # Rendered, as during migrate: the batch reloads the models it touched.
    one_pass.apps  # noqa: B018
    # The reference is left unrendered while the operations apply (rendered, each of them
    # reloaded its model and the related ones: 10 s of this test), then rendered once, afresh
    # from its model states: what the batch's reloaded models must equal.
    for operation in batch.operations:
        operation.state_forwards("annotate", one_by_one)
    batch.state_forwards("annotate", one_pass)
    assert "apps" not in one_by_one.__dict__
    assert one_pass.models == one_by_one.models
    assert one_pass.models != state.models  # the operations did change something
    # The rendered models (what later migrations read) carry the new names too.
    assert _rendered(one_pass) == _rendered(one_by_one) != _rendered(state)


def _rendered(state) -> dict:
    """Every rendered field's own arguments (an explicit verbose name among them)."""
    return {
        (model._meta.label, field.name): field.deconstruct()[3]
        for model in state.apps.get_models()
        for field in model._meta.local_fields
    }


@pytest.mark.django_db(transaction=True)  # SQLite's schema editor refuses an open transaction
def test_the_migration_alters_no_column():
    out = io.StringIO()
    call_command("sqlmigrate", "annotate", "0031", stdout=out)
    statements = [
        line for line in out.getvalue().splitlines() if line and not line.startswith("--")
    ]
    assert statements in ([], ["BEGIN;", "COMMIT;"]), statements
