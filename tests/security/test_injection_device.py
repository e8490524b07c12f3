"""The device service as a channel: anyone who reaches its port used to write as anyone. Writes without its
service token are refused and write nothing; the token holder's writes go through, as the person it vouches
for (never the body's createdBy); reads stay open. `python -m devicedb` makes its token or takes
DEVICE_TOKEN and says where it is; the host starts its embedded service with a token of its own."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from contextlib import ExitStack

import pytest
import requests

from agent.types import ToolContext
from devicedb.server import BackgroundService
from plumbing.processes import stop
from plumbing.sockets import free_port
from tools.device_service import DeviceSettings, device_service_url
from tools.model_tool import AddModelTool

TOKEN = "t0ken-for-the-test"


def test_a_write_without_the_token_is_a_401_and_writes_nothing_and_with_it_runs_as_the_vouched(tmp_path):
    with BackgroundService(tmp_path / "devices.db", token=TOKEN) as service:
        api = f"{service.url}/api/models"
        forged = {"model": "CPH9999", "createdBy": "alice"}
        for headers in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN}):
            refused = requests.post(api, json=forged, headers=headers, timeout=10)
            assert refused.status_code == 401 and refused.headers["WWW-Authenticate"].startswith("Bearer")
            assert refused.json()["field"] == "Authorization"
        service.store.add({"model": "CPH2437", "marketName": "OPPO Find X6", "createdBy": "bob"}, None, "")
        assert requests.delete(f"{api}/CPH2437", timeout=10).status_code == 401
        assert service.store.get("CPH9999") is None and service.store.get("CPH2437") is not None
        assert requests.get(f"{api}/CPH2437", timeout=10).status_code == 200  # reads are open
        holder = {"Authorization": f"Bearer {TOKEN}", "X-On-Behalf-Of": "carol"}
        twin = requests.post(api, json={**forged, "model": "CPH2451"}, headers=holder, timeout=10)
        assert twin.status_code == 201 and service.store.get("CPH2451")["createdBy"] == "carol"
        spec = requests.get(f"{service.url}/openapi.json", timeout=10).json()
    assert spec["components"]["securitySchemes"]["serviceToken"] == {
        "type": "http",
        "scheme": "bearer",
        "description": "the service token (DEVICE_TOKEN); the person written for in X-On-Behalf-Of",
    }
    post = spec["paths"]["/api/models"]["post"]
    assert post["security"] == [{"serviceToken": []}] and "401" in post["responses"]
    assert "security" not in spec["paths"]["/api/models"]["get"]


def test_python_m_devicedb_makes_its_token_says_where_and_takes_device_token(tmp_path):
    env = {k: v for k, v in os.environ.items() if k not in ("DEVICE_TOKEN", "DATABASE_URL")}
    for given in (None, "from-the-environment"):
        port, db = free_port(), tmp_path / f"{given or 'made'}" / "devices.db"
        run_env = {**env, **({"DEVICE_TOKEN": given} if given else {})}
        command = [sys.executable, "-m", "devicedb", "--port", str(port), "--db", str(db)]
        process = subprocess.Popen(
            command, env=run_env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        try:
            said = process.stdout.readline() if process.stdout else ""
            token = given or db.with_name("devicedb.token").read_text().strip()
            assert ("$DEVICE_TOKEN" if given else str(db.with_name("devicedb.token"))) in said
            if not given:
                assert db.with_name("devicedb.token").stat().st_mode & 0o077 == 0  # the owner's only
            api = f"http://127.0.0.1:{port}/api/models"
            _wait_for(api)
            assert requests.post(api, json={"model": "CPH2223"}, timeout=10).status_code == 401
            holder = {"Authorization": f"Bearer {token}"}
            assert (
                requests.post(api, json={"model": "CPH2223"}, headers=holder, timeout=10).status_code == 201
            )
        finally:
            stop(process, grace=10)
            if process.stdout:
                process.stdout.close()


@pytest.mark.parametrize("database", ["postgres"], indirect=True)
def test_on_postgres_the_token_is_kept_in_the_data_folder_not_the_working_directory(tmp_path, database):
    """Started from a folder, the token lands in its data/ (ignored by git), never beside what `git add .`
    takes; it is the owner's only from the start, and it is the one the service asks for."""
    env = {k: v for k, v in os.environ.items() if k not in ("DEVICE_TOKEN", "DATABASE_URL")}
    port = free_port()
    command = [sys.executable, "-m", "devicedb", "--port", str(port), "--database-url", database]
    process = subprocess.Popen(
        command, cwd=tmp_path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    try:
        said = process.stdout.readline() if process.stdout else ""
        kept = tmp_path / "data" / "devicedb.token"
        assert str(kept.resolve()) in said
        assert list(tmp_path.iterdir()) == [tmp_path / "data"]  # no devicedb.token in the working directory
        assert kept.stat().st_mode & 0o777 == 0o600
        api = f"http://127.0.0.1:{port}/api/models"
        _wait_for(api)
        holder = {"Authorization": f"Bearer {kept.read_text().strip()}"}
        assert requests.post(api, json={"model": "CPH2223"}, headers=holder, timeout=10).status_code == 201
    finally:
        stop(process, grace=10)
        if process.stdout:
            process.stdout.close()


def test_the_host_starts_its_embedded_service_with_a_token_of_its_own(tmp_path):
    settings = DeviceSettings(device_db=tmp_path / "devices.db", add_model_url=None, database_url=None)
    with ExitStack() as stack:
        service = device_service_url(stack, settings)
        assert service.token and len(service.token) > 30
        refused = requests.post(service.url, json={"model": "CPH2223", "createdBy": "mallory"}, timeout=10)
        assert refused.status_code == 401
        AddModelTool(service).call(ToolContext("alice"), json.dumps({"model": "CPH2223", "createdBy": "bob"}))
        assert service.get("CPH2223")["createdBy"] == "alice"


def _wait_for(api: str) -> None:
    give_up_at = time.monotonic() + 30
    while True:
        try:
            requests.get(api, timeout=1)
            return
        except requests.ConnectionError:
            if time.monotonic() > give_up_at:
                raise
            time.sleep(0.05)


def test_credentials_in_add_model_url_reach_no_message_log_or_model(tmp_path, fake_llm):
    """ADD_MODEL_URL with a user and password, and a service that is not there: the error the model reads,
    the answer, the audit line and the model provider's requests carry no password; the twin, a URL
    without credentials, fails the same way and says where."""
    from tests.conftest import clean_env, run_main
    from tests.support.fake_llm import call, text, tool_calls

    for url in (f"http://admin:Pa55word@127.0.0.1:{free_port()}/api/models", "http://127.0.0.1:9/api/models"):
        fake_llm.requests.clear()
        fake_llm.add(tool_calls(call("add_device_model", {"model": "CPH2223"}, "c1")), text("It failed."))
        audit = tmp_path / f"audit-{len(url)}.jsonl"
        env = clean_env(LLM_BASE_URL=fake_llm.url, ADD_MODEL_URL=url, AUDIT_LOG=str(audit))
        done = run_main("-m", "add CPH2223", "--yes", cwd=tmp_path, env=env)
        seen = done.stdout + done.stderr + audit.read_text() + json.dumps(fake_llm.requests)
        assert "unreachable" in json.dumps(fake_llm.requests)  # the model was told what went wrong
        assert "Pa55word" not in seen and "admin@" not in seen and "admin:" not in seen


def test_an_upstream_error_body_reaches_a_client_only_as_a_short_cleaned_reason():
    from agent.audit import redact_text, upstream_reason

    body = json.dumps({"error": {"message": "no route to db-7.corp.internal:5432 (token=abc123)\nTraceback"}})
    assert upstream_reason(body) == "no route to <host> (token=[REDACTED]"
    assert upstream_reason("<html><h1>502</h1> gw-3.corp.internal</html>") == ""
    assert upstream_reason(json.dumps({"error": "model: no model 'CPH2223' in the database"})) == (
        "model: no model 'CPH2223' in the database"
    )
    assert redact_text("at https://bob:hunter2@api.example.com/v1 and //tok_9@h/x") == (
        "at https://api.example.com/v1 and //h/x"
    )
    body = json.dumps({"error": "no route to 10.0.3.7:5432 for user svc_llm (pool alice@db-7)"})
    assert upstream_reason(body) == "no route to <address> for user <user> (pool <user>@db-7)"


UPSTREAM_ERRORS = {  # what model endpoints, tools and MCP servers say -> what a client may read
    "Connection refused: 10.0.3.7:8000": "Connection refused: <address>",
    "upstream connect error to [fd00::12]:443": "upstream connect error to <address>",
    "dial tcp [::1]:8080: connect: connection refused": "dial tcp <address>: connect: connection refused",
    "no route to fe80::1%eth0 nor fe80::1: timeout": "no route to <address> nor <address>: timeout",
    "peer 2001:db8:0:0:0:0:0:7 reset; ::ffff:10.0.0.1 too": "peer <address> reset; <address> too",
    'password authentication failed for user "svc_llm"': 'password authentication failed for user "<user>"',
    'FATAL: role "bob" does not exist': 'FATAL: role "<user>" does not exist',
    'no pg_hba.conf entry for host "10.1.2.3", user "alice", database "llm"': (
        'no pg_hba.conf entry for host "<address>", user "<user>", database "llm"'
    ),
    "Access denied for user 'root'@'10.0.0.3'": "Access denied for user '<user>'@'<address>'",
    "Login failed for user alice.": "Login failed for user <user>.",
    "open /home/deploy/models/x.gguf: no such file": "open /home/<user>/models/x.gguf: no such file",
    "stat /Users/jane.doe/Library/x: permission denied": "stat /Users/<user>/Library/x: permission denied",
    r"No such file: 'C:\Users\John Smith\models\x.gguf'": r"No such file: 'C:\Users\<user>\models\x.gguf'",
    r"No such file: 'C:\\Users\\bob\\x.txt'": r"No such file: 'C:\\Users\\<user>\\x.txt'",
    "write to ops@example.com; pool alice@db-7:5432": "write to <user>@example.com; pool <user>@db-7:5432",
}
LEFT_AS_THEY_ARE = [
    "model v1.2.3",
    "retry at 12:30",
    "took 0.25 s",
    "at 2024-01-01T12:30:45.123Z",
    "version 256.1.1.1 and 1.2.3.4.5",
    "std::vector, add::bad, a[::2], 1:2:3, 00:1a:2b:3c:4d:5e",
    "left-pad@1.2.3, img@sha256:ab12, java.lang.Object@5e2de80c, @property",
    'unexpected role "tool" in messages; no default for user input',
    "messages[0]: role 'foo' is not one of ('system', 'user', 'assistant', 'tool')",
]


def test_a_client_reads_an_upstream_error_without_addresses_or_user_names():
    from agent.audit import redact_identity
    from agent.types import LLMError
    from app.serve.errors import describe, for_client

    for said, shown in UPSTREAM_ERRORS.items():
        assert redact_identity(said) == shown == redact_identity(shown)
        assert for_client(said) == shown
    for said in LEFT_AS_THEY_ARE:
        assert redact_identity(said) == said
        assert for_client(said) == said
    error = LLMError('LLM endpoint http://10.0.0.5:8000/v1 answered HTTP 500: for user "svc" at 10.0.0.9:53')
    assert describe(error) == (
        502,
        "server_error",
        "upstream_error",
        'LLM endpoint <endpoint> answered HTTP 500: for user "<user>" at <address>',
    )
