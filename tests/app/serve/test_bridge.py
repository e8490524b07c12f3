"""The bridge from a turn's thread to its request (app/serve/events.py, streams.py): when the request
is cut off — cancelled as the server stops, its event loop closed — the turn goes on, told nothing
more, and no error of the request's reaches it."""

from __future__ import annotations

import asyncio
import threading

import pytest

from app.serve.events import Bridge, Text
from app.serve.streams import told_nothing_more_if_cancelled


def test_a_turn_telling_a_request_whose_loop_closed_goes_on():
    loop = asyncio.new_event_loop()
    bridge = Bridge(loop)
    loop.close()
    told = threading.Thread(target=bridge.put, args=(Text("hello"),))
    told.start()
    told.join()
    assert bridge.gone.is_set()
    bridge.put(Text("and more"))  # nobody reads: nothing happens


def test_a_request_cancelled_while_it_waits_is_told_nothing_more():
    async def waiting(bridge: Bridge) -> None:
        with told_nothing_more_if_cancelled(bridge):
            await bridge.get()

    async def cut_off() -> Bridge:
        bridge = Bridge(asyncio.get_running_loop())
        request = asyncio.create_task(waiting(bridge))
        await asyncio.sleep(0)
        request.cancel()
        with pytest.raises(asyncio.CancelledError):
            await request
        return bridge

    assert asyncio.run(cut_off()).gone.is_set()
