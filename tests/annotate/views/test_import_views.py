"""The manager's upload form: who may use it, what it does, and how it fails."""

from __future__ import annotations

import pytest
from django.contrib.messages import get_messages
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import reverse

from annotate.models import LabelSource, Query, Run, RunEntry
from tests.annotate.import_support import counts


def url(slug: str = "campaign-a") -> str:
    return reverse("annotate:import", kwargs={"slug": slug})


def upload(name: str, content: bytes | str) -> SimpleUploadedFile:
    data = content.encode() if isinstance(content, str) else content
    return SimpleUploadedFile(name, data, content_type="application/octet-stream")


def messages_of(response) -> list[str]:
    return [str(m) for m in get_messages(response.wsgi_request)]


def test_the_campaign_page_shows_the_upload_form_to_its_manager(personas):
    page = personas.client_for("manager").get(personas.campaign.get_absolute_url())
    html = page.content.decode()
    assert f'action="{url()}"' in html
    assert 'enctype="multipart/form-data"' in html
    assert 'name="csrfmiddlewaretoken"' in html
    for field in ("kind", "file", "name", "system", "per_tag", "source", "any_grade", "replace"):
        assert f'name="{field}"' in html


def test_a_manager_imports_queries_and_is_sent_back_with_the_counts(personas):
    response = personas.client_for("manager").post(
        url(), {"kind": "queries", "file": upload("q.tsv", "q1\tone\nq2\ttwo\n")}
    )
    assert response.status_code == 302
    assert response["Location"] == personas.campaign.get_absolute_url() + "#imports"
    assert messages_of(response) == ["q.tsv: 2 lines read; 2 queries created."]
    assert set(personas.campaign.queries.values_list("external_id", flat=True)) == {"q1", "q2"}


def test_a_manager_imports_a_run_with_its_options(personas):
    Query.objects.create(campaign=personas.campaign, external_id="q1", text="x")
    response = personas.client_for("manager").post(
        url(),
        {
            "kind": "run",
            "file": upload("r.run", "q1 Q0 d1 1 2.0 A\nq1 Q0 d1 1 1.0 B\n"),
            "per_tag": "on",
        },
    )
    assert response.status_code == 302
    assert set(Run.objects.values_list("name", flat=True)) == {"A", "B"}
    assert any("1 documents were not in the campaign" in m for m in messages_of(response))


def test_a_manager_imports_qrels_with_real_grades(personas):
    Query.objects.create(campaign=personas.campaign, external_id="q1", text="x")
    response = personas.client_for("manager").post(
        url(),
        {
            "kind": "qrels",
            "file": upload("a.qrels", "q1 0 d1 2.5\n"),
            "source": "mean",
            "any_grade": "on",
        },
    )
    assert response.status_code == 302
    assert LabelSource.objects.get(name="mean").labels.get().grade == 2.5


@pytest.mark.parametrize("persona", ["rater", "other_rater", "other_manager", "outsider"])
def test_others_get_404_and_nothing_is_written(personas, persona):
    before = counts()
    client = personas.client_for(persona)
    response = client.post(url(), {"kind": "queries", "file": upload("q.tsv", "q1\tx\n")})
    assert response.status_code == 404
    assert client.get(url()).status_code == 404
    assert counts() == before


def test_anonymous_is_sent_to_log_in(personas):
    response = personas.client_for("anonymous").post(
        url(), {"kind": "queries", "file": upload("q.tsv", "q1\tx\n")}
    )
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("login"))
    assert Query.objects.count() == 0


def test_a_bad_line_is_shown_with_file_and_line_and_nothing_is_written(personas):
    Query.objects.create(campaign=personas.campaign, external_id="q1", text="x")
    before = counts()
    response = personas.client_for("manager").post(
        url(),
        {
            "kind": "run",
            "file": upload("bm25.run", "q1 Q0 d1 1 2.0 bm25\nq1 Q0 d2 2 high bm25\n"),
            "system": "prod",
        },
    )
    assert response.status_code == 400
    html = response.content.decode()
    assert "Nothing was imported: bm25.run:2: score &#x27;high&#x27; is not a number" in html
    assert 'value="prod"' in html  # the options survive; only the file must be chosen again
    assert counts() == before
    assert RunEntry.objects.count() == 0


def test_a_file_that_is_not_utf8_is_refused_with_its_line(personas):
    response = personas.client_for("manager").post(
        url(),
        {"kind": "queries", "file": upload("q.tsv", "q1\tok\nq2\tcaf\xe9\n".encode("latin-1"))},
    )
    assert response.status_code == 400
    assert "q.tsv:2: not valid UTF-8" in response.content.decode()
    assert Query.objects.count() == 0


@pytest.mark.parametrize(
    ("data", "field_error"),
    [
        ({"kind": "qrels"}, "Name the label source the qrels go into."),
        ({"kind": "scored"}, "Name the run: this format has no run tag."),
        ({"kind": "run", "per_tag": "on", "name": "x"}, "One run per tag takes its names"),
        ({"kind": "pictures"}, "Select a valid choice."),
    ],
)
def test_the_form_explains_what_is_missing(personas, data, field_error):
    response = personas.client_for("manager").post(url(), {**data, "file": upload("f", "x\n")})
    assert response.status_code == 400
    assert field_error in response.content.decode()
    assert counts()["LabelSource"] == 0 and counts()["Run"] == 0


def test_a_missing_or_empty_file_is_a_form_error(personas):
    client = personas.client_for("manager")
    assert "This field is required." in client.post(url(), {"kind": "queries"}).content.decode()
    response = client.post(url(), {"kind": "queries", "file": upload("q.tsv", b"")})
    assert "The submitted file is empty." in response.content.decode()


def test_the_upload_needs_a_csrf_token(personas):
    client = Client(enforce_csrf_checks=True)
    client.force_login(personas.manager)
    response = client.post(url(), {"kind": "queries", "file": upload("q.tsv", "q1\tx\n")})
    assert response.status_code == 403
    assert Query.objects.count() == 0


def test_the_import_page_shows_the_form(personas):
    response = personas.client_for("manager").get(url())
    assert response.status_code == 200
    assert "Import into Campaign A" in response.content.decode()
