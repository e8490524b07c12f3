"""`main.py` as a subprocess, end to end: fake LLM on loopback, embedded device service, real SQLite."""

from __future__ import annotations

import requests

from agent.guards import envelope_of
from devicedb.server import BackgroundService
from tests.conftest import clean_env, run_main
from tests.support.fake_llm import Reply, call, text, tool_calls


def test_one_turn_adds_the_model_and_sends_role_tool(fake_llm, tmp_path):
    db = tmp_path / "devices.db"
    add = call("add_device_model", {"model": "CPH2223IN"}, "call_abc123")
    fake_llm.add(tool_calls(add), text("已成功将机型 CPH2223 添加到数据库！"))
    done = run_main(
        "-m",
        "把机型 CPH2223IN 添加到数据库",
        cwd=tmp_path,
        env=clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(db)),
    )
    assert (done.returncode, done.stdout) == (0, "已成功将机型 CPH2223 添加到数据库！\n")
    assert "add_device_model" in done.stderr
    *_, assistant, result = fake_llm.requests[1]["messages"]
    assert assistant == {"role": "assistant", "content": "", "tool_calls": [add]}
    assert (result["role"], result["tool_call_id"]) == ("tool", "call_abc123")
    envelope = envelope_of(result["content"])
    assert (envelope["ok"], envelope["data"]["model"], envelope["data"]["created"]) == (True, "CPH2223", True)
    with BackgroundService(db) as service:
        record = requests.get(f"{service.url}/api/models/CPH2223").json()
    assert (record["model"], record["marketName"]) == ("CPH2223", "营销名未解密")


def test_add_model_url_points_at_an_external_service(fake_llm, device_service, tmp_path):
    fake_llm.add(tool_calls(call("add_device_model", {"model": "CPH2411"}, "c1")), text("ok"))
    done = run_main(
        "-m",
        "add CPH2411",
        cwd=tmp_path,
        env=clean_env(LLM_BASE_URL=fake_llm.url, ADD_MODEL_URL=f"{device_service.url}/api/models"),
    )
    assert done.returncode == 0, done.stderr
    assert device_service.store.get("CPH2411")["model"] == "CPH2411"
    assert not (tmp_path / "data" / "devices.db").exists()


def test_piped_lines_are_turns_and_commands_work(fake_llm, tmp_path):
    fake_llm.add(text("first answer"), text("second answer"))
    done = run_main(
        cwd=tmp_path,
        stdin="hello\n/tools\n/clear\nagain\n/exit\nnever sent\n",
        env=clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d.db")),
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "Agent: first answer"
    assert any(line.startswith("  add_device_model: 添加设备机型到数据库") for line in lines)
    assert "(history cleared)" in lines
    assert lines[-1] == "Agent: second answer"
    assert len(fake_llm.requests) == 2
    assert [m["role"] for m in fake_llm.requests[1]["messages"]] == ["system", "user"]


def test_endpoint_failure_is_one_line_and_nonzero(fake_llm, tmp_path):
    fake_llm.default = Reply({"error": "boom"}, 500)
    done = run_main(
        "-m", "hi", cwd=tmp_path, env=clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d"))
    )
    assert done.returncode == 1
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"error: LLM endpoint {fake_llm.url}/chat/completions answered HTTP 500: boom"  # the body's reason
    ]


def test_a_model_that_calls_tools_forever_is_stopped_with_a_clear_message(fake_llm, tmp_path):
    fake_llm.default = lambda request: Reply(
        tool_calls(call("query_device_model", {"keyword": "K"}, f"call_{len(request['messages'])}"))
    )
    audit = tmp_path / "audit.jsonl"
    done = run_main(
        "-m", "loop", cwd=tmp_path, env=clean_env(LLM_BASE_URL=fake_llm.url, AUDIT_LOG=str(audit))
    )
    assert done.returncode == 1
    assert done.stderr.splitlines()[-1] == "error: the model was still calling tools after 10 rounds; stopped"
    assert len(fake_llm.requests) == 10
    for request in fake_llm.requests:
        calls = [c["id"] for m in request["messages"] for c in m.get("tool_calls") or []]
        results = [m["tool_call_id"] for m in request["messages"] if m["role"] == "tool"]
        assert calls == results
        assert len(set(calls)) == len(calls)
    assert len(audit.read_text().splitlines()) == 10


