"""Traces read back from a real trace store: `main.py` runs a turn against the scripted LLM and exports its
spans over OTLP to Arize Phoenix; the test reads the trace through Phoenix's REST API — span names, parent
links, the GenAI attributes, token counts — across the device service's HTTP and SQL, our MCP server in
another process, and a caller's `traceparent`. `TRACE_SCREENSHOT=path` keeps the picture of the trace
(`make trace-screenshot` refreshes the docs')."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import requests

from agent.tracing import CONTENT
from app.eval.spec import GOLDEN
from benchmarks import eval_control
from tests.conftest import ROOT, clean_env, run_main
from tests.support.fake_llm import Reply, call, text, tool_calls
from tests.support.scorecard_runs import scorecard
from tests.support.serve_support import ServedAgent

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
    trace = Trace(
        trace_store.spans("turn", line["trace_id"], at_least=13, having=("invoke_agent tool-use-agent",))
    )

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
        "agent.tool.registered": True,
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
    trace = Trace(
        trace_store.spans("errors", line["trace_id"], at_least=6, having=("invoke_agent tool-use-agent",))
    )

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
    trace = Trace(trace_store.spans("postgres", line["trace_id"], at_least=10, having=("POST /api/models",)))
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
        "args": ["-m", "app.mcp_server"],
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
    trace = Trace(trace_store.spans("mcp", line["trace_id"], at_least=10, having=(f"tools/call {QUERY}",)))

    client = trace.one(f"MCP send tools/call {QUERY}")
    server = trace.one(f"tools/call {QUERY}")
    inner = trace.one(f"execute_tool {QUERY}")
    assert trace.parent(client) == f"execute_tool ours__{QUERY}"
    assert (trace.parent(server), trace.parent(inner)) == (client["name"], server["name"])
    assert served_line["span_id"] == inner["context"]["span_id"]
    assert trace.parent(trace.one("GET /api/models")) == "GET"
    assert any(s["attributes"].get("db.system") == "sqlite" for s in trace.spans)


def test_the_served_agent_continues_the_traceparent_of_a_request(tmp_path, fake_llm, trace_store):
    """`main.py serve` answers a request carrying a W3C `traceparent`: its span is the caller's span's
    child, in the caller's trace, and the turn, the model's request and the device service's are below."""
    trace_id, caller = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
    fake_llm.add(tool_calls(call(ADD, {"model": "CPH2411"}, "call_1")), text("Added CPH2411."))
    env = {"LLM_API_KEY": "k", "LLM_MODEL": "fake-model", **trace_store.env("served")}
    with ServedAgent(fake_llm.url, tmp_path, str(tmp_path / "agent.db"), **env) as agent:
        key = agent.key("alice")
        answer = requests.post(
            f"{agent.url}/v1/chat/completions",
            json={"model": "tool-use-agent", "messages": [{"role": "user", "content": "Add model CPH2411"}]},
            headers={
                "Authorization": f"Bearer {key}",
                "traceparent": f"00-{trace_id}-{caller}-01",
            },
            timeout=60,
        )
        assert answer.json()["choices"][0]["message"]["content"] == "Added CPH2411.", answer.text
    # the spans come batch by batch (the request's ends last): wait for every one read below
    names = (
        "POST /v1/chat/completions",
        "invoke_agent tool-use-agent",
        f"execute_tool {ADD}",
        "POST /api/models",
    )
    trace = Trace(trace_store.spans("served", trace_id, at_least=8, having=names))
    request = trace.one("POST /v1/chat/completions")
    turn = trace.one("invoke_agent tool-use-agent")
    assert request["parent_id"] == caller and trace.parent(request) is None  # the caller's is not ours
    assert trace.parent(turn) == "POST /v1/chat/completions"
    assert {s["context"]["trace_id"] for s in trace.spans} == {trace_id}
    assert trace.parent(trace.one(f"execute_tool {ADD}")) == "invoke_agent tool-use-agent"
    assert trace.parent(trace.one("POST /api/models")) == "POST"
    assert fake_llm.headers[0]["traceparent"].split("-")[1] == trace_id  # and the model's endpoint is told


def test_the_scorecards_verdicts_are_events_beside_the_turns_they_score(tmp_path, trace_store):
    contents_asked = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}
    with eval_control.serving() as ideal:
        args = ("--part", GOLDEN, "--limit", "2")
        done, card = scorecard(ideal, tmp_path, *args, **trace_store.env("eval"), **contents_asked)
    assert done.returncode == 0, done.stderr[-2000:]
    assert card["parts"][GOLDEN]["passed"] == 2
    having = ("evaluate golden:1", "evaluate golden:2")
    spans = trace_store.spans("eval", None, at_least=2, having=having)
    turns = {s["context"]["span_id"]: s for s in spans if s["name"] == "invoke_agent tool-use-agent"}
    for name in having:
        [scored] = [s for s in spans if s["name"] == name]
        turn = turns[scored["parent_id"]]  # parented to the turn it scores, in the turn's trace
        assert turn["context"]["trace_id"] == scored["context"]["trace_id"]
        events = {e["attributes"]["gen_ai.evaluation.name"]: e for e in scored["events"]}
        assert {e["name"] for e in scored["events"]} == {"gen_ai.evaluation.result"}
        assert {"success", "rows", "answer", "grounded", "trajectory exact"} <= set(events)
        success = events["success"]["attributes"]
        assert (success["gen_ai.evaluation.score.value"], success["gen_ai.evaluation.score.label"]) == (
            1.0,
            "pass",
        )
    # the words the evaluators read stay in the scorecard's process, even when contents are asked for
    assert not [k for s in spans for k in s["attributes"] if k in CONTENT]
    assert not [s["status_message"] for s in spans if s["status_message"]]
