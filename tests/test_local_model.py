"""The embedded model: a real llama.cpp server with SmolLM2-135M on loopback (the suite's slow part)."""

from __future__ import annotations

import sqlite3
from concurrent.futures import ThreadPoolExecutor

import requests

from agent.llm.local_model import MODEL_NAME, LocalModelServer, find_model_file
from tests.conftest import clean_env, run_main


def test_model_file_ships_in_a_package():
    path = find_model_file()
    assert path.name == "SmolLM2-135M-Instruct.Q4_1.gguf"
    assert path.stat().st_size > 50_000_000


def test_two_servers_at_once_do_not_collide():
    servers = [LocalModelServer(), LocalModelServer()]
    with ThreadPoolExecutor(2) as pool:
        list(pool.map(LocalModelServer.start, servers))
    try:
        assert servers[0].base_url != servers[1].base_url
        for server in servers:
            models = requests.get(f"{server.base_url}/models", timeout=5).json()
            assert models["data"][0]["id"] == MODEL_NAME
    finally:
        for server in servers:
            server.stop()
    assert all(s.process is not None and s.process.poll() is not None for s in servers)


def test_no_key_no_endpoint_runs_the_embedded_model_end_to_end(tmp_path):
    done = run_main(
        "-m", "Please add device model CPH2411 to the database", cwd=tmp_path, env=clean_env(), timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert "135M demo model" in done.stderr
    assert "add_device_model" in done.stderr
    with sqlite3.connect(tmp_path / "data" / "devices.db") as conn:
        assert conn.execute("SELECT model FROM models WHERE model = 'CPH2411'").fetchall() == [("CPH2411",)]
