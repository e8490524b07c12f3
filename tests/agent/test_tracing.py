"""Tracing off costs nothing: without OTEL_EXPORTER_OTLP_ENDPOINT our code imports no module of
OpenTelemetry, the audit lines carry no trace, and an install without the [tracing] extra runs the same;
with the variable set but the extra not installed, one line says what to do. (Traces themselves are read back
from a real store in test_trace_store.py.)"""

from __future__ import annotations

import json
import subprocess
import sys

from tests.conftest import ROOT, clean_env, run_main
from tests.support.fake_llm import call, text, tool_calls

# What a run imports anyway: BaseChatModel, and FastAPI for the embedded device service
FLOOR = "langchain_core.language_models.chat_models, fastapi"


def without_the_extra(run: str) -> list[str]:
    """`python -c` running `run` as where the [tracing] extra is not installed: OpenTelemetry's API is there
    (FastAPI and the mcp SDK need it), its SDK, exporters and instrumentations are not."""
    missing = "; ".join(
        f"sys.modules['opentelemetry.{p}'] = None" for p in ("sdk", "exporter", "instrumentation")
    )
    return [sys.executable, "-c", f"import runpy, sys; {missing}; sys.argv = sys.argv[1:]; {run}"]


def imported(command: list, cwd, env: dict[str, str]) -> tuple[subprocess.CompletedProcess, set[str]]:
    """What `command` printed, and every module it imported (python -X importtime)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done, {
        line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines() if "import time:" in line
    }


def test_without_an_endpoint_our_code_imports_nothing_of_opentelemetry(tmp_path, fake_llm):
    """Others import some: FastAPI its API (for its own telemetry), langsmith under langchain-core the SDK's
    TracerProvider whenever the SDK is installed (the [tracing] extra). Our code adds no module to those."""
    fake_llm.add(tool_calls(call("add_device_model", {"model": "CPH2223"}, "call_1")), text("Added."))
    env = clean_env(LLM_BASE_URL=fake_llm.url, LLM_MODEL="fake-model", LLM_STREAM="0")
    env = {k: v for k, v in env.items() if not k.startswith("OTEL_")}
    done, modules = imported([ROOT / "main.py", "-m", "Add model CPH2223"], tmp_path, env)
    assert done.returncode == 0 and done.stdout == "Added.\n", done.stderr
    _, floor = imported(["-c", f"import {FLOOR}"], tmp_path, env)
    assert {"agent.tracing", "plumbing.telemetry"} <= modules
    assert {m for m in modules if m.startswith("opentelemetry")} <= floor
    assert not [
        m for m in modules if m.startswith(("opentelemetry.exporter", "opentelemetry.instrumentation"))
    ]
    [line] = [json.loads(x) for x in (tmp_path / "data" / "audit.jsonl").read_text().splitlines()]
    assert line["decision"] == "ran" and "trace_id" not in line and "span_id" not in line
    assert "traceparent" not in {k.lower() for k in fake_llm.headers[0]}


def test_without_the_extra_all_runs_the_same(tmp_path, fake_llm):
    fake_llm.add(tool_calls(call("add_device_model", {"model": "CPH2223"}, "call_1")), text("Added."))
    env = clean_env(LLM_BASE_URL=fake_llm.url, LLM_MODEL="fake-model", LLM_STREAM="0")
    env = {k: v for k, v in env.items() if not k.startswith("OTEL_")}
    done = subprocess.run(
        [
            *without_the_extra("runpy.run_path(sys.argv[0], run_name='__main__')"),
            ROOT / "main.py",
            "-m",
            "Add CPH2223",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "Added.\n", done.stderr
    assert "ok" in (tmp_path / "data" / "audit.jsonl").read_text()


def test_an_endpoint_without_opentelemetry_installed_is_one_line(tmp_path, fake_llm):
    env = clean_env(LLM_BASE_URL=fake_llm.url, OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    done = subprocess.run(
        [
            *without_the_extra("runpy.run_path(sys.argv[0], run_name='__main__')"),
            ROOT / "main.py",
            "-m",
            "hi",
        ],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "error: OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK is not installed: install the "
        "[tracing] extra (pip install -e '.[tracing]'), or unset the variable\n"
    )
    assert fake_llm.requests == []


def test_the_device_service_alone_says_the_same(tmp_path):
    env = clean_env(OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9")
    done = subprocess.run(
        [
            *without_the_extra("runpy.run_module('devicedb', run_name='__main__')"),
            "devicedb",
            "--db",
            tmp_path / "d.db",
        ],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert done.stderr.startswith(
        "python -m devicedb: OTEL_EXPORTER_OTLP_ENDPOINT is set, but the OpenTelemetry SDK"
    )
    assert not (tmp_path / "d.db").exists()


def test_sdk_disabled_means_off(tmp_path, fake_llm):
    """OTEL_SDK_DISABLED=true, the standard switch, turns tracing off even with an endpoint set."""
    fake_llm.add(text("Hello."))
    env = clean_env(
        LLM_BASE_URL=fake_llm.url, OTEL_EXPORTER_OTLP_ENDPOINT="http://127.0.0.1:9", OTEL_SDK_DISABLED="true"
    )
    done = run_main("-m", "hello", env=env, cwd=tmp_path)
    assert done.returncode == 0 and done.stdout == "Hello.\n", done.stderr
    assert "traceparent" not in {k.lower() for k in fake_llm.headers[0]}
