"""Traces read back from a real trace store: `main.py` runs a turn against the scripted LLM and exports its
spans over OTLP to Arize Phoenix; the test reads the trace through Phoenix's REST API — span names, parent
links, the GenAI attributes, token counts — across the device service's HTTP and SQL, our MCP server in
another process, and a caller's `traceparent`. `TRACE_SCREENSHOT=path` keeps the picture of the trace
(`make trace-screenshot` refreshes the README's)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.conftest import ROOT, clean_env, run_main
from tests.fake_llm import Reply, call, text, tool_calls

ADD, QUERY = "add_device_model", "query_device_model"
SECRET = "sk-live1234567890abcdef"


def traced_main(tmp_path: Path, fake_llm, store, project: str, message: str, **env: str):
    settings = {
        "LLM_BASE_URL": fake_llm.url,
        "LLM_API_KEY": "k",
        "LLM_MODEL": "fake-model",
        "LLM_STREAM": "0",
    }
    return run_main("-m", message, cwd=tmp_path, env=clean_env(**settings, **store.env(project), **env))


def audit(tmp_path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]


class Trace:
    """The spans of one trace as Phoenix returns them, and who is whose parent."""

    def __init__(self, spans: list[dict[str, Any]]) -> None:
        self.spans = sorted(spans, key=lambda s: s["start_time"])
        self.by_id = {s["context"]["span_id"]: s for s in spans}

    def named(self, name: str) -> list[dict[str, Any]]:
        return [s for s in self.spans if s["name"] == name]

    def one(self, name: str) -> dict[str, Any]:
        [found] = self.named(name)
        return found

    def parent(self, span: dict[str, Any]) -> str | None:
        return self.by_id[span["parent_id"]]["name"] if span["parent_id"] in self.by_id else None

    def children(self, span: dict[str, Any]) -> list[str]:
        return [s["name"] for s in self.spans if s["parent_id"] == span["context"]["span_id"]]


def test_a_turn_with_a_tool_call_is_one_trace_in_the_store(tmp_path, fake_llm, trace_store):
    fake_llm.add(tool_calls(call(ADD, {"model": "CPH2223"}, "call_1")), text("Added CPH2223."))
    done = traced_main(tmp_path, fake_llm, trace_store, "turn", "Add model CPH2223 to the database")
    assert done.returncode == 0, done.stderr
    [line] = audit(tmp_path)
    trace = Trace(trace_store.spans("turn", line["trace_id"], at_least=13))

    turn = trace.one("invoke_agent tool-use-agent")
    first, second = trace.named("chat fake-model")
    tool = trace.one(f"execute_tool {ADD}")
    assert trace.parent(turn) is None
    assert [trace.parent(s) for s in (first, tool, second)] == ["invoke_agent tool-use-agent"] * 3
    assert trace.children(turn) == ["chat fake-model", f"execute_tool {ADD}", "chat fake-model"]
    assert turn["attributes"]["gen_ai.operation.name"] == "invoke_agent"
    assert turn["attributes"]["gen_ai.agent.name"] == "tool-use-agent"
    for chat, reason in ((first, "tool_calls"), (second, "stop")):
        attributes = chat["attributes"]
        assert attributes["gen_ai.operation.name"] == "chat"
        assert attributes["gen_ai.request.model"] == attributes["gen_ai.response.model"] == "fake-model"
        assert (attributes["gen_ai.usage.input_tokens"], attributes["gen_ai.usage.output_tokens"]) == (10, 5)
        assert attributes["gen_ai.response.finish_reasons"] == [reason]
        assert trace.children(chat) == ["POST"]  # the HTTP request to the model
    assert {k: v for k, v in tool["attributes"].items() if k.startswith(("gen_ai", "agent"))} == {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": ADD,
        "gen_ai.tool.call.id": "call_1",
        "gen_ai.tool.type": "function",
        "agent.tool.decision": "ran",
    }
    assert tool["status_code"] != "ERROR"
    assert (line["span_id"], line["decision"]) == (tool["context"]["span_id"], "ran")
    # turn -> tool -> HTTP -> the device service -> its SQL
    [request] = trace.children(tool)
    served = trace.one("POST /api/models")
    assert (request, trace.parent(served)) == ("POST", "POST")
    assert served["attributes"]["http.route"] == "/api/models"
    assert served["attributes"]["http.status_code"] == 201
    sql = [s for s in trace.spans if s["parent_id"] == served["context"]["span_id"]]
    assert {s["attributes"]["db.system"] for s in sql} == {"sqlite"}
    assert any(s["attributes"]["db.statement"].startswith("INSERT INTO models") for s in sql)
    # how Phoenix reads the GenAI conventions; no message content unless asked for
    assert [turn["span_kind"], first["span_kind"], tool["span_kind"]] == ["AGENT", "LLM", "TOOL"]
    assert not [k for s in trace.spans for k in s["attributes"] if k.endswith("messages")]
    picture(trace_store, line["trace_id"], tmp_path)


def picture(store, trace_id: str, tmp_path: Path) -> None:
    """The trace in Phoenix's own page, drawn by headless Chromium; kept where TRACE_SCREENSHOT says."""
    path = tmp_path / "trace.png"
    store.screenshot(trace_id, path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 30_000
    if os.environ.get("TRACE_SCREENSHOT"):
        shutil.copyfile(path, ROOT / os.environ["TRACE_SCREENSHOT"])


def test_errors_and_redacted_contents_on_their_spans(tmp_path, fake_llm, trace_store):
    """With OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true the messages are on the spans, secrets
    redacted as in the audit; an unknown tool and a failing model endpoint are errors on their spans."""
    fake_llm.add(
        tool_calls(call("no_such_tool", {"model": "CPH2223", "password": "hunter2"}, "call_1")),
        Reply({"error": {"message": "the model crashed"}}, status=500),
    )
    message = f"Add model CPH2223, my api_key={SECRET}"
    done = traced_main(
        tmp_path,
        fake_llm,
        trace_store,
        "errors",
        message,
        OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true",
    )
    assert done.returncode == 1 and "HTTP 500" in done.stderr
    [line] = audit(tmp_path)
    trace = Trace(trace_store.spans("errors", line["trace_id"], at_least=6))

    turn, tool = trace.one("invoke_agent tool-use-agent"), trace.one("execute_tool no_such_tool")
    first, second = trace.named("chat fake-model")
    assert [s["status_code"] for s in (turn, first, tool, second)] == ["ERROR", "UNSET", "ERROR", "ERROR"]
    assert turn["attributes"]["error.type"] == second["attributes"]["error.type"] == "LLMError"
    assert "HTTP 500" in second["status_message"]
    assert tool["attributes"]["agent.tool.decision"] == "unknown_tool"
    assert tool["status_message"].startswith("unknown tool 'no_such_tool'")
    assert any(event["name"] == "exception" for event in turn["events"])

    assert "hunter2" not in json.dumps(trace.spans) and SECRET not in json.dumps(trace.spans)
    said = json.loads(turn["attributes"]["gen_ai.input.messages"])
    assert said == [
        {"role": "user", "parts": [{"type": "text", "content": "Add model CPH2223, my api_key=[REDACTED]"}]}
    ]
    sent = json.loads(first["attributes"]["gen_ai.input.messages"])
    assert sent[-1] == said[0]
    assert json.loads(first["attributes"]["gen_ai.system_instructions"])[0]["type"] == "text"
    [answer] = json.loads(first["attributes"]["gen_ai.output.messages"])
    assert answer == {
        "role": "assistant",
        "parts": [
            {
                "type": "tool_call",
                "id": "call_1",
                "name": "no_such_tool",
                "arguments": {"model": "CPH2223", "password": "[REDACTED]"},
            }
        ],
        "finish_reason": "tool_calls",
    }
    assert json.loads(tool["attributes"]["gen_ai.tool.call.arguments"])["password"] == "[REDACTED]"
    assert json.loads(tool["attributes"]["gen_ai.tool.call.result"])["ok"] is False
    told = json.loads(second["attributes"]["gen_ai.input.messages"])[-1]
    assert told["role"] == "tool" and told["parts"][0]["id"] == "call_1"


def test_the_device_service_on_postgres_traces_its_sql(tmp_path, fake_llm, trace_store, postgres):
    fake_llm.add(tool_calls(call(ADD, {"model": "CPH2411"}, "call_1")), text("Added."))
    url = postgres.create_database("traced")
    try:
        done = traced_main(tmp_path, fake_llm, trace_store, "postgres", "Add model CPH2411", DATABASE_URL=url)
    finally:
        postgres.drop_database("traced")
    assert done.returncode == 0, done.stderr
    [line] = audit(tmp_path)
    trace = Trace(trace_store.spans("postgres", line["trace_id"], at_least=10))
    served = trace.one("POST /api/models")
    sql = [s for s in trace.spans if s["parent_id"] == served["context"]["span_id"]]
    assert {s["attributes"]["db.system"] for s in sql} == {"postgresql"}
    assert any(s["attributes"]["db.statement"].startswith("INSERT INTO models") for s in sql)
    assert trace.parent(trace.by_id[served["parent_id"]]) == f"execute_tool {ADD}"


def test_a_call_to_our_mcp_server_goes_on_in_its_process(tmp_path, fake_llm, trace_store):
    """The chat calls a tool of our MCP server (stdio): the mcp SDK's client span carries the trace in
    the request's `_meta`, and the server, tracing too, continues it down to its device service's SQL."""
    server_env = {**trace_store.env("mcp"), "DEVICE_DB": str(tmp_path / "server.db")}
    server_env["AUDIT_LOG"] = str(tmp_path / "server-audit.jsonl")
    ours = {
        "command": sys.executable,
        "args": ["-m", "tools.mcp_server"],
        "cwd": str(ROOT),
        "env": server_env,
    }
    (tmp_path / "mcp_servers.json").write_text(
        json.dumps({"mcpServers": {"ours": {**ours, "trusted": True}}})
    )
    fake_llm.add(tool_calls(call(f"ours__{QUERY}", {"keyword": "CPH2223"}, "call_1")), text("Not there."))
    done = traced_main(tmp_path, fake_llm, trace_store, "mcp", "Is CPH2223 in the database?")
    assert done.returncode == 0, done.stderr
    [line] = audit(tmp_path)
    [served_line] = [json.loads(x) for x in (tmp_path / "server-audit.jsonl").read_text().splitlines()]
    assert served_line["trace_id"] == line["trace_id"]
    trace = Trace(trace_store.spans("mcp", line["trace_id"], at_least=10))

    client = trace.one(f"MCP send tools/call {QUERY}")
    server = trace.one(f"tools/call {QUERY}")
    inner = trace.one(f"execute_tool {QUERY}")
    assert trace.parent(client) == f"execute_tool ours__{QUERY}"
    assert (trace.parent(server), trace.parent(inner)) == (client["name"], server["name"])
    assert served_line["span_id"] == inner["context"]["span_id"]
    assert trace.parent(trace.one("GET /api/models")) == "GET"
    assert any(s["attributes"].get("db.system") == "sqlite" for s in trace.spans)


def test_a_turn_continues_the_traceparent_it_is_given(tmp_path, fake_llm, trace_store):
    """What the served agent does with a request's W3C `traceparent` (tracing.continue_trace): the turn's
    span is the caller's span's child, in the caller's trace, and so is all below it."""
    trace_id, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    fake_llm.add(tool_calls(call(ADD, {"model": "CPH2411"}, "call_1")), text("Added CPH2411."))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "tests.traced_turn",
            fake_llm.url,
            f"00-{trace_id}-{caller}-01",
            str(tmp_path / "d.db"),
        ],
        cwd=ROOT,
        env=clean_env(**trace_store.env("served")),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "Added CPH2411.\n", done.stderr
    trace = Trace(trace_store.spans("served", trace_id, at_least=8))
    turn = trace.one("invoke_agent tool-use-agent")
    assert turn["parent_id"] == caller and trace.parent(turn) is None  # the caller's span is not ours to send
    assert {s["context"]["trace_id"] for s in trace.spans} == {trace_id}
    assert trace.parent(trace.one("POST /api/models")) == "POST"
    assert fake_llm.headers[0]["traceparent"].split("-")[1] == trace_id  # and the model's endpoint is told
