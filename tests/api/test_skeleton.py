"""The API root, its authentication, and the OpenAPI schema."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient


def api_client_for(personas, name: str) -> APIClient:
    client = APIClient()
    if name != "anonymous":
        client.force_authenticate(getattr(personas, name))
    return client


def test_the_schema_is_served_as_openapi_3(personas):
    response = api_client_for(personas, "anonymous").get("/api/v1/schema/", {"format": "json"})
    assert response.status_code == 200
    schema = response.json()
    assert schema["openapi"].startswith("3.")
    assert "/api/v1/campaigns/" in schema["paths"]
    assert "/api/v1/me/" in schema["paths"]


def test_swagger_page_uses_no_cdn(personas):
    response = api_client_for(personas, "anonymous").get("/api/v1/docs/")
    assert response.status_code == 200


@pytest.mark.parametrize("url", ["/api/v1/", "/api/v1/me/", "/api/v1/campaigns/"])
def test_anonymous_callers_get_nothing(personas, url):
    response = api_client_for(personas, "anonymous").get(url)
    assert response.status_code in (401, 403)
    assert "detail" in response.json()


def test_a_token_authenticates_a_script(personas):
    token = Token.objects.create(user=personas.rater)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    response = client.get("/api/v1/me/")
    assert response.status_code == 200
    assert response.json() == {
        "username": "rater",
        "memberships": [{"campaign": "campaign-a", "role": "rater"}],
    }


def test_a_wrong_token_is_refused(personas):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert client.get("/api/v1/me/").status_code == 401


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
