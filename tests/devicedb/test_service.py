"""The device service over real HTTP, on SQLite and on Postgres: rules, idempotency, concurrency."""

from __future__ import annotations

import re
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from devicedb.schema import REGION_SUFFIXES, normalize_code
from tests.conftest import ROOT
from tests.support.devicedb_support import rows

CODE_RULE = "must be 3-20 letters or digits"


def test_add_then_add_again(api, database):
    first = requests.post(
        api, json={"model": "CPH2223", "marketName": "OPPO Find N6", "marketNameEn": "Find N6"}
    )
    assert first.status_code == 201
    body = first.json()
    assert {k: body[k] for k in ("model", "marketName", "marketNameEn", "created")} == {
        "model": "CPH2223",
        "marketName": "OPPO Find N6",
        "marketNameEn": "Find N6",
        "created": True,
    }
    again = requests.post(api, json={"model": "cph2223in"})
    assert again.status_code == 200
    assert again.json() == {**body, "created": False}
    assert rows(database) == [("CPH2223", "OPPO Find N6", "Find N6")]


def test_market_name_defaults_to_the_tutorials(api):
    assert requests.post(api, json={"model": "CPH2411"}).json()["marketName"] == "营销名未解密"
    assert (
        requests.post(api, json={"model": "RMX3371", "marketName": None}).json()["marketName"]
        == "营销名未解密"
    )


@pytest.mark.parametrize(
    "raw, code",
    [
        ("CPH2223IN", "CPH2223"),
        ("  cph2223cn ", "CPH2223"),
        ("CPH2223EEA", "CPH2223"),
        ("RMX3371", "RMX3371"),
        ("ABCIN", "ABCIN"),
        ("A1IN", "A1IN"),
        ("uniſ12", None),
        ("ﬃ123", None),
        ("ＣＰＨ2223", None),
        ("A" * 21, None),
        ("SM-G9910", "SMG9910"),
        ("sm-g9910", "SMG9910"),
        ("SM G9910", "SMG9910"),
        ("ALN-AL00", "ALNAL00"),
        ("PGT-AN10", "PGTAN10"),
        ("CPH2223-IN", "CPH2223"),
        ("SM--G9910", None),
        ("-SM9910", None),
        ("A-" * 20 + "A", None),  # 21 letters: the separators are not counted, and do not help
    ],
)
def test_normalize_code(raw, code):
    assert normalize_code(raw) == code


@pytest.mark.parametrize("page", ["devicedb.en.md", "devicedb.md"])
def test_the_docs_list_the_region_suffixes_stripped_after_a_digit_leaving_three(page):
    listed = re.search(
        r"`((?:[A-Z]{2,3} ){10,}[A-Z]{2,3})`", (ROOT / "docs" / page).read_text(encoding="utf-8")
    )
    assert listed is not None and tuple(listed[1].split()) == REGION_SUFFIXES
    for suffix in REGION_SUFFIXES:
        assert normalize_code(f"CPH2223{suffix}") == "CPH2223"
        assert normalize_code(f"CPHX{suffix}") == f"CPHX{suffix}"  # not after a digit: kept
        assert normalize_code(f"A1{suffix}") == f"A1{suffix}"  # fewer than 3 left: kept


def test_one_row_per_code_however_it_is_written(api, database):
    statuses = [
        requests.post(api, json={"model": m}).status_code for m in ("SM-G9910", "sm-g9910", "SMG9910")
    ]
    assert statuses == [201, 200, 200]
    assert rows(database) == [("SMG9910", "营销名未解密", None)]
    assert requests.get(f"{api}/SM G9910").json()["model"] == "SMG9910"
    assert requests.get(api, params={"q": "sm-g99"}).json()["total"] == 1
    assert requests.delete(f"{api}/Sm-G9910").json() == {"model": "SMG9910", "deleted": True}


def test_get_and_search(api):
    for model, name in [("CPH2223", "OPPO Find N6"), ("CPH2411", "OPPO Reno 8"), ("RMX3371", "realme GT")]:
        requests.post(api, json={"model": model, "marketName": name})
    assert requests.get(f"{api}/cph2223in").json()["marketName"] == "OPPO Find N6"
    missing = requests.get(f"{api}/CPH9999")
    assert missing.status_code == 404
    assert missing.json()["field"] == "model"
    page = requests.get(api, params={"q": "CPH", "limit": 1, "offset": 1}).json()
    assert (page["total"], [r["model"] for r in page["items"]]) == (2, ["CPH2411"])
    assert requests.get(api, params={"q": "reno"}).json()["items"][0]["model"] == "CPH2411"
    assert requests.get(api, params={"q": "100%"}).json() == {"items": [], "total": 0}
    assert requests.get(api, params={"limit": 0}).status_code == 422


def test_a_search_among_named_codes_answers_for_many_models_in_one_request(api):
    for model in ["CPH2223", "CPH2411", "SMG9910", "RMX3371"]:
        requests.post(api, json={"model": model})
    named = ["cph2223in", "SM-G9910", "NOPE1", "CPH2223"]
    page = requests.get(api, params={"model": named, "limit": 100}).json()
    assert ([r["model"] for r in page["items"]], page["total"]) == (["CPH2223", "SMG9910"], 2)
    assert page["items"][0] == requests.get(f"{api}/CPH2223").json()  # the record, as a lookup gives it
    among = requests.get(api, params={"model": ["CPH2223", "CPH2411"], "q": "2411"}).json()
    assert [r["model"] for r in among["items"]] == ["CPH2411"]
    not_a_code = requests.get(api, params={"model": ["CPH2223", "C-1"]})
    assert (not_a_code.status_code, not_a_code.json()["field"]) == (422, "model.1")
    assert CODE_RULE in not_a_code.json()["rule"]
    too_many = requests.get(api, params={"model": [f"CPH{n}" for n in range(1000, 1101)]})
    assert (too_many.status_code, too_many.json()["field"]) == (422, "model")
    assert "at most 100" in too_many.json()["rule"]


