"""The served process's log (app/serve/logs.py): a JSON-RPC request whose id, method and params carry terminal
escapes, a newline with a forged line after it and a right-to-left override leaves, in the log of a real
served agent (one worker, the parent's own; and two, in processes of their own), no raw control character,
no forged line, and no line over the bound; and a third-party logger's record, through the root handler,
is one escaped line, cut with a visible mark."""

from __future__ import annotations

import io
import logging
import re
import time

import pytest
import requests

from app.serve.logs import LIMIT, one_line
from tests.support.fake_llm import FakeLLM
from tests.support.serve_support import ServedAgent

FORGED = 'INFO:     127.0.0.1:1 - "GET /forged HTTP/1.1" 200 OK'
HOSTILE = f"\x1b[2J7\n{FORGED}\u202e\x9b31m"
# what may not be in a log: any C0 control but the newline that ends a record, DEL, C1, bidi controls
UNSEEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def hostile_requests() -> list[dict]:
    message = {"messageId": HOSTILE, "role": "ROLE_USER", "parts": [{"text": HOSTILE}]}
    return [
        {"jsonrpc": "2.0", "id": HOSTILE, "method": "SendMessage", "params": {"message": 5}},
        {"jsonrpc": "2.0", "id": HOSTILE, "method": f"Get{HOSTILE}Task", "params": {"id": HOSTILE}},
        {"jsonrpc": "2.0", "id": HOSTILE, "method": "GetTask", "params": {"id": HOSTILE}},
        {"jsonrpc": "2.0", "id": HOSTILE, "method": "SendMessage", "params": {"message": message}},
        {"jsonrpc": "2.0", "id": HOSTILE * 500, "method": "SendMessage", "params": {"message": 5}},
    ]


def logged(agent: ServedAgent, errors: int, timeout: float = 30) -> str:
    """The whole log, once it holds `errors` of the A2A SDK's request errors."""
    give_up_at = time.monotonic() + timeout
    while (log := agent.log(tail=None)).count("Request Error") < errors and time.monotonic() < give_up_at:
        time.sleep(0.1)
    return log


@pytest.mark.parametrize("workers", [1, 2])
def test_a_hostile_json_rpc_request_leaves_no_control_character_and_no_forged_line(tmp_path, workers):
    database = str(tmp_path / "agent.db")
    with FakeLLM() as llm, ServedAgent(llm.url, tmp_path, database, workers=workers) as agent:
        headers = {"Authorization": f"Bearer {agent.key('carol')}", "A2A-Version": "1.0"}
        for body in hostile_requests():
            answer = requests.post(f"{agent.url}/a2a", json=body, headers=headers, timeout=30)
            assert answer.status_code == 200, answer.text
        log = logged(agent, errors=3)
    lines = log.splitlines()
    assert log.count("Request Error") >= 3, log[-3000:]  # the SDK did log the ids
    assert UNSEEN.findall(log) == []
    assert [line for line in lines if line.startswith(FORGED) or line.startswith("GET /forged")] == []
    assert "\\x1b[2J7\\nINFO:     127.0.0.1:1" in log and "\\u202e\\x9b31m" in log  # visible, as escapes
    assert max(len(line) for line in lines) <= LIMIT
    assert "characters cut]…" in log  # the id of 30,000 characters, cut with a mark
    assert '"POST /a2a HTTP/1.1" 200' in log  # uvicorn's access log is still there, through its own handler


def test_a_third_party_loggers_record_through_the_root_handler_is_one_escaped_line_cut_to_the_bound():
    out = io.StringIO()
    handler = logging.StreamHandler(out)
    handler.setFormatter(one_line("logging.Formatter", fmt="%(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    try:
        third_party = logging.getLogger("a2a.server.routes.jsonrpc_dispatcher")
        try:
            raise ValueError(f"cannot parse {HOSTILE}")
        except ValueError:
            third_party.exception("Request Error (ID: %s)", HOSTILE)
        third_party.error("Request Error (ID: %s)", HOSTILE * 500)
    finally:
        root.removeHandler(handler)
    first, second = out.getvalue().splitlines()
    assert UNSEEN.findall(out.getvalue()) == []
    said = "ERROR a2a.server.routes.jsonrpc_dispatcher: Request Error (ID: \\x1b[2J7\\nINFO:"
    assert first.startswith(said)
    assert "\\nTraceback (most recent call last):\\n" in first  # the traceback, on the record's line
    assert first.endswith("ValueError: cannot parse \\x1b[2J7\\n" + FORGED + "\\u202e\\x9b31m")
    assert len(second) == LIMIT and re.search(r"…\[\d+ characters cut\]…", second)
    assert second.endswith("\\u202e\\x9b31m)")  # its head and its tail kept
