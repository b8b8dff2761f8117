"""Which language a page speaks: the user's choice, then their campaign's, then the browser's;
the picker; and what a zh-Hans campaign gets (issue 20)."""

from __future__ import annotations

import pytest
from django.conf import settings
from django.urls import reverse

from annotate.models import Campaign, Preferences

pytestmark = pytest.mark.django_db
ZH_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "zh-CN,zh;q=0.9,en;q=0.5"}
EN_BROWSER = {"HTTP_ACCEPT_LANGUAGE": "en-GB,en;q=0.9"}


def language_of(response) -> str:
    html = response.content.decode()
    assert response.status_code == 200, html[:500]
    return response.headers["Content-Language"]


def home(client, **headers):
    return client.get(reverse("annotate:home"), **headers)


def test_a_browser_asking_for_chinese_gets_the_chinese_interface(personas):
    response = home(personas.client_for("rater"), **ZH_BROWSER)
    assert language_of(response) == "zh-hans"
    html = response.content.decode()
    assert '<html lang="zh-hans">' in html and "我的队列" in html and "My queues" not in html
    assert language_of(home(personas.client_for("rater"), **EN_BROWSER)) == "en"


def test_the_campaigns_language_comes_before_the_browsers_for_its_raters(personas):
    Campaign.objects.filter(pk=personas.campaign.pk).update(language="zh-hans")
    assert language_of(home(personas.client_for("rater"), **EN_BROWSER)) == "zh-hans"
    judge = reverse("annotate:judge", args=[personas.campaign.slug])
    assert language_of(personas.client_for("rater").get(judge, **EN_BROWSER)) == "zh-hans"
    # Someone who does not belong to the campaign is not given its language, even on its URL.
    outsider = personas.client_for("outsider")
    assert language_of(home(outsider, **EN_BROWSER)) == "en"
    page = outsider.get(reverse("annotate:campaign", args=[personas.campaign.slug]), **EN_BROWSER)
    assert page.status_code in (403, 404) and page.headers["Content-Language"] == "en"


def test_the_campaigns_language_is_for_its_raters_not_its_managers(personas):
    """The issue: "the campaign's default language for its raters"; a manager of a Chinese
    campaign whose browser asks for English gets English, on the campaign's own pages too."""
    Campaign.objects.filter(pk=personas.campaign.pk).update(language="zh-hans")
    manager = personas.client_for("manager")
    slug = personas.campaign.slug
    for url in (reverse("annotate:campaign", args=[slug]), reverse("annotate:home")):
        assert language_of(manager.get(url, **EN_BROWSER)) == "en", url
    assert language_of(manager.get(reverse("annotate:home"), **ZH_BROWSER)) == "zh-hans"
    rater = personas.client_for("rater")
    judge = reverse("annotate:judge", args=[slug])
    assert language_of(rater.get(judge, **EN_BROWSER)) == "zh-hans"


def test_the_campaign_in_the_url_comes_before_the_newest_one(personas):
    """A rater of two campaigns with languages: on one campaign's pages, that campaign's; on
    pages of no campaign, the newest membership's."""
    from annotate.models import Membership, Role

    first, newer = personas.campaign, personas.other_campaign
    Campaign.objects.filter(pk=first.pk).update(language="zh-hans")
    Campaign.objects.filter(pk=newer.pk).update(language="en")
    Membership.objects.get_or_create(user=personas.rater, campaign=newer, role=Role.RATER)
    rater = personas.client_for("rater")
    judge = reverse("annotate:judge", args=[first.slug])
    assert language_of(rater.get(judge, **EN_BROWSER)) == "zh-hans"
    assert language_of(home(rater, **ZH_BROWSER)) == "en"
    # With the newer campaign's language cleared, the older one's is the newest that has one.
    Campaign.objects.filter(pk=newer.pk).update(language="")
    assert language_of(home(rater, **EN_BROWSER)) == "zh-hans"


def test_the_users_choice_comes_first(personas):
    Campaign.objects.filter(pk=personas.campaign.pk).update(language="zh-hans")
    Preferences.objects.create(user=personas.rater, language="en")
    assert language_of(home(personas.client_for("rater"), **ZH_BROWSER)) == "en"


def test_the_picker_stores_the_choice_and_automatic_gives_it_back(personas):
    client = personas.client_for("manager")
    back_to = reverse("annotate:campaign_list")
    response = client.post(reverse("annotate:language"), {"language": "zh-hans", "next": back_to})
    assert response.status_code == 302 and response.url == back_to
    assert Preferences.objects.get(user=personas.manager).language == "zh-hans"
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == "zh-hans"
    assert language_of(client.get(back_to, **EN_BROWSER)) == "zh-hans"
    assert "项目" in client.get(back_to, **EN_BROWSER).content.decode()

    response = client.post(reverse("annotate:language"), {"language": "", "next": back_to})
    assert Preferences.objects.get(user=personas.manager).language == ""
    assert response.cookies[settings.LANGUAGE_COOKIE_NAME].value == ""  # deleted
    client.cookies.pop(settings.LANGUAGE_COOKIE_NAME, None)
    assert language_of(client.get(back_to, **EN_BROWSER)) == "en"