def test_a_search_that_finds_nothing_names_the_codes_one_edit_away(api):
    for model in ["RMX3085", "RMX3058", "CPH2437", "PJD110"]:
        requests.post(api, json={"model": model})

    def near(q: str) -> list[str] | None:
        page = requests.get(api, params={"q": q}).json()
        return page.get("didYouMean")

    assert near("RMX385") == ["RMX3085"]  # a character dropped
    assert near("rmx3805") == ["RMX3085"]  # two swapped, in any case
    assert near("CPH2473") == ["CPH2437"]
    assert near("PJD119") == ["PJD110"]  # one changed
    assert near("PJD1100") == ["PJD110"]  # one added
    assert near("RMX3085") is None  # found: nothing to suggest
    assert near("RMX30") is None  # found as a part of codes
    assert near("XYZ999") is None  # nothing near
    assert near("CPH24") is None  # too far from any


@pytest.mark.parametrize(
    "body, status, field, rule",
    [
        ({"model": "C-1"}, 422, "model", CODE_RULE),
        ({"model": "AB"}, 422, "model", CODE_RULE),
        ({"model": "A" * 21}, 422, "model", CODE_RULE),
        ({"marketName": "x"}, 422, "model", "Field required"),
        ({"model": 2223}, 422, "model", "Input should be a valid string"),
        ({"model": "CPH2223", "marketName": "x" * 101}, 422, "marketName", "at most 100 characters"),
        ({"model": "CPH2223", "user_id": "root"}, 422, "user_id", "Extra inputs are not permitted"),
    ],
)
def test_rejections_name_field_and_rule_and_write_nothing(api, database, body, status, field, rule):
    resp = requests.post(api, json=body)
    assert resp.status_code == status
    assert resp.json()["field"] == field
    assert rule in resp.json()["rule"]
    assert rows(database) == []


def test_malformed_and_oversize_bodies(api, database):
    bad = requests.post(api, data=b'{"model": "CPH2223"', headers={"Content-Type": "application/json"})
    assert (bad.status_code, bad.json()["field"]) == (400, "body")
    assert "malformed JSON" in bad.json()["rule"]
    huge = {"model": "CPH2223", "marketName": "x" * 70_000}
    big = requests.post(api, json=huge)
    assert (big.status_code, big.json()["field"]) == (413, "body")
    for size, status in ((64 * 1024, 422), (64 * 1024 + 1, 413)):  # 64 KiB is read (and its name refused)
        body = b'{"model": "CPH2223", "marketName": "' + b"x" * (size - 38) + b'"}'
        assert len(body) == size
        edge = requests.post(api, data=body, headers={"Content-Type": "application/json"})
        assert edge.status_code == status, (size, edge.text[:200])

    def chunks():
        yield b'{"model": "CPH2223", "marketNameEn": "'
        for _ in range(20):
            yield b"y" * 4096
        yield b'"}'

    streamed = requests.post(api, data=chunks(), headers={"Content-Type": "application/json"})
    assert streamed.status_code == 413
    assert rows(database) == []


def test_idempotency_key(api, database):
    key = {"Idempotency-Key": "run1:call_1"}
    first = requests.post(api, json={"model": "CPH2223"}, headers=key)
    replay = requests.post(api, json={"model": "CPH2223"}, headers=key)
    assert (first.status_code, replay.status_code) == (201, 201)
    assert replay.json() == first.json()
    conflict = requests.post(api, json={"model": "CPH2411"}, headers=key)
    assert conflict.status_code == 409
    assert conflict.json()["field"] == "Idempotency-Key"
    assert rows(database) == [("CPH2223", "营销名未解密", None)]


def test_64_concurrent_identical_adds_leave_one_row(api, database):
    def add(_: int) -> int:
        return requests.post(api, json={"model": "CPH2223"}, timeout=30).status_code

    with ThreadPoolExecutor(64) as pool:
        statuses = list(pool.map(add, range(64)))
    assert sorted(set(statuses)) == [200, 201]
    assert statuses.count(201) == 1
    assert rows(database) == [("CPH2223", "营销名未解密", None)]


def test_openapi_docs(service):
    assert requests.get(f"{service.url}/docs").status_code == 200
    assert "/api/models" in requests.get(f"{service.url}/openapi.json").json()["paths"]


def test_racing_adds_and_deletes_of_one_code_never_fail(api, database):
    def add_or_delete(i: int) -> int:
        if i % 2:
            return requests.delete(f"{api}/CPH2223", timeout=30).status_code
        return requests.post(
            api, json={"model": "CPH2223"}, headers={"Idempotency-Key": f"k{i}"}, timeout=30
        ).status_code

    with ThreadPoolExecutor(16) as pool:
        statuses = list(pool.map(add_or_delete, range(400)))
    assert set(statuses) <= {200, 201, 404}
    assert len(rows(database)) <= 1
