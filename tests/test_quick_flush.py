"""The flush after a transactional test (tests/support/quick_flush.py) leaves the next test the
database Django's flush would: every table empty but the content types and permissions, and
those complete, even when the test before deleted or added some. The tests run in file order,
in one xdist group; each one that changes something is followed by one that checks."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType

from annotate.models import Campaign

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.xdist_group("quick-flush")]

SEEN: dict[str, object] = {}


def _expected_permissions() -> set[tuple[str, str, str]]:
    """(app label, model, codename) of every permission the models declare, from the app
    registry: what auth's post_migrate makes."""
    expected = set()
    for model in apps.get_models():
        opts = model._meta
        for action in opts.default_permissions:
            expected.add((opts.app_label, opts.model_name, f"{action}_{opts.model_name}"))
        for codename, _name in opts.permissions:
            expected.add((opts.app_label, opts.model_name, codename))
    return expected


def _stored_permissions() -> set[tuple[str, str, str]]:
    rows = Permission.objects.values_list(
        "content_type__app_label", "content_type__model", "codename"
    )
    return set(rows)


def _assert_clean() -> None:
    assert get_user_model().objects.count() == 0
    assert Campaign.objects.count() == 0
    assert Group.objects.count() == 0
    models = {(m._meta.app_label, m._meta.model_name) for m in apps.get_models()}
    assert set(ContentType.objects.values_list("app_label", "model")) == models
    assert _stored_permissions() == _expected_permissions()


def test_a_test_writes_rows_and_leaves_the_seeds_alone():
    _assert_clean()
    SEEN["ids"] = sorted(ContentType.objects.values_list("pk", flat=True))
    user = get_user_model().objects.create_user(username="someone")
    group = Group.objects.create(name="editors")
    group.permissions.add(Permission.objects.first())
    user.user_permissions.add(Permission.objects.last())
    Campaign.objects.create(name="C", slug="c", created_by=user)


def test_the_next_finds_its_rows_gone_and_the_seeds_kept():
    _assert_clean()
    if "ids" in SEEN:  # the first test ran before, in this process
        # Kept, not deleted and made again (the ids would have moved on).
        assert sorted(ContentType.objects.values_list("pk", flat=True)) == SEEN["ids"]


def test_a_test_deletes_and_adds_seeds():
    _assert_clean()
    Permission.objects.filter(codename="view_campaign").delete()
    ContentType.objects.filter(app_label="annotate", model="label").delete()  # and its perms
    ContentType.objects.create(app_label="nowhere", model="nothing")
    get_user_model().objects.create_user(username="someone")


def test_the_next_finds_the_seeds_complete_again():
    _assert_clean()