def test_the_picker_refuses_unknown_languages_and_foreign_redirects(personas):
    client = personas.client_for("rater")
    refused = client.post(reverse("annotate:language"), {"language": "xx"})
    assert refused.status_code == 400
    assert not Preferences.objects.filter(user=personas.rater).exclude(language="").exists()
    away = client.post(
        reverse("annotate:language"), {"language": "en", "next": "https://evil.example/"}
    )
    assert away.status_code == 302 and away.url == reverse("annotate:home")


def test_signed_out_the_picker_sets_a_cookie_that_becomes_the_choice_at_sign_in(personas):
    from tests.conftest import PASSWORD

    client = personas.client_for("anonymous")
    client.post(reverse("annotate:language"), {"language": "zh-hans", "next": "/login/"})
    login = client.get(reverse("login"), **EN_BROWSER)
    assert language_of(login) == "zh-hans" and "登录" in login.content.decode()
    client.post(reverse("login"), {"username": "rater", "password": PASSWORD}, **EN_BROWSER)
    assert Preferences.objects.get(user=personas.rater).language == "zh-hans"


def test_a_zh_hans_campaign_starts_with_the_chinese_scale(personas):
    personas.manager.is_staff = True
    personas.manager.save()
    client = personas.client_for("manager")
    form = {
        "name": "鞋类搜索",
        "slug": "",
        "description": "",
        "guidelines": "",
        "overlap": 1,
        "lease_minutes": 15,
        "aggregation": "mean",
        "relevant_from": 2,
        "language": "zh-hans",
    }
    response = client.post(reverse("annotate:manage_new"), form, **ZH_BROWSER)
    assert response.status_code == 302, response.content.decode()[:2000]
    campaign = Campaign.objects.get(name="鞋类搜索")
    assert campaign.language == "zh-hans" and campaign.slug  # a slug made from Chinese
    assert list(campaign.labels.order_by("position").values_list("name", flat=True)) == [
        "好",
        "一般",
        "差",
    ]
    english = client.post(reverse("annotate:manage_new"), form | {"name": "Shoes", "language": ""})
    assert english.status_code == 302
    assert Campaign.objects.get(name="Shoes").labels.filter(name="Good").exists()


def test_form_errors_speak_the_users_language(personas):
    personas.manager.is_staff = True
    personas.manager.save()
    client = personas.client_for("manager")
    form = {"name": "x", "slug": "new", "overlap": 1, "lease_minutes": 15}
    form |= {"aggregation": "mean", "relevant_from": 2}
    response = client.post(reverse("annotate:manage_new"), form, **ZH_BROWSER)
    assert response.status_code == 400
    assert "“new”是保留字" in response.content.decode()


def test_the_scripts_catalogue_follows_the_page(personas):
    client = personas.client_for("rater")
    catalogue = client.get(reverse("javascript-catalog"), **ZH_BROWSER)
    assert catalogue.status_code == 200
    assert "\\u65e0\\u6cd5\\u5224\\u65ad" in catalogue.content.decode()  # 无法判断
    assert "\\u65e0" not in client.get(reverse("javascript-catalog"), **EN_BROWSER).content.decode()


def test_a_judging_refusal_comes_back_in_the_pages_language(personas):
    import json

    from tests.annotate.queue_helpers import build_pool

    build_pool(personas.campaign, queries=1, docs_per_query=2)
    client = personas.client_for("rater")
    url = reverse("annotate:judge_api", kwargs={"slug": personas.campaign.slug})
    body = json.dumps({"item": 10**9, "action": "label", "label": 1, "seconds": 3})

    def refusal(**headers) -> str:
        response = client.post(url, body, content_type="application/json", **headers)
        assert response.status_code == 404
        return response.json()["error"]

    assert refusal(**ZH_BROWSER) == "这个条目不属于本项目。"  # the browser's language
    assert refusal(**EN_BROWSER) == "This item is not part of this campaign."
    # The campaign's language: a page puts it in the cookie the scripts' requests carry.
    Campaign.objects.filter(pk=personas.campaign.pk).update(language="zh-hans")
    client.get(reverse("annotate:home"), **EN_BROWSER)
    assert refusal(**EN_BROWSER) == "这个条目不属于本项目。"


def test_an_import_error_keeps_its_file_line_shape_in_chinese(personas):
    import io

    from django.utils import translation

    from annotate.services.imports import ImportFailed, import_queries

    bad = io.BytesIO(b"q1\tfine query\nq2\tbad\x00query\n")
    with translation.override("zh-hans"), pytest.raises(ImportFailed) as failed:
        import_queries(campaign=personas.campaign, file=bad, name="queries.tsv", fmt="tsv")
    assert str(failed.value) == "queries.tsv:2: 该行包含 NUL 字节"
