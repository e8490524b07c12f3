"""`python -m benchmarks.a2a_promises [--database sqlite|postgres]`: the A2A face's promises about approvals
and re-sends, each driven on a real `main.py serve` (a new interpreter, 4 workers) with the official
`a2a-sdk` client and the tests' scripted LLM, and counted at the tool: the device service's rows of the
model written, and the audit's "ran" lines of that write (its tool and model, whatever the call's id).
Prints a Markdown table: what ran, what should have, and the task states the person saw.

The scenarios: a "yes" sent with only its task's id; a "no" sent so, then a plain "ok" in the task's
context; a "no" (task and context ids) after which the model asks for another delete, then a plain "ok" as
a new task; the same add sent twice with no context; the same, sent again after `kill -9` of the whole
server and a restart. Copied into a checkout of older code, it shows the promises there.
"""

from __future__ import annotations

import argparse
import json
import re
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest, Task, TaskState
from a2a.utils.errors import A2AError

from plumbing.pgcluster import PostgresCluster
from tests.support.a2a_support import A2A
from tests.support.fake_llm import FakeLLM, Reply, call, text, tool_calls
from tests.support.serve_support import PERMISSIONS, ServedAgent, devices

ENDED = {TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED}


@dataclass
class Outcome:
    scenario: str
    ran: int  # the audit's "ran" lines of the write
    rows: int  # the device service's rows of its model, after
    expected: tuple[int, int]  # (ran, rows)
    states: list[str]  # what the person saw, in order
    state_expected: str = ""  # a state the person must have seen, if any

    def kept(self) -> bool:
        seen = not self.state_expected or self.state_expected in " ".join(self.states)
        return (self.ran, self.rows) == self.expected and seen


def name(state: int) -> str:
    return TaskState.Name(state).removeprefix("TASK_STATE_").lower().replace("_", "-")


def seen(label: str, task: Task | str) -> str:
    """What the person saw of one message: its task's state, or the error the call raised."""
    return f"{label}: {task if isinstance(task, str) else name(task.status.state)}"


def send(agent: ServedAgent, words: str, polling: bool = False, **ids: str) -> Task:
    """alice's message with exactly the ids given (task_id, context_id, message_id): its task."""
    ids = {"message_id": uuid.uuid4().hex, **ids}
    sent = Message(role=Role.ROLE_USER, parts=[Part(text=words)], **ids)

    async def act(client: Any) -> list[Any]:
        return [event async for event in client.send_message(SendMessageRequest(message=sent))]

    [response] = A2A(agent, "alice", polling=polling).run(act)
    return response.task


def attempt(agent: ServedAgent, words: str, **ids: str) -> Task | str:
    """`send`, or the JSON-RPC error the person got instead of a task."""
    try:
        return send(agent, words, False, **ids)
    except A2AError as error:
        said = re.sub(r"\s*:?\s*[0-9a-f]{8}-[0-9a-f-]{27}", "", str(error))  # without the task's ids
        return f"error {type(error).__name__} ({said[:60]})"


def counted(agent: ServedAgent, tool: str, model: str) -> tuple[int, int]:
    """(the audit's "ran" lines of `tool` on `model`, the device service's rows of `model`)."""
    lines = [json.loads(line) for line in (agent.cwd / "audit.jsonl").read_text().splitlines()]
    ran = [x for x in lines if x["tool"] == tool and (x["arguments"] or {}).get("model") == model]
    return sum(x["decision"] == "ran" for x in ran), [m for m, _ in devices(agent.database)].count(model)


class Model:
    """The scripted model: the replies scripted for a device model answer, in order, the requests of the
    conversations that name it (a turn of another conversation, late or not, takes none of them); any other
    request adds the model a person's "add CODE" names (a call of a new id), or answers "Done."."""

    def __init__(self) -> None:
        self.replies: dict[str, list[Any]] = {}
        self.lock = threading.Lock()

    def script(self, code: str, *replies: Any) -> None:
        with self.lock:
            self.replies.setdefault(code, []).extend(replies)

    def __call__(self, request: dict) -> Reply:
        said = json.dumps(request["messages"])
        with self.lock:
            scripted = [queue.pop(0) for code, queue in self.replies.items() if code in said and queue][:1]
        if scripted:
            return scripted[0](request) if callable(scripted[0]) else Reply(scripted[0])
        last = request["messages"][-1]
        words = str(last.get("content") or "")
        if last["role"] == "user" and words.startswith("add "):
            add = call("add_device_model", {"model": words[4:].strip()}, "bench_" + uuid.uuid4().hex[:8])
            return Reply(tool_calls(add))
        return Reply(text("Done."))


MODEL = Model()


def asked_to_delete(agent: ServedAgent, model: str, call_id: str) -> Task:
    """alice's task that added `model`, then was asked to delete it (the task waits for her answer)."""
    MODEL.script(model, tool_calls(call("add_device_model", {"model": model}, f"add_{model}")), text("added"))
    added = send(agent, f"add {model}")
    MODEL.script(model, tool_calls(call("delete_device_model", {"model": model}, call_id)))
    return send(agent, f"delete {model}", context_id=added.context_id)


def yes_on_task_only(agent: ServedAgent) -> Outcome:
    asked = asked_to_delete(agent, "B8010", "bench_del1")
    MODEL.script("B8010", text("Deleted B8010."))
    done = attempt(agent, "yes", task_id=asked.id)
    now = A2A(agent, "alice").get(asked.id)  # tasks/get, also when the answer was an error
    states = [seen("asked", asked), seen("yes", done), seen("the task, read again", now)]
    return Outcome('"yes" with taskId only', *counted(agent, "delete_device_model", "B8010"), (1, 0), states)


