"""What the scorecard exports and writes, against a hostile model (the control, plus a made-up tool whose name
and call id carry the person's words, terminal escapes and a bidi override, and escapes in every answer):
`python main.py eval` run as a person runs it, its spans caught by OpenTelemetry's InMemorySpanExporter
where they would go over OTLP. The exported attributes are only the allowlisted keys, a made-up tool's name
is a placeholder, no prompt's word is in them (the device service's own request spans, with their URL's
query, are not made at all); and neither the Markdown nor the JSON holds a raw control or bidi character."""

from __future__ import annotations

import json
import re
from pathlib import Path

from app.eval.spec import GOLDEN, part
from tests.support.scorecard_runs import hostile_model, scorecard
from tools import default_tools

REGISTERED = {tool.name for tool in default_tools("http://127.0.0.1:9/api/models")}
UNREGISTERED = "unregistered_tool"
ALLOWED = {  # written out here, not read from the code under test
    "gen_ai.operation.name",
    "gen_ai.agent.name",
    "gen_ai.request.model",
    "gen_ai.tool.name",
    "gen_ai.tool.type",
    "agent.tool.registered",
    "agent.tool.decision",
    "error.type",
    "gen_ai.usage.input_tokens",
    "gen_ai.usage.output_tokens",
    "http.route",
    "http.request.method",
    "http.response.status_code",
    "gen_ai.evaluation.name",
    "gen_ai.evaluation.score.value",
    "gen_ai.evaluation.score.label",
    "exception.type",
}
# any C0 control but a newline, DEL, C1, the line separators and the bidi controls
UNSEEN = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")
HELD_OUT = "remarks held-out"  # its 13th case asks about CPH2437 (the query's `?q=`), its 14th to multiply


def prompt_words(name: str, limit: int) -> set[str]:
    """Each prompt of the part's first `limit` cases, and the model codes in it (CPH2437, SM-G9910)."""
    texts = [spec.text for spec in part(name)[:limit]]
    return {*texts, *(code for text in texts for code in re.findall(r"[A-Za-z][\w-]*\d[\w-]{2,}", text))}


def test_the_export_is_an_allowlist_and_what_the_scorecard_writes_is_safe(tmp_path: Path) -> None:
    with hostile_model() as url:
        done, card = scorecard(url, tmp_path, "--part", HELD_OUT, GOLDEN, "--limit", "14", spans=True)
    assert done.returncode in (0, 1), done.stderr[-3000:]
    spans = json.loads((tmp_path / "spans.json").read_text(encoding="utf-8"))
    exported = json.dumps(spans, ensure_ascii=False)
    attributes = [span["attributes"] for span in spans]
    events = [event["attributes"] for span in spans for event in span["events"]]
    tools = {found["gen_ai.tool.name"] for found in attributes if "gen_ai.tool.name" in found}
    assert {UNREGISTERED, "query_device_model", "calculator"} <= tools <= REGISTERED | {UNREGISTERED}
    assert {key for found in [*attributes, *events] for key in found} <= ALLOWED
    assert [span["name"] for span in spans if span["scope"].startswith("fastapi")] == []
    assert [span["status"] for span in spans if span["status"]] == []
    assert {span["name"] for span in spans} >= {"execute_tool unregistered_tool", "evaluate golden:1"}
    words = prompt_words(HELD_OUT, 14) | prompt_words(GOLDEN, 14)
    assert "CPH2437" in words and [word for word in words if word in exported] == []
    assert UNSEEN.findall(exported) == []
    # the Markdown and the JSON: the model's escapes, its made-up tool's name and its answers made safe
    written = (tmp_path / "card.json").read_text(encoding="utf-8")
    assert UNSEEN.findall(done.stdout) == [] and UNSEEN.findall(written) == []
    held_out = card["parts"][HELD_OUT]["failures"]
    assert held_out and all(UNREGISTERED in failure["attempted"] for failure in held_out)
    assert [word for word in prompt_words(HELD_OUT, 14) if word in done.stdout + written] == []
    golden = card["parts"][GOLDEN]["failures"]
    assert golden and all(any("31m" in tool for tool in f["attempted"]) for f in golden)  # shown, cleaned
