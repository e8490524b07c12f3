"""`python -m devicedb --workers 4` on SQLite and on Postgres: the rules hold across worker processes."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest
import requests

from devicedb.workers import ServiceProcess
from tests.support.devicedb_support import rows, stored_keys

TOKEN: dict[str, str] = {}  # the running service's Authorization header, which its writes need


@pytest.fixture
def api(database):
    with ServiceProcess(database, workers=4) as service:
        TOKEN.update(service.headers)
        yield f"{service.url}/api/models"


def test_64_racing_identical_adds_through_4_workers_leave_one_row(api, database):
    with ThreadPoolExecutor(64) as pool:
        statuses = list(
            pool.map(
                lambda _: (
                    requests.post(api, json={"model": "CPH2223"}, headers=TOKEN, timeout=60).status_code
                ),
                range(64),
            )
        )
    assert sorted(statuses) == [200] * 63 + [201]
    assert rows(database) == [("CPH2223", "营销名未解密", None)]


def test_racing_requests_with_one_key_through_4_workers_leave_one_row(api, database):
    def post(i: int) -> requests.Response:
        return requests.post(
            api, json={"model": "CPH2411"}, headers={"Idempotency-Key": "k", **TOKEN}, timeout=60
        )

    with ThreadPoolExecutor(64) as pool:
        answers = list(pool.map(post, range(64)))
    assert {a.status_code for a in answers} == {201}
    assert len({a.text for a in answers}) == 1
    assert rows(database) == [("CPH2411", "营销名未解密", None)]
    assert stored_keys(database) == [("k", "CPH2411")]
    assert requests.delete(f"{api}/CPH2411").status_code == 401  # no token: nothing deleted
    assert requests.delete(f"{api}/CPH2411", headers=TOKEN).status_code == 200
    assert (rows(database), stored_keys(database)) == ([], [])
