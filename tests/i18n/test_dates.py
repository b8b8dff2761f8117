"""Times on the raters' screens: written as the page's language writes them, in the zone the
deployment names (TIME_ZONE), which the screens show beside them (issue 20)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.urls import reverse

from annotate.models import Grade
from config.env import env_time_zone
from tests.annotate.queue_helpers import build_pool, handle

pytestmark = pytest.mark.django_db
ZH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9"}
EN_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9"}


def test_a_raters_grade_times_follow_the_language_and_name_the_zone(personas, settings):
    settings.TIME_ZONE = "Asia/Shanghai"  # UTC+8 all year (no daylight saving)
    (item,) = build_pool(personas.campaign, queries=1, docs_per_query=1)
    good = personas.campaign.labels.get(name="Good")
    grade = Grade.objects.create(pool_item=item, rater=personas.rater, label=good)
    # changed_at is auto_now: set by an update. 06:30 UTC is 14:30 in Shanghai.
    Grade.objects.filter(pk=grade.pk).update(changed_at=datetime(2025, 1, 5, 6, 30, tzinfo=UTC))
    client = personas.client_for("rater")
    slug = personas.campaign.slug
    history = reverse("annotate:judge_history", args=[slug])
    one_item = reverse("annotate:judge_item", args=[slug, handle(personas.rater, item)])

    chinese = client.get(history, **ZH_BROWSER).content.decode()
    assert "1月5日 14:30" in chinese and "时间（Asia/Shanghai）" in chinese
    assert "一月 5" not in chinese  # the English order with a Chinese month, as before
    english = client.get(history, **EN_BROWSER).content.decode()
    assert "Jan 5, 14:30" in english and "When (Asia/Shanghai)" in english

    banner = client.get(one_item, **ZH_BROWSER).content.decode()
    assert "评于 1月5日 14:30（Asia/Shanghai）" in banner
    banner = client.get(one_item, **EN_BROWSER).content.decode()
    assert "given Jan 5, 14:30 (Asia/Shanghai)" in banner


def test_the_time_zone_comes_from_the_environment_and_a_bad_one_is_refused(monkeypatch):
    monkeypatch.delenv("TIME_ZONE", raising=False)
    assert env_time_zone("TIME_ZONE", "UTC") == "UTC"
    monkeypatch.setenv("TIME_ZONE", "Asia/Shanghai")
    assert env_time_zone("TIME_ZONE", "UTC") == "Asia/Shanghai"
    monkeypatch.setenv("TIME_ZONE", "Beijing")
    with pytest.raises(ImproperlyConfigured, match="TIME_ZONE must be an IANA time zone"):
        env_time_zone("TIME_ZONE", "UTC")
