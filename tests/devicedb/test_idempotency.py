"""Idempotency keys on both databases: 24 h expiry, purge, what a DELETE does to them, racing requests."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from devicedb.server import BackgroundService
from devicedb.store import IDEMPOTENCY_TTL
from tests.support.devicedb_support import Clock, rows, stored_keys

HOUR = 3600.0


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def service(database, clock):
    with BackgroundService(database, clock=clock) as service:
        yield service


def post(api: str, key: str, **body: str) -> requests.Response:
    return requests.post(api, json=body, headers={"Idempotency-Key": key}, timeout=30)


def test_keys_live_24_hours_then_a_new_request_may_use_them(api, database, clock):
    assert IDEMPOTENCY_TTL == 24 * HOUR
    first = post(api, "k1", model="CPH2223")
    clock.now += 24 * HOUR - 1
    replay = post(api, "k1", model="CPH2223")
    assert (replay.status_code, replay.json()) == (201, first.json())
    assert post(api, "k1", model="CPH2411").status_code == 409
    clock.now += 2
    reused = post(api, "k1", model="CPH2411")
    assert (reused.status_code, reused.json()["model"]) == (201, "CPH2411")
    assert post(api, "k1", model="CPH2223").status_code == 409
    clock.now += 24 * HOUR + 1
    again = post(api, "k1", model="CPH2223")
    assert (again.status_code, again.json()["created"]) == (200, False)
    assert [r[0] for r in rows(database)] == ["CPH2223", "CPH2411"]
    assert stored_keys(database) == [("k1", "CPH2223")]


def test_expired_keys_are_purged_so_the_table_stays_bounded(api, service, database, clock):
    for i in range(20):
        post(api, f"old{i}", model=f"OLD{i:03d}")
    clock.now += 24 * HOUR + 61
    post(api, "new", model="NEW001")
    assert stored_keys(database) == [("new", "NEW001")]
    assert len(rows(database)) == 21
    clock.now += 24 * HOUR + 1
    assert service.store.purge_expired_keys() == 1
    assert stored_keys(database) == []


def test_expired_keys_are_purged_at_most_once_a_minute(api, database, clock):
    start = clock.now
    post(api, "a", model="AAA001")  # the first keyed request purges, and the next purge is a minute on
    clock.now = start + 30
    post(api, "b", model="BBB001")
    clock.now = start + 24 * HOUR + 1  # "a" has expired, a purge is due: it goes
    post(api, "c", model="CCC001")
    assert [k for k, _ in stored_keys(database)] == ["b", "c"]
    clock.now = start + 24 * HOUR + 40  # "b" has expired too, but the last purge was 39 s ago
    post(api, "d", model="DDD001")
    assert [k for k, _ in stored_keys(database)] == ["b", "c", "d"]
    clock.now = start + 24 * HOUR + 62  # a minute after the last purge: "b" goes
    post(api, "e", model="EEE001")
    assert [k for k, _ in stored_keys(database)] == ["c", "d", "e"]


def test_delete_forgets_the_keys_that_answered_for_the_model(api, database):
    created = post(api, "k1", model="CPH2223IN")
    existed = post(api, "k2", model="CPH2223")
    post(api, "k3", model="CPH2411")
    assert (created.status_code, existed.status_code) == (201, 200)
    assert requests.delete(f"{api}/CPH2223").json() == {"model": "CPH2223", "deleted": True}
    assert stored_keys(database) == [("k3", "CPH2411")]
    retry = post(api, "k1", model="CPH2223IN")
    assert (retry.status_code, retry.json()["created"]) == (201, True)
    assert requests.get(f"{api}/CPH2223").status_code == 200
    assert stored_keys(database) == [("k1", "CPH2223"), ("k3", "CPH2411")]


def test_racing_requests_with_one_key_get_one_answer_and_leave_one_row(api, database):
    with ThreadPoolExecutor(32) as pool:
        answers = list(pool.map(lambda _: post(api, "race", model="CPH2223"), range(32)))
    assert {a.status_code for a in answers} == {201}
    assert len({a.text for a in answers}) == 1
    assert rows(database) == [("CPH2223", "营销名未解密", None)]
    assert stored_keys(database) == [("race", "CPH2223")]


def test_racing_requests_with_one_key_and_different_bodies_conflict(api, database):
    with ThreadPoolExecutor(32) as pool:
        answers = list(pool.map(lambda i: post(api, "race", model=f"CPH{i % 2}000"), range(32)))
    statuses = [a.status_code for a in answers]
    assert sorted(set(statuses)) == [201, 409]
    assert len(rows(database)) == 1
    winner = rows(database)[0][0]
    assert all(a.json()["model"] == winner for a in answers if a.status_code == 201)
