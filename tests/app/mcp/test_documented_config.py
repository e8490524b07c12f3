"""The MCP page's configuration works as written (docs/mcp.md, docs/mcp.en.md): each `mcp_servers.json` it
shows, written into a folder whose `.venv` is the project's (a chat started in the project's folder), connects
through our MCP client to every server it starts by command; and our server over HTTP, started as the page
starts it, says its URL in the one line the page shows, and the client connects there."""

from __future__ import annotations

import json
import re
import select
import subprocess
from pathlib import Path

import pytest

from agent.tools import ToolRegistry
from app.mcp.client import ServerConfig, load_servers
from app.mcp.toolset import McpToolset
from plumbing.processes import stop
from tests.conftest import ROOT, clean_env
from tests.project.test_readme import blocks

PAGES = [ROOT / "docs" / "mcp.md", ROOT / "docs" / "mcp.en.md"]
LOOPBACK = re.compile(r"^http://(127\.0\.0\.1|localhost)[:/]")


def configurations() -> list:
    """Each `mcpServers` block of the MCP page, in both languages, named by its page."""
    found = [
        (p.name, code) for p in PAGES for lang, code in blocks(p) if lang == "json" and "mcpServers" in code
    ]
    assert len(found) >= 4  # the chat's and serve's, in each language
    return [pytest.param(code, id=f"{page}-{i}") for i, (page, code) in enumerate(found)]


@pytest.fixture
def project_folder(tmp_path, monkeypatch) -> Path:
    """A folder standing for the project's: its `.venv` is the project's venv; the test runs in it."""
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("written", configurations())
def test_the_documented_servers_connect_through_our_client(written, project_folder):
    """Issue: the page wrote `"command": "python"`, which is no Python with these packages outside an
    activated venv: both servers failed to start."""
    entries = json.loads(written)["mcpServers"]
    # an example address on the internet is not reached from a test: its server is the page's illustration
    kept = {name: e for name, e in entries.items() if "url" not in e or LOOPBACK.match(e["url"])}
    path = project_folder / "mcp_servers.json"
    path.write_text(json.dumps({"mcpServers": kept}), encoding="utf-8")
    commands = {s.name for s in load_servers(path) if s.command}
    assert commands == {"time", "devices"}
    reports: list[str] = []
    with McpToolset(load_servers(path), ToolRegistry(), project_folder / "data", reports.append) as mcp:
        mcp.sync(lambda server, offered: True)
        connected = {name for name, c in mcp.connections.items() if c.revision}
        tools = set(mcp.tools)
    assert connected == commands, reports
    assert {"time__get_current_time", "devices__add_device_model"} <= tools, reports


def test_our_server_over_http_says_its_url_and_serves_there(project_folder):
    """Issue: `python -m app.mcp_server --http PORT` printed nothing, not even where it serves."""
    command, shown = http_example()
    port = int(re.search(r"--http (\d+)", command).group(1))  # type: ignore[union-attr]
    process = subprocess.Popen(
        [*command.replace(f"--http {port}", "--http 0").split()],
        cwd=project_folder,
        env=clean_env(DEVICE_DB=str(project_folder / "devices.db")),
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        ready, _, _ = select.select([process.stderr], [], [], 90)  # its start imports the SDK: seconds
        assert ready, "it said nothing for 90 s"
        said = process.stderr.readline()  # its first line, once it serves
        url = re.fullmatch(
            r"MCP server \(streamable HTTP\) at (http://127\.0\.0\.1:(\d+)/mcp) — Ctrl-C stops it\n", said
        )
        assert url is not None, said
        assert said == shown.replace(str(port), url.group(2))
        server = ServerConfig(name="devices", url=url.group(1), trusted=True, timeout=20)
        with McpToolset([server], ToolRegistry(), project_folder / "data", print) as mcp:
            mcp.sync(lambda server, offered: True)
            assert "devices__add_device_model" in mcp.tools
    finally:
        stop(process, grace=10)


def http_example() -> tuple[str, str]:
    """(the command, the line it says) of the page's `--http` example; the same in both languages."""
    found = set()
    for page in PAGES:
        listed = blocks(page)
        for i, (lang, code) in enumerate(listed):
            if lang == "bash" and "-m app.mcp_server --http" in code:
                assert listed[i + 1][0] == "text", page
                found.add((code.strip(), listed[i + 1][1]))
    assert len(found) == 1, found
    (example,) = found
    assert example[0].startswith(".venv/bin/python ")
    return example
