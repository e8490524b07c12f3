"""The load test's people: U users at once, each taking the next of C conversations and saying its T turns
through the OpenAI-compatible face, one after the other; each turn asks to add a code of its own.

A turn carries an Idempotency-Key; on a connection error (or a 409, 429, 5xx, which the official SDKs
retry too) the client sends it again with the same key, to the next server, as a client behind a load
balancer would, until GIVE_UP_SECONDS. A turn that asks for approval is answered "yes", as a person would.

Why not Locust: its users fire requests for a time and it keeps statistics per endpoint; this test needs
every turn's key, its re-sends across servers, and its answer matched against the device service's rows
afterwards, and its own start, kill and restart of servers in the same run. Plain threads with httpx do it
in a few lines, and leave the client's own CPU time easy to read.
"""

from __future__ import annotations

import queue
import re
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import httpx

GIVE_UP_SECONDS = 300.0
RETRIED = {409, 429, 500, 502, 503, 504}


def code_for(conversation: int, turn: int) -> str:
    """The code a turn asks to add: unique in the run (benchmarks/load_llm.py's CODE)."""
    return f"LD{conversation:06d}X{turn}"


@dataclass
class Turn:
    """One turn as the person saw it."""

    conversation: int
    turn: int
    code: str
    started: float  # time.monotonic()
    ended: float = 0.0
    outcome: str = "gave up"  # "done", or what ended it otherwise ("HTTP 400", "gave up")
    resent: Counter = field(default_factory=Counter)  # why it was sent again: "connection", "HTTP 503"
    approvals: int = 0
    refusal: str | None = None  # the add's error, when the answer says it did not run (e.g. a refused call)

    @property
    def took(self) -> float:
        return self.ended - self.started


class User:
    """One person with an API key, talking to `urls` (starting at their own server)."""

    def __init__(self, key: str, urls: list[str], first: int) -> None:
        self.urls, self.at = urls, first
        self.client = httpx.Client(
            headers={"Authorization": f"Bearer {key}"},
            timeout=httpx.Timeout(120.0, connect=5.0),
            trust_env=False,
        )

    def converse(self, conversation: int, turns: int, record: list[Turn]) -> None:
        """Say a conversation's turns, appending each to `record` as it starts."""
        conversation_id = None
        for n in range(turns):
            turn = Turn(conversation, n, code_for(conversation, n), time.monotonic())
            record.append(turn)
            conversation_id = self.say(turn, conversation_id)
            if conversation_id is None:
                return  # the conversation cannot go on

    def say(self, turn: Turn, conversation_id: str | None) -> str | None:
        """One turn, answering "yes" to each approval it asks; the conversation id after it."""
        text = f"Please add {turn.code} to the database."
        answer = self.send(turn, text, conversation_id, uuid.uuid4().hex)
        while answer is not None and answer.get("pending_approval"):
            turn.approvals += 1
            answer = self.send(turn, "yes", answer["conversation_id"], uuid.uuid4().hex)
        turn.ended = time.monotonic()
        if answer is None:
            return None
        turn.outcome, turn.refusal = "done", refusal(answer)
        return str(answer["conversation_id"])

    def send(self, turn: Turn, text: str, conversation_id: str | None, key: str) -> dict[str, Any] | None:
        """POST one message with its key until it is answered; None when it failed for good."""
        body: dict[str, Any] = {"model": "tool-use-agent", "messages": [{"role": "user", "content": text}]}
        if conversation_id:
            body["conversation_id"] = conversation_id
        give_up_at, pause = time.monotonic() + GIVE_UP_SECONDS, 0.2
        while time.monotonic() < give_up_at:
            url = self.urls[self.at % len(self.urls)]
            try:
                answer = self.client.post(
                    f"{url}/v1/chat/completions", json=body, headers={"Idempotency-Key": key}
                )
            except httpx.TransportError:
                why = "connection"
            else:
                if answer.status_code == 200:
                    return dict(answer.json())
                why = f"HTTP {answer.status_code}"
                if answer.status_code not in RETRIED:
                    turn.outcome = why
                    return None
            turn.resent[why] += 1
            self.at += 1  # the next server, as a load balancer would pick after a failure
            time.sleep(pause)
            pause = min(pause * 2, 2.0)
        return None

    def close(self) -> None:
        self.client.close()


def refusal(answer: dict[str, Any]) -> str | None:
    """The error of the add the answer reports, if it failed: the host's refusal or the service's error."""
    for call in answer.get("agent_tool_calls") or []:
        result = call.get("result") or {}
        if call.get("name") == "add_device_model" and result.get("ok") is False:
            return re.sub(r"'[^']*'", "'…'", str(result.get("error", "")))[
                :100
            ]  # the same error, however quoted
    return None


def drive(keys: list[str], urls: list[str], conversations: int, turns: int, record: list[Turn]) -> None:
    """Every conversation, said by len(keys) users at once; `record` gets each turn as it starts (another
    thread may read it meanwhile: a turn with no `ended` yet is in flight)."""
    todo: queue.SimpleQueue[int] = queue.SimpleQueue()
    for conversation in range(conversations):
        todo.put(conversation)

    def person(index: int) -> None:
        user = User(keys[index], urls, index)
        try:
            while True:
                try:
                    conversation = todo.get_nowait()
                except queue.Empty:
                    return
                user.converse(conversation, turns, record)
        finally:
            user.close()

    threads = [threading.Thread(target=person, args=(i,)) for i in range(len(keys))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
