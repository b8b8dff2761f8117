"""CSV downloads for Excel (issue 20): a UTF-8 byte-order mark on request (?bom=1) or by the
user's preference; never on qrels or JSONL, which programs read. Python's utf-8-sig codec is
the reference reader: it takes the mark off, as Excel does."""

from __future__ import annotations

import codecs

import pytest
from django.http import StreamingHttpResponse
from django.urls import reverse

from annotate.models import Preferences, Role
from annotate.services.campaigns import membership_set
from tests.annotate.judgment_data import grade, pool_item
from tests.metrics.report_helpers import make_world

BOM = codecs.BOM_UTF8


def _bytes(response) -> bytes:
    if isinstance(response, StreamingHttpResponse):
        return b"".join(response.streaming_content)
    return response.content


def _grades(client, **params) -> bytes:
    url = reverse("annotate:export_grades", kwargs={"slug": "campaign-a"})
    response = client.get(url, params)
    assert response.status_code == 200
    return _bytes(response)


@pytest.fixture
def chinese_grade(personas):
    item = pool_item(personas.campaign, "篮球鞋 男 透气", "doc-1")
    grade(item, personas.rater, "Good", comment="很好")


def test_the_mark_is_written_when_asked_and_the_text_is_unchanged(personas, chinese_grade):
    client = personas.client_for("manager")
    plain = _grades(client)
    marked = _grades(client, bom=1)
    assert not plain.startswith(BOM)
    assert marked.startswith(BOM) and marked.count(BOM) == 1
    assert marked.decode("utf-8-sig") == plain.decode("utf-8")
    assert "篮球鞋 男 透气" in marked.decode("utf-8-sig")


def test_the_users_preference_decides_unless_the_link_does(personas, chinese_grade):
    client = personas.client_for("manager")
    response = client.post(reverse("annotate:preferences"), {"csv_bom": "on"})
    assert response.status_code == 302
    assert Preferences.objects.get(user=personas.manager).csv_bom
    assert _grades(client).startswith(BOM)
    assert not _grades(client, bom=0).startswith(BOM)
    # A preference is the user's own: a co-manager without it gets no mark.
    membership_set(campaign=personas.campaign, user=personas.other_manager, role=Role.MANAGER)
    assert not _grades(personas.client_for("other_manager")).startswith(BOM)
    client.post(reverse("annotate:preferences"), {})  # unticked
    assert not _grades(client).startswith(BOM)


def test_programs_files_never_get_the_mark(personas, chinese_grade):
    client = personas.client_for("manager")
    client.post(reverse("annotate:preferences"), {"csv_bom": "on"})
    assert not _grades(client, format="jsonl").startswith(BOM)
    qrels = client.get(reverse("annotate:export_qrels", kwargs={"slug": "campaign-a"}), {"bom": 1})
    assert not _bytes(qrels).startswith(BOM)


@pytest.mark.parametrize(
    ("name", "download"),
    [("dashboard", "raters"), ("systems", "systems"), ("disagreements", "disagreements")],
)
def test_report_tables_follow_the_preference(personas, name, download):
    make_world(personas.campaign)
    client = personas.client_for("manager")
    url = reverse(f"metrics:{name}", kwargs={"slug": "campaign-a"})
    assert not _bytes(client.get(url, {"download": download})).startswith(BOM)
    Preferences.objects.create(user=personas.manager, csv_bom=True)
    marked = _bytes(client.get(url, {"download": download}))
    assert marked.startswith(BOM)
    assert marked.decode("utf-8-sig").startswith(
        _bytes(client.get(url, {"download": download, "bom": 0})).decode()
    )


def test_the_preferences_page_is_for_signed_in_users(personas):
    from django.test import Client

    response = Client().get(reverse("annotate:preferences"))
    assert response.status_code == 302 and "/login/" in response["Location"]
    page = personas.client_for("rater").get(reverse("annotate:preferences"))
    assert page.status_code == 200 and "byte-order mark" in page.content.decode()


def test_the_gold_answers_csv_takes_the_mark_as_the_other_exports_do(personas):
    client = personas.client_for("manager")
    url = reverse("annotate:export_gold_answers", kwargs={"slug": "campaign-a"})

    def download(**params) -> bytes:
        response = client.get(url, params)
        assert response.status_code == 200
        return _bytes(response)

    plain = download()
    assert not plain.startswith(BOM) and plain  # a header row at least
    marked = download(bom=1)
    assert marked.startswith(BOM) and marked.decode("utf-8-sig") == plain.decode("utf-8")
    assert not download(format="jsonl", bom=1).startswith(BOM)  # read by programs
    client.post(reverse("annotate:preferences"), {"csv_bom": "on"})
    assert download().startswith(BOM) and not download(bom=0).startswith(BOM)
