"""The admin: every model is there and renders, and a staff manager sees only their campaigns."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.apps import apps
from django.contrib import admin
from django.test import RequestFactory
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken

from annotate import models as m
from tests.support.shared_rows import rows_per_module

# No module-wide django_db mark: every test that reaches the database asks for the personas,
# so they, and the rows below, are made once for the module (tests/conftest.py).

MODELS = sorted(apps.get_app_config("annotate").get_models(), key=lambda model: model.__name__)
# Shown, never written by hand (AnswerClaim: kept by triggers; accounts: made and revoked on
# the manager's pages).
READ_ONLY = {
    m.QualityEvent,
    m.GradeChange,
    m.VerdictChange,
    m.PlanChange,
    m.TokenName,
    m.AnswerClaim,
    m.Invitation,
    m.PasswordResetLink,
    m.Preferences,
    m.QuizAttempt,
    m.QuizAnswer,
    m.QuizGrant,
    m.GoldItem,
    m.GoldTask,
}


def fill(campaign: m.Campaign, rater, tag: str) -> dict[str, object]:
    """One row of every model in `campaign`, with `tag` in the texts a page shows."""
    good = campaign.labels.get(name="Good")
    query = m.Query.objects.create(campaign=campaign, external_id=f"{tag}-q1", text=f"{tag} shoes")
    doc = m.Document.objects.create(
        campaign=campaign, external_id=f"{tag}-d1", title=f"{tag} trail runner"
    )
    other = m.Document.objects.create(campaign=campaign, external_id=f"{tag}-d2")
    runs = []
    for name in ("base", "cand"):
        system = m.System.objects.create(campaign=campaign, name=f"{tag}-{name}")
        run = m.Run.objects.create(campaign=campaign, system=system, name=f"{tag}-{name}")
        m.RunEntry.objects.create(run=run, query=query, document=doc, rank=1, score=2.0)
        runs.append(run)
    item = m.PoolItem.objects.create(campaign=campaign, query=query, document=doc)
    other_item = m.PoolItem.objects.create(campaign=campaign, query=query, document=other)
    grade = m.Grade.objects.create(pool_item=item, rater=rater, label=good, seconds=4.5)
    m.GradeChange.objects.create(grade=grade, label=good, given_at=timezone.now())
    m.Skip.objects.create(pool_item=other_item, rater=rater)
    m.Lease.objects.create(
        pool_item=other_item, rater=rater, expires_at=timezone.now() + timedelta(minutes=5)
    )
    source = m.LabelSource.objects.create(campaign=campaign, name=f"{tag}-qrels")
    m.SourceLabel.objects.create(source=source, query=query, document=doc, grade=2)
    comparison = m.Comparison.objects.create(
        campaign=campaign, name=f"{tag}-sxs", baseline=runs[0], candidate=runs[1]
    )
    task = m.SxsTask.objects.create(comparison=comparison, query=query)
    verdict = m.Verdict.objects.create(
        task=task, rater=rater, value="G", candidate_side="L", strength=2
    )
    m.VerdictChange.objects.create(verdict=verdict, value="S", given_at=timezone.now())
    m.PlanChange.objects.create(
        comparison=comparison,
        changed_by=None,
        answers_in=1,
        changes=[["min_gsb", 0, 0.1]],
        reason=f"{tag} plan",
    )
    m.TaskLease.objects.create(
        task=task, rater=rater, candidate_side="R", expires_at=timezone.now() + timedelta(hours=1)
    )
    skipped = m.SxsTask.objects.create(comparison=comparison, query=query, position=1)
    m.TaskSkip.objects.create(task=skipped, rater=rater)
    m.Adjudication.objects.create(pool_item=item, label=good, manager=None, note=f"{tag} ruling")
    m.GoldItem.objects.create(pool_item=other_item, label=good, explanation=f"{tag} gold")
    m.GoldTask.objects.create(task=task, value="G", explanation=f"{tag} gold")
    token, _ = AuthToken.objects.create(rater)
    m.TokenName.objects.create(token=token, user=rater, name=f"{tag} notebook")
    log = m.BehaviourLog.objects.create(campaign=campaign, name=f"{tag}-clicks", rows=3)
    m.BehaviourPosition.objects.create(log=log, position=1, impressions=10, clicks=3)
    m.BehaviourStat.objects.create(
        log=log, query=query, document=doc, position=1, impressions=10, clicks=3
    )
    m.Invitation.objects.create(
        campaign=campaign, name=f"{tag} invitee", digest=f"{tag}-digest",
        expires_at=timezone.now() + timedelta(days=1),
    )  # fmt: skip
    m.PasswordResetLink.objects.create(
        user=rater, digest=f"{tag}-reset", expires_at=timezone.now() + timedelta(days=1)
    )
    m.Preferences.objects.create(user=rater, csv_bom=True)
    membership = m.Membership.objects.get(campaign=campaign, user=rater)
    m.QualityEvent.objects.create(membership=membership, action="pause", reason={"note": tag})
    attempt = m.QuizAttempt.objects.create(
        rater=rater, campaign=campaign, drawn=[item.pk], pass_percent=80
    )
    m.QuizAnswer.objects.create(
        attempt=attempt, position=0, pool_item=item, label=good, correct=True
    )
    m.QuizGrant.objects.create(rater=rater, campaign=campaign, manager=None)
    return {"query": query, "grade": grade, "item": item, "run": runs[0], "label": good}


def fill_both(personas) -> tuple[dict[str, object], dict[str, object]]:
    a = fill(personas.campaign, personas.rater, "alpha")
    b = fill(personas.other_campaign, personas.other_rater, "bravo")
    return a, b


# A row of every model in both campaigns, made once for the module's tests (made per test
# they were most of each test's set-up).
_module_rows, data = rows_per_module(fill_both, name="data")


@pytest.fixture
def staff_manager(personas):
    personas.manager.is_staff = True
    personas.manager.save()
    return personas.client_for("manager")


def url(model, view: str, *args) -> str:
    return reverse(f"admin:annotate_{model._meta.model_name}_{view}", args=args)


def test_every_model_of_the_app_is_registered():
    assert [model for model in MODELS if not admin.site.is_registered(model)] == []


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_changelist_search_and_change_page_render(admin_client, data, model):
    assert admin_client.get(url(model, "changelist")).status_code == 200
    assert admin_client.get(url(model, "changelist"), {"q": "alpha"}).status_code == 200
    obj = model.objects.first()
    assert admin_client.get(url(model, "change", obj.pk)).status_code == 200


@pytest.mark.parametrize("model", MODELS, ids=lambda model: model.__name__)
def test_add_page_renders(admin_client, data, model):
    expected = 403 if model in READ_ONLY else 200
    assert admin_client.get(url(model, "add")).status_code == expected


def test_grades_filter_by_label_name(admin_client, data, personas):
    a, b = data
    fair = personas.other_campaign.labels.get(name="Fair")
    m.Grade.objects.filter(pk=b["grade"].pk).update(label=fair)
    page = admin_client.get(url(m.Grade, "changelist"), {"label_name": "Good"}).content.decode()
    assert "alpha-q1" in page and "bravo-q1" not in page
    unfiltered = admin_client.get(url(m.Grade, "changelist")).content.decode()
    assert unfiltered.count('href="?label_name=Good"') == 1  # one "Good" for all campaigns


def test_search_finds_by_query_text_and_rater(admin_client, data):
    page = admin_client.get(url(m.Grade, "changelist"), {"q": "alpha"}).content.decode()
    assert "alpha-q1" in page and "bravo-q1" not in page
    page = admin_client.get(url(m.Grade, "changelist"), {"q": "other_rater"}).content.decode()
    assert "bravo-q1" in page and "alpha-q1" not in page
    page = admin_client.get(url(m.Document, "changelist"), {"q": "trail"}).content.decode()
    assert "alpha-d1" in page and "bravo-d1" in page and "alpha-d2" not in page


def test_the_grade_list_shows_what_a_manager_needs(admin_client, data):
    page = admin_client.get(url(m.Grade, "changelist")).content.decode()
    for column in ("campaign", "query", "document", "rater", "label", "seconds"):
        assert f"column-{column}" in page
    assert "Campaign A" in page and "Good (3)" in page and "4.5" in page


def test_pool_items_count_only_real_grades(data, personas, admin_user):
    a, _ = data
    m.Grade.objects.create(pool_item=a["item"], rater=personas.manager, cant_judge=True)
    model_admin = admin.site.get_model_admin(m.PoolItem)
    request = RequestFactory().get("/")
    request.user = admin_user
    item = model_admin.get_queryset(request).get(pk=a["item"].pk)
    assert model_admin.n_counted_grades(item) == 1
    assert model_admin.raters_needed_shown(item) == personas.campaign.overlap


def test_runs_show_their_number_of_entries(admin_client, data):
    page = admin_client.get(url(m.Run, "changelist")).content.decode()
    assert '<td class="field-n_entries">1</td>' in page


@pytest.mark.parametrize(
    "model",
    [
        m.Campaign,
        m.Query,
        m.Grade,
        m.Verdict,
        m.RunEntry,
        m.PoolItem,
        m.Membership,
        m.TaskLease,
        m.Adjudication,
        m.BehaviourLog,
        m.BehaviourStat,
    ],
)
def test_a_staff_manager_sees_only_their_campaigns_rows(staff_manager, data, model):
    response = staff_manager.get(url(model, "changelist"))
    assert response.status_code == 200
    page = response.content.decode()
    assert "alpha" in page or "Campaign A" in page
    # Neither the rows nor the filter sidebar name campaign B.
    assert "bravo" not in page and "Campaign B" not in page


def test_a_staff_manager_cannot_open_another_campaigns_row(staff_manager, data):
    _, b = data
    response = staff_manager.get(url(m.Grade, "change", b["grade"].pk))
    assert response.status_code == 302  # the admin's "does not exist" redirect
    response = staff_manager.post(url(m.Query, "delete", b["query"].pk), {"post": "yes"})
    assert response.status_code == 302
    assert m.Query.objects.filter(pk=b["query"].pk).exists()


def test_a_staff_manager_cannot_attach_rows_to_another_campaign(staff_manager, data, personas):
    response = staff_manager.post(
        url(m.Query, "add"),
        {"campaign": personas.other_campaign.pk, "external_id": "sneaky", "text": "x"},
    )
    assert response.status_code == 200  # the form again, with an error
    assert not m.Query.objects.filter(external_id="sneaky").exists()


def test_autocomplete_offers_only_managed_campaigns(staff_manager, data):
    response = staff_manager.get(
        "/admin/autocomplete/",
        {"app_label": "annotate", "model_name": "query", "field_name": "campaign"},
    )
    names = [row["text"] for row in response.json()["results"]]
    assert names == ["Campaign A"]


@pytest.mark.parametrize("persona", ["rater", "outsider"])
def test_staff_who_manage_nothing_get_no_annotate_admin(personas, data, persona):
    user = getattr(personas, persona)
    user.is_staff = True
    user.save()
    client = personas.client_for(persona)
    assert client.get(url(m.Grade, "changelist")).status_code == 403
    assert "Annotation" not in client.get(reverse("admin:index")).content.decode()


def test_a_row_mixing_two_campaigns_is_refused(admin_client, data):
    a, b = data
    response = admin_client.post(
        url(m.Grade, "change", a["grade"].pk),
        {
            "pool_item": a["item"].pk,
            "rater": a["grade"].rater_id,
            "label": b["label"].pk,
            "seconds": "4.5",
            "history-TOTAL_FORMS": "0",
            "history-INITIAL_FORMS": "1",
        },
    )
    assert "must belong to the same campaign" in response.content.decode()
    a["grade"].refresh_from_db()
    assert a["grade"].label == a["label"]


def test_changing_a_grade_in_the_admin_keeps_its_history(admin_client, data, personas):
    a, _ = data
    fair = personas.campaign.labels.get(name="Fair")
    history_before = a["grade"].history.count()
    response = admin_client.post(
        url(m.Grade, "change", a["grade"].pk),
        {
            "pool_item": a["item"].pk,
            "rater": a["grade"].rater_id,
            "label": fair.pk,
            "seconds": "4.5",
            "history-TOTAL_FORMS": "0",
            "history-INITIAL_FORMS": "1",
        },
    )
    assert response.status_code == 302
    a["grade"].refresh_from_db()
    assert a["grade"].label == fair
    assert a["grade"].history.count() == history_before + 1
    assert a["grade"].history.first().label == a["label"]


def test_a_campaign_added_by_a_staff_manager_gets_a_scale_and_its_manager(staff_manager, data):
    response = staff_manager.post(
        url(m.Campaign, "add"),
        {
            "name": "Campaign C",
            "slug": "campaign-c",
            "relevant_from": "2",
            "aggregation": "mean",
            "overlap": "1",
            "lease_minutes": "15",
            "labels-TOTAL_FORMS": "0",
            "labels-INITIAL_FORMS": "0",
            "memberships-TOTAL_FORMS": "0",
            "memberships-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = m.Campaign.objects.get(slug="campaign-c")
    assert list(campaign.labels.values_list("name", flat=True)) == ["Good", "Fair", "Bad"]
    assert campaign.memberships.filter(role=m.Role.MANAGER).count() == 1
    assert staff_manager.get(url(m.Campaign, "change", campaign.pk)).status_code == 200


def test_a_campaign_with_grades_and_comparisons_can_be_deleted(admin_client, data, personas):
    campaign = personas.campaign
    confirm = admin_client.get(url(m.Campaign, "delete", campaign.pk))
    assert confirm.status_code == 200
    assert "Grades: 1" in confirm.content.decode()
    response = admin_client.post(url(m.Campaign, "delete", campaign.pk), {"post": "yes"})
    assert response.status_code == 302
    assert not m.Campaign.objects.filter(pk=campaign.pk).exists()
    assert m.Grade.objects.count() == 1  # campaign B's


def test_a_run_in_a_comparison_is_protected(admin_client, data):
    a, _ = data
    confirm = admin_client.get(url(m.Run, "delete", a["run"].pk)).content.decode()
    assert "alpha-sxs" in confirm
    admin_client.post(url(m.Run, "delete", a["run"].pk), {"post": "yes"})
    assert m.Run.objects.filter(pk=a["run"].pk).exists()


def test_token_names_are_for_superusers_only(staff_manager, admin_client, data):
    # A name belongs to a user, not a campaign: a staff manager sees none, not even their own
    # campaign's raters' (the campaign scoping cannot narrow it).
    assert staff_manager.get(url(m.TokenName, "changelist")).status_code == 403
    assert "notebook" not in staff_manager.get(reverse("admin:index")).content.decode()
    page = admin_client.get(url(m.TokenName, "changelist")).content.decode()
    assert "alpha notebook" in page and "bravo notebook" in page
    token = m.TokenName.objects.get(name="alpha notebook")
    response = admin_client.post(url(m.TokenName, "delete", token.pk), {"post": "yes"})
    assert response.status_code == 403
    assert m.TokenName.objects.filter(pk=token.pk).exists()
