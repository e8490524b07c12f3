"""DeviceService, the device service's one HTTP client, against the running service: many records in one
request (`lookup`), counted through a recording proxy."""

from __future__ import annotations

from devicedb.schema import PAGE_MOST
from tests.support.recording_proxy import RecordingProxy, codes_asked
from tools.device_service import DeviceService


def test_a_lookup_asks_for_up_to_a_hundred_codes_a_request(device_service):
    stored = [f"CPH{n}" for n in range(2000, 2150)]
    for code in stored:
        device_service.store.add({"model": code, "marketName": "x", "createdBy": "t"}, None, "")
    wanted = [*stored, "NOPE1", "NOPE2", stored[0]]  # two not stored, one named twice
    with RecordingProxy(device_service.url) as proxy:
        found = DeviceService(f"{proxy.url}/api/models").lookup(wanted)
    assert sorted(found) == stored
    assert found["CPH2000"] == device_service.store.get("CPH2000")
    asked = [codes_asked(path) for _, _, path in proxy.seen]
    assert [len(codes) for codes in asked] == [PAGE_MOST, 152 - PAGE_MOST]
    assert sorted(code for codes in asked for code in codes) == sorted({*wanted})
    assert DeviceService(f"{device_service.url}/api/models").lookup([]) == {}