def no_on_task_only_then_ok(agent: ServedAgent) -> Outcome:
    asked = asked_to_delete(agent, "B8020", "bench_del2")
    MODEL.script("B8020", text("Kept B8020."), text("ok then"))
    kept = attempt(agent, "no", task_id=asked.id)
    later = attempt(agent, "ok", context_id=asked.context_id)
    states = [seen("asked", asked), seen("no", kept), seen("ok", later)]
    scenario = '"no" with taskId only, then "ok" in the context'
    return Outcome(scenario, *counted(agent, "delete_device_model", "B8020"), (0, 1), states)


def no_then_asked_again_then_ok(agent: ServedAgent) -> Outcome:
    asked = asked_to_delete(agent, "B8030", "bench_del3")
    again = call("delete_device_model", {"model": "B8030"}, "bench_del4")
    MODEL.script("B8030", tool_calls(again), text("ok then"))
    refused = attempt(agent, "no", task_id=asked.id, context_id=asked.context_id)
    later = attempt(agent, "ok", context_id=asked.context_id)
    states = [seen("asked", asked), seen("no", refused), seen("ok (a new task)", later)]
    scenario = '"no" (task and context ids), the model asks for another delete, then "ok" as a new task'
    ran = counted(agent, "delete_device_model", "B8030")
    return Outcome(scenario, *ran, (0, 1), states, state_expected="no: input-required")


def same(first: Task, again: Task | str) -> str:
    return "-" if isinstance(again, str) else "the same task" if again.id == first.id else "another task"


def resent(agent: ServedAgent) -> Outcome:
    sent_id = "resend-" + uuid.uuid4().hex
    first = send(agent, "add B8040", message_id=sent_id)
    again = attempt(agent, "add B8040", message_id=sent_id)
    states = [seen("first", first), seen("again", again), same(first, again)]
    scenario = "the same add re-sent without a contextId"
    return Outcome(scenario, *counted(agent, "add_device_model", "B8040"), (1, 1), states)


def resent_after_kill(agent: ServedAgent) -> Outcome:
    """The add runs, the model's next answer is held, the whole server is killed (-9) and restarted; the
    client, which never got its answer, sends the same message again."""
    reached, release = threading.Event(), threading.Event()

    def held(request: dict) -> Reply:
        reached.set()
        release.wait(60)
        return Reply(text("never read"))

    MODEL.script("B8050", tool_calls(call("add_device_model", {"model": "B8050"}, "bench_add5")), held)
    sent_id = "resend-" + uuid.uuid4().hex
    first = send(agent, "add B8050", polling=True, message_id=sent_id)
    if not reached.wait(60):
        raise SystemExit(f"the add's turn never reached the model again: {agent.log()}")
    agent.kill()
    release.set()
    agent.start()
    again = attempt(agent, "add B8050", message_id=sent_id)
    states = [seen("first", first), seen("again", again), same(first, again)]
    give_up_at = time.monotonic() + 90
    while (
        now := A2A(agent, "alice").get(first.id)
    ).status.state not in ENDED and time.monotonic() < give_up_at:
        time.sleep(0.5)
    states.append(seen("the first task, read again", now))
    scenario = "the same add re-sent after kill -9 and a restart"
    return Outcome(scenario, *counted(agent, "add_device_model", "B8050"), (1, 1), states)


SCENARIOS = (yes_on_task_only, no_on_task_only_then_ok, no_then_asked_again_then_ok, resent)


def run(database: Callable[[str], str], tmp: Path, llm: FakeLLM) -> list[Outcome]:
    """The scenarios on one served agent, then the kill -9 one on another (each its own database)."""
    outcomes = []
    for label, scenarios in (("agent", SCENARIOS), ("killed", (resent_after_kill,))):
        folder = tmp / label
        folder.mkdir()
        (folder / "permissions.json").write_text(json.dumps(PERMISSIONS))
        env = {"PERMISSIONS_FILE": str(folder / "permissions.json")}
        with ServedAgent(llm.url, folder, database(label), workers=4, fresh=True, **env) as agent:
            agent.keys = {"alice": agent.key("alice")}
            outcomes += [scenario(agent) for scenario in scenarios]
    return outcomes


def table(outcomes: list[Outcome]) -> str:
    lines = [
        '| scenario | the write ran (audit "ran") | rows of its model after | expected (ran, rows) '
        "| task states the person saw | kept |",
        "|---|---|---|---|---|---|",
    ]
    for o in outcomes:
        expected = f"{o.expected[0]}, {o.expected[1]}" + (f"; {o.state_expected}" if o.state_expected else "")
        said = f"{'; '.join(o.states)} | {'yes' if o.kept() else 'NO'}"
        lines.append(f"| {o.scenario} | {o.ran} | {o.rows} | {expected} | {said} |")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--database", choices=("sqlite", "postgres"), default="sqlite")
    args = parser.parse_args()
    with ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory()))
        llm = stack.enter_context(FakeLLM(default=MODEL))
        if args.database == "postgres":
            cluster = stack.enter_context(PostgresCluster())
            outcomes = run(lambda label: cluster.create_database(f"a2a_{label}"), tmp, llm)
        else:
            outcomes = run(lambda label: str(tmp / label / "agent.db"), tmp, llm)
    print(f"the A2A face's promises, {args.database}, 4 workers, counted at the tool:\n")
    print(table(outcomes))


if __name__ == "__main__":
    main()
