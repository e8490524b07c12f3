"""A "per-person" server keeps at most MAX_OPEN (16) connections open; opening another closes the one unused
longest — never the operator's, never one a call is using (app/mcp/people.py)."""

from __future__ import annotations

from typing import Any, cast

from app.mcp import people


class Connection:
    """What the pool does with a connection: opens it through `connect`, closes it."""

    def __init__(self, user: str, closed: list[str]) -> None:
        self.user, self.closed = user, closed

    def close(self) -> None:
        self.closed.append(self.user)


def pool(closed: list[str]) -> people.PerPerson:
    first = cast(Any, Connection("operator", closed))
    return people.PerPerson(first, "operator", lambda user: cast(Any, Connection(user, closed)))


def test_at_most_16_are_open_and_the_one_unused_longest_closes_first() -> None:
    closed: list[str] = []
    everyone = pool(closed)
    for i in range(1, 16):  # the operator and 15 people: 16 open
        with everyone.lease(f"p{i}"):
            pass
    with everyone.lease("p1"):  # p1 used again: p2 is now the one unused longest
        pass
    assert closed == []
    with everyone.lease("p16"):
        pass
    assert people.MAX_OPEN == 16 and closed == ["p2"]


def test_a_connection_a_call_is_using_is_not_the_one_closed() -> None:
    closed: list[str] = []
    everyone = pool(closed)
    with everyone.lease("p1"):  # p1's call runs while the others come and go: p1 is the one unused longest
        for i in range(2, 16):
            with everyone.lease(f"p{i}"):
                pass
        with everyone.lease("p16"):
            assert closed == ["p2"]  # not p1, busy; not the operator's
