"""Django's ModelBackend with a cheaper read of the signed-in user.

Every request of a signed-in user loads the user (AuthenticationMiddleware); the ORM's
`get(pk=...)` cost more CPU to compile than the rest of the session's work. Same rule
otherwise: an inactive user gets no user (ModelBackend.user_can_authenticate).
"""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.base_user import AbstractBaseUser
from django.core.exceptions import ValidationError
from django.db import connection

from config.db import fetch_instances


class ModelBackend(DjangoModelBackend):
    def get_user(self, user_id: object) -> AbstractBaseUser | None:
        model = get_user_model()
        try:
            pk = model._meta.pk.to_python(user_id)
        except ValidationError:
            return None
        quote = connection.ops.quote_name
        table, key = quote(model._meta.db_table), quote(model._meta.pk.column)
        sql = f"SELECT {{columns}} FROM {table} t WHERE t.{key} = %s"
        found = fetch_instances(model, sql, [pk])
        if not found or not self.user_can_authenticate(found[0]):
            return None
        return found[0]
