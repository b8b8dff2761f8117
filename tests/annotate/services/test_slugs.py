"""Campaign slugs from names in any script (issue 20): transliterated, or random, never a
form error."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command
from django.test import Client
from django.urls import reverse

from annotate.models import Campaign
from annotate.services.campaigns import campaign_create
from annotate.services.slugs import random_slug, slug_from_name, slug_unique

SLUG = re.compile(r"[a-z0-9]+(?:[-_][a-z0-9]+)*")


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        # Pinyin written by hand: lán qiú xié / nán / tòu qì.
        ("篮球鞋 男 透气", "lanqiuxie-nan-touqi"),
        ("网页搜索 2026", "wangyesousuo-2026"),
        ("Поиск", "poisk"),
        ("Shoes search", "shoes-search"),
    ],
)
def test_names_in_any_script_are_transliterated(name, expected):
    assert slug_from_name(name) == expected


def test_a_name_with_nothing_to_transliterate_gets_a_random_slug():
    assert slug_from_name("🙂 !!! 🙂") == ""
    slug = slug_unique("🙂 !!!", taken=lambda s: False)
    assert SLUG.fullmatch(slug) and len(slug) == 8
    assert slug_unique("🙂", taken=lambda s: False) != slug  # random, not a fixed fallback


def test_a_taken_slug_gets_a_number_then_a_random_tail():
    taken = {"shoes"} | {f"shoes-{n}" for n in range(2, 10)}
    assert slug_unique("Shoes", taken=lambda s: s in {"shoes"}) == "shoes-2"
    tail = slug_unique("Shoes", taken=taken.__contains__)
    assert tail.startswith("shoes-") and tail not in taken and SLUG.fullmatch(tail)
    assert slug_unique("new", taken=lambda s: False, reserved=frozenset({"new"})) == "new-2"


def test_random_slugs_use_an_unambiguous_alphabet():
    letters = "".join(random_slug() for _ in range(200))
    assert not set(letters) & set("01lo")


@pytest.fixture
def staff_client(db):
    user = get_user_model().objects.create_user(username="staff", password="x", is_staff=True)
    client = Client()
    client.force_login(user)
    return client


FORM = {"description": "", "guidelines": "", "overlap": 1, "lease_minutes": 15}
FORM |= {"aggregation": "mean", "relevant_from": 2, "slug": ""}


def test_an_all_chinese_name_makes_a_campaign_from_the_form(staff_client):
    response = staff_client.post(reverse("annotate:manage_new"), FORM | {"name": "篮球鞋 男 透气"})
    assert response.status_code == 302
    campaign = Campaign.objects.get(name="篮球鞋 男 透气")
    assert campaign.slug == "lanqiuxie-nan-touqi"
    # The same name again is a double submit, refused as before, with the slug it would take.
    again = staff_client.post(reverse("annotate:manage_new"), FORM | {"name": "篮球鞋 男 透气"})
    assert again.status_code == 400
    assert "lanqiuxie-nan-touqi” already exists" in again.content.decode()


def test_a_name_of_emoji_still_makes_a_campaign(staff_client):
    response = staff_client.post(reverse("annotate:manage_new"), FORM | {"name": "🙂🙂"})
    assert response.status_code == 302
    assert SLUG.fullmatch(Campaign.objects.get(name="🙂🙂").slug)


def test_the_service_and_the_command_transliterate_too(db, capsys):
    assert campaign_create(name="搜索质量").slug == "sousuozhiliang"
    call_command("campaign_create", "评估 第一轮")
    assert Campaign.objects.filter(slug="pinggu-diyilun").exists()
    call_command("campaign_create", "🙂")
    assert SLUG.fullmatch(Campaign.objects.get(name="🙂").slug)


# By hand: 语言 is yǔ yán, 预演 yù yǎn; without tones both are yuyan.
SAME_SOUND = ("语言", "预演")


def test_two_names_that_sound_alike_get_a_numbered_slug_and_only_a_double_submit_is_refused(
    staff_client,
):
    first, second = SAME_SOUND
    assert slug_from_name(first) == slug_from_name(second) == "yuyan"
    new = reverse("annotate:manage_new")
    assert staff_client.post(new, FORM | {"name": first}).status_code == 302
    response = staff_client.post(new, FORM | {"name": second})
    assert response.status_code == 302, response.content.decode()[:2000]
    assert Campaign.objects.get(name=first).slug == "yuyan"
    assert Campaign.objects.get(name=second).slug == "yuyan-2"
    again = staff_client.post(new, FORM | {"name": first})
    assert again.status_code == 400 and "yuyan” already exists" in again.content.decode()
    twice = staff_client.post(new, FORM | {"name": second})  # its slug was numbered
    assert twice.status_code == 400 and "yuyan-2” already exists" in twice.content.decode()
    assert Campaign.objects.filter(name__in=SAME_SOUND).count() == 2


def test_the_service_and_the_command_number_a_slug_another_name_made_first(db):
    from django.core.management.base import CommandError

    from annotate.services.campaigns import CampaignExists

    first, second = SAME_SOUND
    assert campaign_create(name=first).slug == "yuyan"
    assert campaign_create(name=second).slug == "yuyan-2"
    with pytest.raises(CampaignExists):
        campaign_create(name=first)
    call_command("campaign_create", "鱼眼")  # yú yǎn: a third
    assert Campaign.objects.get(name="鱼眼").slug == "yuyan-3"
    with pytest.raises(CommandError, match="already exists"):
        call_command("campaign_create", second)  # run twice
    assert Campaign.objects.filter(name=second).count() == 1
