"""E-mail settings (issue 20): SMTP when EMAIL_HOST is set, the console in development, no
mail in production without a server; a bad port stops the app naming the variable."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GOOD_KEY = "k" * 20 + "-production-secret-key-0123456789abcdef"
PRINT = (
    "import django; django.setup(); from django.conf import settings; "
    "print(settings.EMAIL_BACKEND, settings.EMAIL_ENABLED, settings.EMAIL_PORT)"
)


def settings_of(env: dict[str, str]) -> subprocess.CompletedProcess:
    drop = {"DEBUG", "SECRET_KEY", "ALLOWED_HOSTS", "DJANGO_ALLOW_ASYNC_UNSAFE"}
    base = {k: v for k, v in os.environ.items() if k not in drop and not k.startswith("EMAIL_")}
    return subprocess.run(
        [sys.executable, "-c", PRINT],
        cwd=ROOT,
        env={**base, "DJANGO_SETTINGS_MODULE": "config.settings", **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_development_prints_mail_on_the_console():
    result = settings_of({})
    console = "django.core.mail.backends.console.EmailBackend"
    assert result.stdout.split() == [console, "True", "587"]


def test_an_smtp_host_sends_mail():
    result = settings_of({"EMAIL_HOST": "smtp.example.com", "EMAIL_PORT": "25"})
    assert result.stdout.split() == ["django.core.mail.backends.smtp.EmailBackend", "True", "25"]


def test_production_without_a_server_offers_no_mail():
    env = {"DEBUG": "0", "SECRET_KEY": GOOD_KEY, "ALLOWED_HOSTS": "judge.example.com"}
    assert settings_of(env).stdout.split()[1] == "False"


def test_a_bad_port_names_the_variable():
    result = settings_of({"EMAIL_PORT": "smtp"})
    assert result.returncode != 0 and "EMAIL_PORT" in result.stderr
