"""The API root, its authentication, and the OpenAPI schema and its pages."""

from __future__ import annotations

import re

import pytest
from knox.models import AuthToken
from rest_framework.test import APIClient

from tests.api.conftest import api_client_for


def test_the_schema_is_served_as_openapi_3(personas):
    response = api_client_for(personas, "anonymous").get("/api/v1/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    for path in ("/api/v1/campaigns/", "/api/v1/me/", "/api/v1/grades/", "/api/v1/runs/"):
        assert path in schema["paths"]


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_documentation_pages_load_nothing_from_another_host(personas, url):
    response = api_client_for(personas, "anonymous").get(url)
    assert response.status_code == 200
    html = response.content.decode()
    assert "/static/drf_spectacular_sidecar/" in html
    # Every src/href is a path on this server (no scheme, no protocol-relative //host).
    links = re.findall(r"""(?:src|href)\s*=\s*["']([^"']+)["']""", html)
    assert links
    assert [link for link in links if re.match(r"^(?:[a-z]+:)?//", link, re.I)] == []
    assert "cdn" not in html.lower()


@pytest.mark.parametrize("url", ["/api/v1/", "/api/v1/me/", "/api/v1/campaigns/"])
def test_anonymous_callers_get_401_with_a_reason(personas, url):
    response = api_client_for(personas, "anonymous").get(url)
    assert response.status_code == 401
    assert response["WWW-Authenticate"] == "Token"
    assert "detail" in response.json()


def test_a_token_authenticates_a_script(personas):
    _, token = AuthToken.objects.create(user=personas.rater)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    response = client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json() == {
        "username": "rater",
        "memberships": [{"campaign": "campaign-a", "role": "rater"}],
    }


def test_a_wrong_token_is_refused(personas):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    response = client.get("/api/v1/me/")
    assert response.status_code == 401
    assert response.json()["detail"]


@pytest.mark.parametrize(
    ("persona", "slugs"),
    [
        ("rater", ["campaign-a"]),
        ("manager", ["campaign-a"]),
        ("other_rater", ["campaign-b"]),
        ("other_manager", ["campaign-b"]),
        ("outsider", []),
    ],
)
def test_campaigns_endpoint_lists_only_the_callers_campaigns(personas, persona, slugs):
    response = api_client_for(personas, persona).get("/api/v1/campaigns/")
    assert response.status_code == 200
    assert [c["slug"] for c in response.json()["results"]] == slugs


def test_an_outsider_cannot_read_a_campaign_by_slug(personas):
    response = api_client_for(personas, "outsider").get("/api/v1/campaigns/campaign-a/")
    assert response.status_code == 404
