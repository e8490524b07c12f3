"""Following a turn that runs already. A client that lost a turn's stream (its connection dropped, it
restarted) sends the same run again: the AG-UI thread and run id, or the OpenAI face's Idempotency-Key
(with the conversation id). It is not run twice: the client is told the turn as it goes on, wherever it
runs — another worker, another server, or a worker that recovered it after a crash — each message as
the turn stores it, then how it ended. Text comes a whole reply at a time, not as it streams.
"""

from __future__ import annotations

import threading
import time
from collections import Counter

from langchain_core.messages import AIMessage

from app.serve.approvals import Approval
from app.serve.conversations import Conversation, ConversationStore
from app.serve.errors import Stopped, TooManyRequests
from app.serve.events import Bridge, Failed, Finished, told

POLL_SECONDS = 0.2


def follow(
    store: ConversationStore,
    conversation: Conversation,
    bridge: Bridge,
    poll: float = POLL_SECONDS,
    after: int = -1,
) -> bool:
    """Tell `bridge` what the running turn of `conversation` did so far (after place `after`, which it
    was told), then as it does it, to its end. False when its lease was released before it started (its
    executor died first: recovery.py): nothing is told, and the follower may run it."""
    seen, answer = after, ""
    while True:
        row, added = store.progress(conversation, seen)
        for seq, message in added:
            seen = seq
            for event in told(message):
                bridge.put(event)
            if isinstance(message, AIMessage):
                answer = message.text
        if row["run_id"] != conversation.run_id or row["state"] != "running":
            break
        if bridge.gone.is_set():
            return True
        if not row["leased"]:  # nobody runs it, nor took it up (leases.py)
            bridge.put(Failed(Stopped("the turn stopped before it answered; send it again to go on")))
            return True
        time.sleep(poll)
    if row["run_id"] == conversation.run_id and row["state"] == "released" and seen == after:
        return False
    if row["run_id"] != conversation.run_id:  # a later turn has begun since: this one's answer is above
        bridge.put(Finished(conversation.id, conversation.run_id, answer))
    elif row["state"] in ("failed", "released"):
        bridge.put(Failed(Stopped("the turn failed before it answered; send it again to go on")))
    else:
        pending = Approval.from_json(row["pending"])
        bridge.put(Finished(conversation.id, conversation.run_id, row["answer"], pending))
    return True


class Followers:
    """Each person's clients following a turn here, each in a thread: `most` of them at once."""

    def __init__(self, store: ConversationStore, most: int) -> None:
        self.store, self.most = store, most
        self.following: Counter[str] = Counter()
        self.lock = threading.Lock()

    def follow(self, conversation: Conversation, bridge: Bridge) -> bool:
        """Tell `bridge` the running turn (`follow`), as one of the person's turns at once here; False
        when it was released before it started, and nothing was told."""
        user = conversation.user
        with self.lock:
            if self.following[user] >= self.most:
                many = f"{self.following[user]} of your clients follow turns here; retry when one ends"
                bridge.put(Failed(TooManyRequests(many, 1)))
                return True
            self.following[user] += 1
        try:
            return follow(self.store, conversation, bridge)
        finally:
            with self.lock:
                self.following[user] -= 1
