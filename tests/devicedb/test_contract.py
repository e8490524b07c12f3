"""The service's HTTP contract where a fuzzer found it broken, one test per defect, on both databases."""

from __future__ import annotations

import pytest
import requests

from tests.support.devicedb_support import rows


def refusal(resp: requests.Response) -> tuple[int, str]:
    body = resp.json()
    assert set(body) == {"error", "field", "rule"}
    assert body["error"] == f"{body['field']}: {body['rule']}"
    return resp.status_code, body["field"]


def test_offsets_beyond_64_bits_are_refused_not_a_crash(api):
    assert refusal(requests.get(api, params={"offset": 2**63})) == (422, "offset")
    assert requests.get(api, params={"offset": 2**63 - 1}).json() == {"items": [], "total": 0}


def test_405_names_every_allowed_method_and_head_works(api):
    requests.post(api, json={"model": "CPH2223"})
    options = requests.options(api)
    assert (options.status_code, options.headers["Allow"]) == (405, "GET, HEAD, POST")
    assert refusal(options) == (405, "method")
    put = requests.put(f"{api}/CPH2223", json={})
    assert (put.status_code, put.headers["Allow"]) == (405, "DELETE, GET, HEAD, PATCH")
    head = requests.head(f"{api}/CPH2223")
    assert (head.status_code, head.content) == (200, b"")
    assert int(head.headers["content-length"]) == len(requests.get(f"{api}/CPH2223").content)
    assert requests.head(f"{api}/CPH9999").status_code == 404
    assert requests.head(api).status_code == 200


def test_unknown_paths_answer_in_the_services_error_body(service):
    assert refusal(requests.get(f"{service.url}/api/nothing")) == (404, "path")


@pytest.mark.parametrize(
    "body, rule",
    [
        (b'{"model": "CPH2223", "marketName": "\xff\xfe"}', "not UTF-8"),
        (b'{"model": "CPH2223", "x": ' + b"[" * 20_000 + b"]" * 20_000 + b"}", "nested too deeply"),
        (b'{"model": "CPH2223", "x": ' + b"7" * 5_000 + b"}", "4300"),
        (b'{"model": "CPH2223"', "malformed JSON"),
    ],
    ids=["invalid-utf8", "nested-20000", "int-5000-digits", "truncated"],
)
def test_unreadable_bodies_get_400_in_the_services_error_body(api, database, body, rule):
    resp = requests.post(api, data=body, headers={"Content-Type": "application/json"})
    assert refusal(resp) == (400, "body")
    assert rule in resp.json()["rule"]
    assert rows(database) == []


@pytest.mark.parametrize("code", ["uniſ12", "ﬃ123", "ＣＰＨ2223", "CPH2223\u0130"])
def test_codes_are_checked_as_ascii_before_upper_casing(api, database, code):
    resp = requests.post(api, json={"model": code})
    assert refusal(resp) == (422, "model")
    assert "ASCII only" in resp.json()["rule"]
    assert rows(database) == []
    requests.post(api, json={"model": "UNIS12"})
    requests.post(api, json={"model": "FFI123"})
    assert refusal(requests.get(f"{api}/{code}")) == (404, "model")
    assert refusal(requests.delete(f"{api}/{code}")) == (404, "model")
    assert [r[0] for r in rows(database)] == ["FFI123", "UNIS12"]


@pytest.mark.parametrize("field", ["marketName", "marketNameEn", "createdBy"])
@pytest.mark.parametrize("bad", ["OPPO\x00", "OPPO\u202eN6", "a\nb", "\u2066x", "\x9b"])
def test_names_refuse_control_and_bidi_characters(api, database, field, bad):
    resp = requests.post(api, json={"model": "CPH2223", field: bad})
    assert refusal(resp) == (422, field)
    assert "control" in resp.json()["rule"]
    assert rows(database) == []


def test_names_keep_other_unicode_and_lose_surrounding_blanks(api, database):
    body = {"model": "CPH2223", "marketName": "  一加 Ace ✓ \u200d ", "marketNameEn": "Ace\u00a0Pro"}
    assert requests.post(api, json=body).status_code == 201
    assert rows(database) == [("CPH2223", "一加 Ace ✓ \u200d", "Ace\u00a0Pro")]


def test_search_text_refuses_what_names_refuse(api):
    assert refusal(requests.get(api, params={"q": "a\x00b"})) == (422, "q")
    assert requests.get(api, params={"q": " 一加 "}).json() == {"items": [], "total": 0}


def test_every_route_declares_its_responses_and_the_error_body(service):
    spec = requests.get(f"{service.url}/openapi.json").json()
    declared = {
        (method, path): set(operation["responses"])
        for path, item in spec["paths"].items()
        for method, operation in item.items()
    }
    assert declared == {
        ("post", "/api/models"): {"200", "201", "400", "409", "413", "422"},
        ("get", "/api/models"): {"200", "422"},
        ("get", "/api/models/{model}"): {"200", "404", "422"},
        ("delete", "/api/models/{model}"): {"200", "404", "422"},
        ("patch", "/api/models/{model}"): {"200", "400", "404", "409", "413", "422"},
    }
    for path, item in spec["paths"].items():
        for operation in item.values():
            for status, response in operation["responses"].items():
                ref = response["content"]["application/json"]["schema"]["$ref"]
                assert (ref == "#/components/schemas/Rejection") == status.startswith("4"), (path, status)
    add_links = spec["paths"]["/api/models"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in add_links.values()} == {"getModel", "deleteModel", "updateModel"}
