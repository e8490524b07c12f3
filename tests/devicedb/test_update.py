"""PATCH /api/models/{model} on both databases: it sets market names, validates, is idempotent with an
Idempotency-Key as the add is, and answers 404 for a code nobody stored."""

from __future__ import annotations

import requests

from devicedb.schema import DEFAULT_MARKET_NAME
from tests.support.devicedb_support import rows, stored_keys


def patch(api: str, code: str, key: str | None = None, **body: str | None) -> requests.Response:
    headers = {"Idempotency-Key": key} if key else {}
    return requests.patch(f"{api}/{code}", json=body, headers=headers, timeout=30)


def test_it_sets_the_names_given_and_keeps_the_others(api, database):
    requests.post(api, json={"model": "CPH2451", "marketName": "OPPO Reno10"}, timeout=30)
    changed = patch(api, "cph-2451", marketNameEn="OPPO Reno10 5G")
    assert changed.status_code == 200
    assert (changed.json()["model"], changed.json()["marketNameEn"]) == ("CPH2451", "OPPO Reno10 5G")
    assert rows(database) == [("CPH2451", "OPPO Reno10", "OPPO Reno10 5G")]
    assert patch(api, "CPH2451", marketName="欧珀 Reno10").status_code == 200
    assert rows(database) == [("CPH2451", "欧珀 Reno10", "OPPO Reno10 5G")]
    assert patch(api, "CPH2451", marketName=None, marketNameEn="").status_code == 200
    assert rows(database) == [("CPH2451", DEFAULT_MARKET_NAME, None)]
    assert requests.get(f"{api}/CPH2451", timeout=30).json()["marketName"] == DEFAULT_MARKET_NAME


def test_an_unknown_code_is_404_and_nothing_is_written(api, database):
    missing = patch(api, "CPH9999", key="k1", marketName="x")
    assert (missing.status_code, missing.json()["field"]) == (404, "model")
    assert "CPH9999" in missing.json()["rule"]
    assert (rows(database), stored_keys(database)) == ([], [])
    assert patch(api, "no such code!", marketName="x").status_code == 404


def test_bad_bodies_are_refused_with_the_field_named(api, database):
    requests.post(api, json={"model": "CPH2451"}, timeout=30)
    for body, field in [
        ({}, "body"),
        ({"model": "CPH2452"}, "model"),
        ({"marketName": "a\x00b"}, "marketName"),
        ({"marketNameEn": "x" * 101}, "marketNameEn"),
    ]:
        refused = requests.patch(f"{api}/CPH2451", json=body, timeout=30)
        assert (refused.status_code, refused.json()["field"]) == (422, field), body
    assert rows(database) == [("CPH2451", DEFAULT_MARKET_NAME, None)]


def test_a_key_replays_its_change_and_refuses_another_body(api, database):
    requests.post(api, json={"model": "CPH2451"}, timeout=30)
    first = patch(api, "CPH2451", key="k1", marketNameEn="OPPO Reno10 5G")
    patch(api, "CPH2451", marketNameEn="someone else's name")
    replay = patch(api, "CPH2451", key="k1", marketNameEn="OPPO Reno10 5G")
    assert (replay.status_code, replay.json()) == (200, first.json())
    assert rows(database) == [("CPH2451", DEFAULT_MARKET_NAME, "someone else's name")]  # not done twice
    conflict = patch(api, "CPH2451", key="k1", marketNameEn="another")
    assert (conflict.status_code, conflict.json()["field"]) == (409, "Idempotency-Key")
    used_by_an_add = requests.post(api, json={"model": "CPH2451"}, headers={"Idempotency-Key": "k1"})
    assert used_by_an_add.status_code == 409


def test_the_route_is_declared_and_linked_from_an_add(service):
    spec = requests.get(f"{service.url}/openapi.json", timeout=30).json()
    operation = spec["paths"]["/api/models/{model}"]["patch"]
    assert set(operation["responses"]) == {"200", "400", "404", "409", "413", "422"}
    add_links = spec["paths"]["/api/models"]["post"]["responses"]["201"]["links"]
    assert "updateModel" in {link["operationId"] for link in add_links.values()}
