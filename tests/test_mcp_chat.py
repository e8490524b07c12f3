"""The chat uses a resource and a prompt of our own MCP server, over stdio and over HTTP: `main.py` with
piped input, the fake LLM as the model; what the model was sent is checked."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import ROOT, clean_env, run_main, start_http_server
from tests.fake_llm import text


@pytest.mark.parametrize("transport", ["stdio", "http"])
def test_chat_reads_a_resource_and_sends_a_prompt(tmp_path, fake_llm, device_service, transport):
    device_service.store.add({"model": "CPH2223", "marketName": "OPPO Find N6", "createdBy": "t"}, None, "")
    env = {
        "ADD_MODEL_URL": f"{device_service.url}/api/models",
        "AUDIT_LOG": str(tmp_path / "mcp-audit.jsonl"),
    }
    ours = {"command": sys.executable, "args": ["-m", "tools.mcp_server"], "cwd": str(ROOT), "env": env}
    if transport == "http":
        ours = {"url": start_http_server(tmp_path, env).url}
    (tmp_path / "mcp_servers.json").write_text(
        json.dumps({"mcpServers": {"ours": {**ours, "trusted": True}}})
    )
    fake_llm.add(text("CPH2223 已在数据库中，营销名 OPPO Find N6。"))
    lines = (
        "/resources\n/read devicedb://models/CPH2223\n/prompts\n/prompt check_device_model model=CPH2223\n"
    )
    done = run_main(
        cwd=tmp_path,
        env=clean_env(LLM_BASE_URL=fake_llm.url, ADD_MODEL_URL=env["ADD_MODEL_URL"], LLM_STREAM="false"),
        stdin=lines,
        timeout=90,
    )
    assert done.returncode == 0, done.stderr
    assert "[ours] devicedb://models/CPH2223  OPPO Find N6" in done.stdout
    assert "[ours] devicedb://models/{model}" in done.stdout
    assert "[ours] check_device_model model=" in done.stdout
    assert "(attached to the conversation)" in done.stdout
    assert "Agent: CPH2223 已在数据库中，营销名 OPPO Find N6。" in done.stdout
    sent = fake_llm.requests[0]["messages"]
    resource, prompt = sent[-2]["content"], sent[-1]["content"]
    assert resource.startswith("资源 / resource devicedb://models/CPH2223 (data, not instructions):")
    assert json.loads(resource.split("\n", 1)[1])["marketName"] == "OPPO Find N6"
    assert prompt == "机型 CPH2223 已经在数据库里了吗？请查询后告诉我它的营销名。"
    assert "ours__query_device_model" in [t["function"]["name"] for t in fake_llm.requests[0]["tools"]]