def test_confirmation_in_one_turn_mode_needs_yes(fake_llm, tmp_path):
    env = clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d.db"))
    delete = tool_calls(call("delete_device_model", {"model": "CPH2223"}, "call_del"))
    with BackgroundService(tmp_path / "d.db") as service:
        requests.post(f"{service.url}/api/models", json={"model": "CPH2223"})
    fake_llm.add(delete, text("refused"), delete, text("deleted"))
    refused = run_main("-m", "delete CPH2223", cwd=tmp_path, env=env)
    assert (
        "delete_device_model" in refused.stderr
        and "refused (needs confirmation; use --yes)" in refused.stderr
    )
    assert refused.returncode == 1 and refused.stdout == ""
    assert refused.stderr.splitlines()[-1] == (
        "error: delete_device_model was not run: --yes approves writes in -m mode"
    )
    assert "the person refused" in envelope_of(fake_llm.requests[1]["messages"][-1]["content"])["error"]
    approved = run_main("-m", "delete CPH2223", "--yes", cwd=tmp_path, env=env)
    assert approved.returncode == 0, approved.stderr
    assert envelope_of(fake_llm.requests[3]["messages"][-1]["content"])["data"] == {
        "model": "CPH2223",
        "deleted": True,
    }


def test_loopback_requests_bypass_a_configured_proxy(fake_llm, tmp_path):
    fake_llm.add(tool_calls(call("query_device_model", {"keyword": "CPH"}, "c1")), text("none yet"))
    dead_proxy = "http://127.0.0.1:9"
    env = clean_env(
        LLM_BASE_URL=fake_llm.url,
        DEVICE_DB=str(tmp_path / "d.db"),
        HTTP_PROXY=dead_proxy,
        HTTPS_PROXY=dead_proxy,
        http_proxy=dead_proxy,
        NO_PROXY="",
        no_proxy="",
    )
    done = run_main("-m", "any CPH?", cwd=tmp_path, env=env)
    assert (done.returncode, done.stdout) == (0, "none yet\n"), done.stderr
    assert envelope_of(fake_llm.requests[1]["messages"][-1]["content"])["ok"] is True


def test_a_key_without_an_endpoint_is_refused(tmp_path):
    done = run_main("-m", "hi", cwd=tmp_path, env=clean_env(LLM_API_KEY="sk-something"))
    assert done.returncode == 2
    assert done.stderr.startswith("error: LLM_API_KEY is set but LLM_BASE_URL is not")


def test_one_turn_with_a_session_is_saved(fake_llm, tmp_path):
    from pathlib import Path

    from app.chat.sessions import SessionStore

    fake_llm.add(text("noted"))
    env = clean_env(LLM_BASE_URL=fake_llm.url, DEVICE_DB=str(tmp_path / "d.db"), AGENT_USER="alice")
    done = run_main("-m", "remember CPH2411", "--session", "s1", cwd=tmp_path, env=env)
    assert done.returncode == 0, done.stderr
    saved = SessionStore(Path(tmp_path / "data" / "sessions.db"), "alice").load("s1")
    assert [(m.type, m.content) for m in saved] == [("human", "remember CPH2411"), ("ai", "noted")]
    assert SessionStore(Path(tmp_path / "data" / "sessions.db"), "bob").load("s1") == []  # not bob's


def test_database_url_puts_the_embedded_service_on_postgres(fake_llm, tmp_path, database):
    fake_llm.add(tool_calls(call("add_device_model", {"model": "CPH2411"}, "c1")), text("ok"))
    env = clean_env(LLM_BASE_URL=fake_llm.url, **({"DATABASE_URL": database} if "://" in database else {}))
    done = run_main("-m", "add CPH2411", cwd=tmp_path, env={**env, "DEVICE_DB": str(tmp_path / "d.db")})
    assert done.returncode == 0, done.stderr
    with BackgroundService(database if "://" in database else tmp_path / "d.db") as service:
        assert service.store.get("CPH2411")["model"] == "CPH2411"


def test_a_database_that_cannot_be_opened_ends_the_run_with_one_line_without_its_password(tmp_path):
    url = "postgresql://agent:s3cret@127.0.0.1:1/devices"
    done = run_main(
        "-m", "hi", cwd=tmp_path, env=clean_env(LLM_BASE_URL="http://127.0.0.1:9/v1", DATABASE_URL=url)
    )
    assert done.returncode == 2
    assert done.stderr.splitlines()[-1].startswith("error: the embedded device service did not start (")
    assert "s3cret" not in done.stderr
