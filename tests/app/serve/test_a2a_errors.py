"""Bad requests to the A2A face, each a clear JSON-RPC error that writes nothing: a body that is not JSON, not
JSON-RPC, or names no method of A2A 1.0; an unknown task; a message over its size, with no words, or
with a part that is not text. Raw HTTP where the official client would not send it, the client otherwise."""

from __future__ import annotations

import pytest
import requests
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest
from a2a.utils.errors import ContentTypeNotSupportedError, InvalidParamsError, TaskNotFoundError

from tests.support.a2a_support import A2A

MAX_MESSAGE_CHARS = 100_000  # app/serve/a2a_face.py's


def rpc(agent, body, user: str = "carol") -> dict:
    headers = {"Authorization": f"Bearer {agent.keys[user]}", "A2A-Version": "1.0"}
    if isinstance(body, bytes):
        answer = requests.post(f"{agent.url}/a2a", data=body, headers=headers, timeout=30)
    else:
        answer = requests.post(f"{agent.url}/a2a", json=body, headers=headers, timeout=30)
    assert answer.status_code == 200, answer.text
    return answer.json()


def written(agent, user: str = "carol") -> tuple:
    """What the person has in the database: tasks, conversations, messages."""
    [(tasks,)] = agent.query("SELECT COUNT(*) FROM a2a_tasks WHERE user_id = ?", (user,))
    [(conversations,)] = agent.query("SELECT COUNT(*) FROM conversations WHERE user_id = ?", (user,))
    [(messages,)] = agent.query(
        "SELECT COUNT(*) FROM messages m JOIN conversations c ON c.id = m.conversation_id "
        "WHERE c.user_id = ?",
        (user,),
    )
    return tasks, conversations, messages


def send(words_or_parts, method: str = "SendMessage") -> dict:
    parts = [{"text": words_or_parts}] if isinstance(words_or_parts, str) else words_or_parts
    message = {"messageId": "m-1", "role": "ROLE_USER", "parts": parts}
    return {"jsonrpc": "2.0", "id": 7, "method": method, "params": {"message": message}}


def test_a_body_that_is_not_json_rpc_is_a_json_rpc_error_and_writes_nothing(agent):
    before = written(agent)
    assert rpc(agent, b"{not json")["error"]["code"] == -32700
    assert rpc(agent, [send("hi")])["error"]["code"] == -32600  # a batch
    assert rpc(agent, {"jsonrpc": "1.0", "id": 1, "method": "GetTask"})["error"]["code"] == -32600
    unknown = rpc(agent, send("hi", method="message/send"))  # A2A 0.3's name, not 1.0's
    assert (unknown["id"], unknown["error"]["code"]) == (7, -32601)
    no_params = rpc(agent, {"jsonrpc": "2.0", "id": 2, "method": "SendMessage", "params": {"message": 5}})
    assert no_params["error"]["code"] == -32602
    assert written(agent) == before
    assert agent.llm.requests == []


def test_an_unknown_task_is_task_not_found(agent):
    answer = rpc(agent, {"jsonrpc": "2.0", "id": 3, "method": "GetTask", "params": {"id": "no-such-task"}})
    assert answer["error"]["code"] == -32001
    with pytest.raises(TaskNotFoundError):
        A2A(agent, "carol").get("no-such-task")
    with pytest.raises(TaskNotFoundError):
        A2A(agent, "carol").cancel("no-such-task")


def test_an_oversized_or_empty_message_or_one_with_a_part_not_text_is_refused_before_anything_runs(agent):
    before = written(agent)
    too_long = rpc(agent, send("x" * (MAX_MESSAGE_CHARS + 1)))
    assert too_long["error"]["code"] == -32602
    assert f"at most {MAX_MESSAGE_CHARS}" in too_long["error"]["message"]
    assert rpc(agent, send("   "))["error"]["code"] == -32602
    picture = [{"text": "what is this?"}, {"url": "https://example.com/a.png", "mediaType": "image/png"}]
    refused = rpc(agent, send(picture))["error"]
    assert refused["code"] == -32005 and "only text parts" in refused["message"]
    data = Message(message_id="m-2", role=Role.ROLE_USER, parts=[Part(raw=b"\x00\x01")])
    with pytest.raises(ContentTypeNotSupportedError):
        A2A(agent, "carol").run(lambda client: _first(client.send_message(SendMessageRequest(message=data))))
    with pytest.raises(InvalidParamsError):
        A2A(agent, "carol").send("y" * (MAX_MESSAGE_CHARS + 1))
    streamed = rpc(agent, send("z" * (MAX_MESSAGE_CHARS + 1), method="SendStreamingMessage"))
    assert streamed["error"]["code"] == -32602
    assert written(agent) == before
    assert agent.llm.requests == []


async def _first(stream):
    async for event in stream:
        return event
    return None
