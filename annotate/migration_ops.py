"""A migration operation that applies many state-only changes in one pass.

Why: migration 0031 gives about 300 fields and models their translated names. Each
AlterField and AlterModelOptions made Django clone the project state and reload the model
(re-rendering every model related to it), 10 s a database on a 2-core machine for changes no
column sees. Every test worker migrates two databases, and so does every fresh deployment.
Wrapped here, the state is cloned once and the touched models reloaded together; the database
side is each operation's own (a verbose name or help text alters nothing: `sqlmigrate` is
empty).
"""

from __future__ import annotations

from typing import Any

from django.db.migrations.operations.base import Operation


class StateInOnePass(Operation):
    """The given operations, applied as one: the same state and the same database work."""

    reversible = True

    def __init__(self, operations: list[Operation]) -> None:
        self.operations = operations

    def deconstruct(self) -> tuple[str, list[Any], dict[str, Any]]:
        return (self.__class__.__qualname__, [self.operations], {})

    def state_forwards(self, app_label: str, state: Any) -> None:
        touched: dict[tuple[str, str], bool] = {}

        def note(app: str, model: str, delay: bool = False) -> None:
            # A model reloaded once must be as eager as the most eager of its operations.
            touched[app, model] = touched.get((app, model), True) and delay

        state.reload_model = note
        try:
            for operation in self.operations:
                operation.state_forwards(app_label, state)
        finally:
            del state.reload_model  # the instance attribute hid the method
        # One reload for them all: models related to several of them are rendered once.
        state.reload_models(list(touched), delay=all(touched.values()))

    def database_forwards(self, app_label, schema_editor, from_state, to_state) -> None:
        # Each operation reads its own model from the states before and after the whole batch:
        # no two of them touch the same field, so those are its own states too.
        for operation in self.operations:
            operation.database_forwards(app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state) -> None:
        for operation in reversed(self.operations):
            operation.database_backwards(app_label, schema_editor, from_state, to_state)

    def describe(self) -> str:
        return f"{len(self.operations)} state-only operations in one pass"
