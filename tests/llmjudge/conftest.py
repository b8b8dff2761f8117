from __future__ import annotations

import pytest

from tests.llmjudge.helpers import KEY, KEY_ENV
from tests.support.fake_openai_fixture import FakeOpenAI


@pytest.fixture(scope="session")
def fake_server():
    server = FakeOpenAI(key=KEY)
    yield server
    server.close()


@pytest.fixture
def server(fake_server, monkeypatch, settings):
    """The fake endpoint, its log empty; the key in the environment; backoff kept tiny."""
    fake_server.reset()
    monkeypatch.setenv(KEY_ENV, KEY)
    settings.LLMJUDGE_RETRIES = 3
    settings.LLMJUDGE_BACKOFF_SECONDS = 0.01
    settings.LLMJUDGE_BACKOFF_MAX_SECONDS = 0.05
    return fake_server
