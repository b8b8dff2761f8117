"""Images in guidelines load only from this site and from the hosts a campaign's managers
allow: the sanitiser drops any other image source, and the judging pages' CSP img-src names
exactly those hosts."""

from __future__ import annotations

import pytest
from django.core.exceptions import ValidationError
from django.urls import reverse

from annotate.models import Campaign
from annotate.models.campaigns import validate_image_hosts
from annotate.services.markdown import render_markdown
from tests.annotate.queue_helpers import build_pool
from tests.support.forms import form_as_shown

PIXEL = "![x](https://tracker.example.net/p.gif)"
ALLOWED = "![y](https://img.example.com/a.png)"
LOCAL = "![z](/static/logo.png)"


def test_an_image_from_another_host_loses_its_source():
    html = render_markdown(f"{PIXEL}\n\n{LOCAL}")
    assert "tracker.example.net" not in html
    assert 'src="/static/logo.png"' in html


def test_an_image_from_an_allowed_host_is_kept():
    html = render_markdown(f"{PIXEL}\n\n{ALLOWED}", image_hosts=["img.example.com"])
    assert 'src="https://img.example.com/a.png"' in html and "tracker" not in html


@pytest.mark.parametrize("src", ["//tracker.example.net/p.gif", "javascript:alert(1)", "data:x"])
def test_protocol_relative_and_other_schemes_are_dropped(src):
    assert "src=" not in render_markdown(f"![a]({src})", image_hosts=["img.example.com"])


@pytest.mark.parametrize("text", ["https://img.example.com", "*.example.com", "a b", "x'; script"])
def test_image_hosts_must_be_plain_host_names(text):
    with pytest.raises(ValidationError):
        validate_image_hosts(text)


def test_plain_host_names_and_ports_pass():
    validate_image_hosts("img.example.com\n\ncdn.example.org:8443\n")


def test_the_judging_page_allows_the_campaigns_image_hosts_in_its_csp(personas):
    build_pool(personas.campaign, queries=1, docs_per_query=1)
    Campaign.objects.filter(pk=personas.campaign.pk).update(
        guidelines=f"{PIXEL}\n\n{ALLOWED}", image_hosts="img.example.com"
    )
    response = personas.client_for("rater").get(
        reverse("annotate:judge", kwargs={"slug": "campaign-a"})
    )
    assert response.status_code == 200
    policy = response["Content-Security-Policy"]
    img_src = next(d for d in policy.split("; ") if d.startswith("img-src"))
    assert img_src.split() == ["img-src", "'self'", "data:", "img.example.com"]
    html = response.content.decode()
    assert "https://img.example.com/a.png" in html and "tracker.example.net" not in html


def test_other_pages_allow_no_outside_image(personas):
    Campaign.objects.filter(pk=personas.campaign.pk).update(image_hosts="img.example.com")
    response = personas.client_for("manager").get("/campaigns/campaign-a/")
    assert "img.example.com" not in response["Content-Security-Policy"]
    assert "script-src 'self'" in response["Content-Security-Policy"]


def test_a_manager_sets_the_image_hosts_on_the_settings_page(personas):
    url = reverse("annotate:manage_settings", kwargs={"slug": "campaign-a"})
    client = personas.client_for("manager")
    data = form_as_shown(client, url)
    data["image_hosts"] = "https://bad.example.com/"
    assert client.post(url, data).status_code == 400
    data["image_hosts"] = "img.example.com"
    assert client.post(url, data).status_code == 302
    assert Campaign.objects.get(pk=personas.campaign.pk).image_host_list == ["img.example.com"]
