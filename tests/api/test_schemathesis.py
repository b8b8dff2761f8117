"""Schemathesis against the API's own OpenAPI schema, called in-process through the WSGI app:
no answer may be a 5xx, and no answer may break the schema (its body or its content type).
Every operation runs as a manager of a campaign with data; the rater's operations (queue,
grades, verdicts, comparisons) run as a rater too. A bounded number of examples per operation,
derandomized so CI is repeatable."""

from __future__ import annotations

import os

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from knox.models import AuthToken
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_schema_conformance,
)

from config.wsgi import application

# More for a deeper local run: API_FUZZ_EXAMPLES=200 pytest tests/api/test_schemathesis.py
EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "6"))
CHECKS = [not_a_server_error, response_schema_conformance, content_type_conformance]
HYPOTHESIS = settings(
    max_examples=EXAMPLES, deadline=None, derandomize=True, suppress_health_check=list(HealthCheck)
)

# The schema is served anonymously and built without the database, so it loads at collection.
schema = schemathesis.openapi.from_wsgi("/api/v1/schema/?format=json", application)
rater_schema = schema.include(path_regex=r"/(queue|grades|verdicts|comparisons|campaigns|me)/")


@pytest.fixture(autouse=True)
def _keep_the_test_connection():
    """What Django's test client does around each request: the WSGI handler would otherwise
    close the database connection at the end of every request, and with it the test's
    transaction (PostgreSQL; SQLite's in-memory test database ignores the close)."""
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _token(user) -> str:
    return AuthToken.objects.create(user=user)[1]


@pytest.fixture
def manager_token(personas, data) -> str:
    return _token(personas.manager)


@pytest.fixture
def rater_token(personas, data) -> str:
    return _token(personas.rater)


@schema.parametrize()
@HYPOTHESIS
def test_a_manager_gets_no_server_error_and_nothing_off_the_schema(case, manager_token):
    case.call_and_validate(headers={"Authorization": f"Token {manager_token}"}, checks=CHECKS)


@rater_schema.parametrize()
@HYPOTHESIS
def test_a_rater_gets_no_server_error_and_nothing_off_the_schema(case, rater_token):
    case.call_and_validate(headers={"Authorization": f"Token {rater_token}"}, checks=CHECKS)
