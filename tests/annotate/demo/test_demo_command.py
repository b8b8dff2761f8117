"""The demo command on a database without the demo: never on a server unless forced, what it
says, and the other campaigns it leaves alone (test_demo.py reads the demo it builds)."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from annotate import models as m
from annotate.demo.build import DEMO_SLUG

pytestmark = pytest.mark.django_db


def run_demo(*args: str) -> str:
    out = StringIO()
    call_command("demo", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


def test_it_refuses_to_run_when_debug_is_off(settings):
    settings.DEBUG = False
    with pytest.raises(CommandError, match="DEBUG is off"):
        run_demo()
    assert not m.Campaign.objects.filter(slug=DEMO_SLUG).exists()
    assert not get_user_model().objects.filter(username="rater1").exists()


def test_force_runs_it_with_debug_off(settings):
    settings.DEBUG = False
    run_demo("--force")
    assert m.Campaign.objects.filter(slug=DEMO_SLUG).exists()


def test_it_warns_about_the_password(settings):
    settings.DEBUG = True
    err = StringIO()
    call_command("demo", stdout=StringIO(), stderr=err)
    assert "local demo only" in err.getvalue()


def test_it_prints_a_summary_with_the_accounts(settings):
    settings.DEBUG = True
    output = run_demo()
    assert "30 queries" in output and "300 documents" in output
    for name in ("manager", "rater1", "rater2"):
        assert name in output


def test_it_leaves_other_campaigns_alone(personas, settings):
    settings.DEBUG = True
    before = m.Campaign.objects.exclude(slug=DEMO_SLUG).count()
    run_demo()
    run_demo("--reset")
    assert m.Campaign.objects.exclude(slug=DEMO_SLUG).count() == before
    assert personas.campaign.labels.count() == 3
