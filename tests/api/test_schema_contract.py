"""What the served OpenAPI schema promises a client generator, checked on the schema itself for
every operation (the generated-client test walks one script; this covers the rest)."""

from __future__ import annotations

import pytest
from django.test import Client

from annotate.api.pagination import MAX_PAGE_SIZE, PAGE_SIZE
from metrics.core.stats.gsb import Decision

METHODS = {"get", "post", "put", "patch", "delete"}
ERROR = "#/components/schemas/Error"


@pytest.fixture(scope="module")
def schema() -> dict:
    response = Client().get("/api/v1/schema/?format=json")
    assert response.status_code == 200
    return response.json()


def _operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in METHODS:
                yield f"{method.upper()} {path}", path, operation


def test_every_operation_answers_one_media_type_and_documents_its_refusals(schema):
    for name, path, operation in _operations(schema):
        responses = operation["responses"]
        for code in ("401", "429"):
            assert responses[code]["content"]["application/json"]["schema"]["$ref"] == ERROR, name
        if "{" in path:
            assert "404" in responses, name
        if "requestBody" in operation or any(
            p["in"] == "query" for p in operation.get("parameters", [])
        ):
            assert "400" in responses, name
        for code, response in responses.items():
            content = response.get("content", {})
            if code.startswith("2"):
                assert len(content) == 1, (name, code, list(content))
                media, body = next(iter(content.items()))
                if media != "application/json":
                    assert body["schema"] == {"type": "string"}, (name, media)
                    assert path.endswith((".csv", "/qrels/")), name
            else:
                assert list(content) == ["application/json"], (name, code)
                assert content["application/json"]["schema"]["$ref"] == ERROR, (name, code)


def test_uploads_are_binary_files_in_multipart(schema):
    components = schema["components"]["schemas"]
    for path in ("/api/v1/runs/", "/api/v1/campaigns/{slug}/imports/"):
        body = schema["paths"][path]["post"]["requestBody"]["content"]
        assert list(body) == ["multipart/form-data"], path
        ref = body["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[-1]
        assert components[ref]["properties"]["file"] == {
            **components[ref]["properties"]["file"],
            "type": "string",
            "format": "binary",
        }, path
    for name, component in components.items():
        if name.endswith("Request"):
            for field, prop in component.get("properties", {}).items():
                assert prop.get("format") != "uri", (name, field)


def test_ids_are_integers_in_paths_and_bodies_and_rater_handles_strings(schema):
    for name, _, operation in _operations(schema):
        for parameter in operation.get("parameters", []):
            if parameter["in"] == "path" and parameter["name"] != "slug":
                assert parameter["schema"]["type"] == "integer", (name, parameter["name"])
            if parameter["name"] == "comparison":
                assert parameter["schema"]["type"] == "integer", (name, parameter["name"])
            if parameter["name"] in ("item", "task") and parameter["in"] == "query":
                # A rater names their items and tasks by handle (issue 24), a manager by id:
                # one string parameter that says so.
                assert parameter["schema"]["type"] == "string", (name, parameter["name"])
                assert "handle" in parameter["description"], (name, parameter["name"])


def test_every_list_pages_by_cursor_with_its_sizes_documented(schema):
    lists = 0
    for name, _, operation in _operations(schema):
        parameters = {p["name"]: p for p in operation.get("parameters", [])}
        assert "page" not in parameters, name
        if operation["operationId"] == "campaigns_jobs_list":  # the latest 50, said so
            assert "not paged" in operation["description"]
            continue
        if operation["operationId"].endswith("_list") and not name.endswith(".csv"):
            lists += 1
            size = parameters["page_size"]["schema"]
            assert "cursor" in parameters, name
            assert (size["default"], size["maximum"]) == (PAGE_SIZE, MAX_PAGE_SIZE), name
    assert lists >= 10


def test_the_gsb_decision_is_a_closed_set_and_the_result_is_typed(schema):
    components = schema["components"]["schemas"]
    assert components["DecisionEnum"]["enum"] == [d.value for d in Decision]
    gsb = components["Gsb"]["properties"]
    refs = [s.get("$ref") for s in gsb["decision"]["oneOf"]]
    assert "#/components/schemas/DecisionEnum" in refs
    result = components["GsbResult"]["properties"]
    for field in ("gsb", "ci_low", "ci_high", "sign_p", "decision", "position_bias"):
        assert field in result


def test_the_token_scheme_is_required_globally_and_names_its_prefix(schema):
    assert {"knoxApiToken": []} in schema["security"]
    description = schema["components"]["securitySchemes"]["knoxApiToken"]["description"]
    assert "Authorization: Token <key>" in description


def test_the_measure_names_in_answers_are_documented(schema):
    parameters = schema["paths"]["/api/v1/campaigns/{slug}/scores/"]["get"]["parameters"]
    measure = next(p for p in parameters if p["name"] == "measure")
    assert "ndcg_cut_10" in measure["description"]


def test_json_comes_first_where_a_body_may_be_sent_several_ways(schema):
    for name, _, operation in _operations(schema):
        body = operation.get("requestBody", {}).get("content", {})
        if len(body) > 1:
            assert next(iter(body)) == "application/json", name


def test_agreement_rows_carry_exactly_the_documented_fields(schema, personas, data, second_rater):
    from tests.annotate.judgment_data import grade
    from tests.api.conftest import api_client_for

    grade(data.item, second_rater, "Fair")  # the item now has two raters' grades
    answer = api_client_for(personas, "manager").get("/api/v1/campaigns/campaign-a/agreement/")
    assert answer.status_code == 200
    rows = answer.json()["raters"]
    documented = schema["components"]["schemas"]["AgreementRater"]
    leanings = set(schema["components"]["schemas"]["LeaningEnum"]["enum"]) | {""}
    assert len(rows) == 2
    for row in rows:
        assert set(row) == set(documented["properties"])
        assert row["leaning"] in leanings
