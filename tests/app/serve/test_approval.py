"""Confirmation over HTTP: a destructive call pauses the turn and the answer asks about that exact call;
the person's next message approves (it runs, once) or refuses it; an approval covers one call and
expires; nothing destructive runs without it. Through the openai SDK, 4 workers, SQLite and Postgres."""

from __future__ import annotations

import json

import openai
import pytest

from agent.guards import envelope_of
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import devices


def say(agent, user: str, words: str, conversation: str | None = None):
    client = openai.OpenAI(base_url=f"{agent.url}/v1", api_key=agent.keys[user], max_retries=0)
    extra = {"conversation_id": conversation} if conversation else {}
    return client.chat.completions.create(
        model="m", messages=[{"role": "user", "content": words}], extra_body=extra
    )


def added(agent, user: str, code: str) -> str:
    """A conversation in which `user` added `code`."""
    agent.llm.add(tool_calls(call("add_device_model", {"model": code}, f"add_{code}")), text("added"))
    answer = say(agent, user, f"add {code}")
    assert (code, user) in devices(agent.database)
    return answer.model_extra["conversation_id"]


def asked_to_delete(agent, code: str, call_id: str = "del1"):
    conversation = added(agent, "alice", code)
    agent.llm.add(tool_calls(call("delete_device_model", {"model": code}, call_id)))
    return conversation, say(agent, "alice", f"delete {code}", conversation)


def test_a_delete_waits_for_approval_and_runs_only_after_yes(agent):
    conversation, asked = asked_to_delete(agent, "A5010")
    pending = asked.model_extra["pending_approval"]
    assert (pending["name"], pending["arguments"], pending["tool_call_id"]) == (
        "delete_device_model",
        {"model": "A5010"},
        "del1",
    )
    assert (
        'Approval needed to run delete_device_model({"model": "A5010"})' in asked.choices[0].message.content
    )
    assert asked.model_extra["agent_tool_calls"][0]["result"] is None
    assert ("A5010", "alice") in devices(agent.database)  # not run
    requests_before = len(agent.llm.requests)
    agent.llm.add(text("Deleted A5010."))
    done = say(agent, "alice", "yes", conversation)
    assert (
        done.choices[0].message.content == "Deleted A5010." and done.model_extra["pending_approval"] is None
    )
    assert "A5010" not in [model for model, _ in devices(agent.database)]
    after = agent.llm.requests[requests_before]["messages"]
    assert (after[-1]["role"], after[-1]["tool_call_id"]) == ("tool", "del1")
    assert envelope_of(after[-1]["content"])["data"] == {"model": "A5010", "deleted": True}
    assert "yes" not in [m.get("content") for m in after]  # the approval is the host's, not a message
    audit = [json.loads(line) for line in (agent.cwd / "audit.jsonl").read_text().splitlines()]
    decisions = [line["decision"] for line in audit if line["call_id"] == "del1"]
    assert decisions[-2:] == ["awaiting_approval", "ran"]


def test_no_refuses_the_call_and_the_model_is_told(agent):
    conversation, _ = asked_to_delete(agent, "V2145", "del2")
    agent.llm.add(text("Kept V2145."))
    assert say(agent, "alice", "不", conversation).choices[0].message.content == "Kept V2145."
    assert envelope_of(agent.llm.requests[-1]["messages"][-1]["content"])["error"].startswith(
        "the person refused"
    )
    assert ("V2145", "alice") in devices(agent.database)


def test_another_message_leaves_the_call_unrun_and_is_a_new_turn(agent):
    conversation, _ = asked_to_delete(agent, "RMX3371", "del3")
    agent.llm.add(text("Sure, what else?"))
    say(agent, "alice", "actually, list them", conversation)
    *_, cancelled, person = agent.llm.requests[-1]["messages"]
    assert (cancelled["tool_call_id"], envelope_of(cancelled["content"])["error"]) == ("del3", "cancelled")
    assert person == {"role": "user", "content": "actually, list them"}
    assert ("RMX3371", "alice") in devices(agent.database)


def test_an_approval_covers_one_exact_call_and_nobody_else_can_give_it(agent):
    conversation = added(agent, "alice", "PHB110")
    added(agent, "alice", "PJD110")
    both = [call("delete_device_model", {"model": code}, f"d_{code}") for code in ("PHB110", "PJD110")]
    agent.llm.add(tool_calls(*both))
    first = say(agent, "alice", "delete PHB110 and PJD110", conversation)
    assert first.model_extra["pending_approval"]["arguments"] == {"model": "PHB110"}
    with pytest.raises(openai.NotFoundError):
        say(agent, "bob", "yes", conversation)
    second = say(agent, "alice", "yes", conversation)  # runs PHB110 only, then asks about PJD110
    assert second.model_extra["pending_approval"]["arguments"] == {"model": "PJD110"}
    assert [m for m, _ in devices(agent.database) if m in ("PHB110", "PJD110")] == ["PJD110"]
    agent.llm.add(text("Both deleted."))
    assert say(agent, "alice", "yes", conversation).choices[0].message.content == "Both deleted."
    assert [m for m, _ in devices(agent.database) if m in ("PHB110", "PJD110")] == []


def test_an_expired_approval_runs_nothing(agent):
    conversation, asked = asked_to_delete(agent, "CPH2219", "del4")
    agent.query_execute(
        "UPDATE conversations SET pending = ? WHERE id = ?", (_expired(agent, conversation), conversation)
    )
    agent.llm.add(text("It expired; ask me again."))
    say(agent, "alice", "yes", conversation)
    *_, cancelled, person = agent.llm.requests[-1]["messages"]
    assert envelope_of(cancelled["content"])["error"] == "cancelled" and person["content"] == "yes"
    assert ("CPH2219", "alice") in devices(agent.database)


def _expired(agent, conversation: str) -> str:
    [(pending,)] = agent.query("SELECT pending FROM conversations WHERE id = ?", (conversation,))
    return json.dumps({**json.loads(pending), "expires_at": 0})


def test_a_user_without_delete_model_is_refused_without_being_asked(agent):
    conversation = added(agent, "bob", "CPH2201")
    agent.llm.add(tool_calls(call("delete_device_model", {"model": "CPH2201"}, "del5")), text("Not allowed."))
    answer = say(agent, "bob", "delete CPH2201", conversation)
    assert answer.model_extra["pending_approval"] is None
    assert "lacks 'delete_model'" in answer.model_extra["agent_tool_calls"][0]["result"]["error"]
    assert ("CPH2201", "bob") in devices(agent.database)


def test_a_write_decided_after_reading_a_tools_output_waits_for_approval_too(agent):
    """The provenance rule over HTTP: once the model has read untrusted text, a write waits for the person
    (the user's own name in that text, a model's `createdBy`, is no reason to refuse: the host injects it)."""
    added(agent, "bob", "CPH2398")
    listing = call("list_device_models", {}, "l1")
    agent.llm.add(tool_calls(listing), tool_calls(call("add_device_model", {"model": "CPH2399"}, "a1")))
    asked = say(agent, "bob", "list the models, then add CPH2399")
    assert asked.model_extra["pending_approval"]["arguments"] == {"model": "CPH2399", "createdBy": "bob"}
    assert "CPH2399" not in [model for model, _ in devices(agent.database)]
    agent.llm.add(text("Added CPH2399."))
    done = say(agent, "bob", "yes", asked.model_extra["conversation_id"])
    assert done.choices[0].message.content == "Added CPH2399."
    assert ("CPH2399", "bob") in devices(agent.database)
