"""The A2A face of `main.py serve --workers 4`, on SQLite and on Postgres, driven by the official `a2a-sdk`
client: the agent card, a message that runs one of our turns (plain and streamed), the task read back, a
task's conversation continued on the OpenAI face, and one person's task hidden from another."""

from __future__ import annotations

import openai
import pytest
import requests
from a2a.types.a2a_pb2 import TaskState
from a2a.utils.errors import TaskNotFoundError

from tests.support.a2a_support import A2A, data_of, metadata, text_of
from tests.support.fake_llm import call, text, tool_calls
from tests.support.serve_support import devices

COMPLETED = TaskState.TASK_STATE_COMPLETED


def test_the_card_names_each_tool_as_a_skill_the_bearer_scheme_and_the_jsonrpc_url(agent):
    answer = requests.get(f"{agent.url}/.well-known/agent-card.json", timeout=10)
    assert answer.status_code == 200
    card = answer.json()
    skills = {skill["id"]: skill for skill in card["skills"]}
    assert {"add_device_model", "delete_device_model", "calculator"} <= set(skills)
    assert "destructive" in skills["delete_device_model"]["tags"]
    assert card["supportedInterfaces"] == [
        {"url": f"{agent.url}/a2a", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
    ]
    assert card["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"] == "Bearer"
    assert card["securityRequirements"] == [{"schemes": {"bearer": {}}}]
    assert card["capabilities"]["streaming"] is True


def test_a_message_runs_a_turn_for_the_keys_person_and_completes_with_the_answer(agent):
    code = "PJD120" if "postgres" in agent.database else "RMX1920"
    agent.llm.add(tool_calls(call("add_device_model", {"model": code}, "c1")), text(f"Added {code}."))
    task = A2A(agent, "alice").task(f"add {code}")
    assert task.status.state == COMPLETED
    [artifact] = task.artifacts
    assert (artifact.name, text_of(artifact.parts)) == ("answer", f"Added {code}.")
    assert (code, "alice") in devices(agent.database)  # the host injected alice, not the model
    first, second = agent.llm.requests
    assert [m["role"] for m in first["messages"]] == ["system", "user"]
    assert first["messages"][-1]["content"] == f"add {code}"
    assert second["messages"][-1]["tool_call_id"] == "c1"
    again = A2A(agent, "alice").get(task.id)
    assert (again.status.state, text_of(again.artifacts[0].parts)) == (COMPLETED, f"Added {code}.")
    assert metadata(again)["conversation_id"] == metadata(task)["conversation_id"]


def test_a_stream_tells_the_call_its_result_then_the_answer_and_the_end(agent):
    agent.llm.add(tool_calls(call("calculator", {"expression": "6*7"}, "c1")), text("It is 42."))
    events = A2A(agent, "bob", streaming=True).send("what is 6*7?")
    kinds = [event.WhichOneof("payload") for event in events]
    assert kinds[0] == "task" and kinds[-1] == "status_update"
    said = [
        data
        for event in events
        if event.HasField("status_update")
        for data in data_of(event.status_update.status.message.parts)
    ]
    assert said[0]["tool_call"]["name"] == "calculator"
    assert said[1]["tool_result"] == {
        "id": "c1",
        "name": "calculator",
        "result": {"ok": True, "data": {"expression": "6*7", "result": 42}},
    }
    [artifact] = [event.artifact_update.artifact for event in events if event.HasField("artifact_update")]
    assert text_of(artifact.parts) == "It is 42."
    assert events[-1].status_update.status.state == COMPLETED
    task_id = events[0].task.id
    assert A2A(agent, "bob").get(task_id).status.state == COMPLETED


def test_a_tasks_conversation_goes_on_on_the_openai_face_and_a_new_task_in_its_context(agent):
    agent.llm.add(text("Noted: your favourite is RMX3371."))
    first = A2A(agent, "alice").task("my favourite model is RMX3371")
    conversation = metadata(first)["conversation_id"]
    agent.llm.add(text("RMX3371."))
    openai_client = openai.OpenAI(base_url=f"{agent.url}/v1", api_key=agent.keys["alice"], max_retries=0)
    openai_client.chat.completions.create(
        model="m",
        messages=[{"role": "user", "content": "which is my favourite?"}],
        extra_body={"conversation_id": conversation},
    )
    seen = [m.get("content") for m in agent.llm.requests[-1]["messages"]]
    assert seen[-3:] == [
        "my favourite model is RMX3371",
        "Noted: your favourite is RMX3371.",
        "which is my favourite?",
    ]
    agent.llm.add(text("Still RMX3371."))
    second = A2A(agent, "alice").task("and now?", context_id=first.context_id)
    assert second.id != first.id and metadata(second)["conversation_id"] == conversation
    assert [m.get("content") for m in agent.llm.requests[-1]["messages"]][-3:] == [
        "which is my favourite?",
        "RMX3371.",
        "and now?",
    ]


def test_another_persons_task_is_not_found_and_no_key_is_a_401(agent):
    agent.llm.add(text("Hello."))
    task = A2A(agent, "alice").task("hello")
    with pytest.raises(TaskNotFoundError):
        A2A(agent, "bob").get(task.id)
    body = {"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": task.id}}
    headers = {"A2A-Version": "1.0"}
    refused = requests.post(f"{agent.url}/a2a", json=body, headers=headers, timeout=10)
    assert (refused.status_code, refused.headers["www-authenticate"]) == (401, "Bearer")
    wrong = requests.post(
        f"{agent.url}/a2a",
        json=body,
        headers={**headers, "Authorization": "Bearer sk-agent-nope"},
        timeout=10,
    )
    assert wrong.status_code == 401
