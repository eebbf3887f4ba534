"""A Server-Sent Events client for the tests: reads a stream in a thread, parsed event by
event, so a test can wait for the next one with a timeout."""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import httpx


@dataclass(frozen=True)
class Received:
    event: str | None
    data: str | None
    id: str | None
    comment: str | None = None

    @property
    def seq(self) -> int:
        assert self.id is not None, self
        return int(self.id)

    def json(self) -> Any:
        assert self.data is not None, self
        return json.loads(self.data)


class EventStream:
    """GET .../events as a background reader; `status` once the response started."""

    def __init__(self, url: str, headers: dict[str, str] | None = None, **params: Any) -> None:
        self.received: queue.Queue[Received | None] = queue.Queue()
        self.status: int | None = None
        self.body = ""
        self._started = threading.Event()
        self._stop = threading.Event()
        self._client = httpx.Client(timeout=httpx.Timeout(30.0, read=60.0))
        self._thread = threading.Thread(
            target=self._read, args=(url, headers or {}, params), daemon=True
        )
        self._thread.start()
        assert self._started.wait(30), "the stream never answered"

    def _read(self, url: str, headers: dict[str, str], params: dict[str, Any]) -> None:
        try:
            with self._client.stream("GET", url, headers=headers, params=params) as response:
                self.status = response.status_code
                if response.status_code != 200:
                    self.body = response.read().decode()
                    self._started.set()
                    return
                self._started.set()
                fields: dict[str, str] = {}
                for line in response.iter_lines():
                    if self._stop.is_set():
                        return  # leaving the block closes the connection
                    if line == "":
                        if fields:
                            self.received.put(
                                Received(fields.get("event"), fields.get("data"), fields.get("id"))
                            )
                        fields = {}
                    elif line.startswith(":"):
                        self.received.put(Received(None, None, None, comment=line[1:].strip()))
                    else:
                        name, _, value = line.partition(":")
                        fields[name] = value[1:] if value.startswith(" ") else value
        except Exception:
            pass
        finally:
            self._started.set()
            self.received.put(None)  # the stream ended

    def next(self, timeout: float = 10.0, *, comments: bool = False) -> Received | None:
        """The next event (comments skipped unless asked), or None when the stream ended."""
        while True:
            try:
                item = self.received.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"no event within {timeout} s") from None
            if item is None or comments or item.comment is None:
                return item

    def entries(self, count: int, timeout: float = 10.0) -> list[Received]:
        """The next `count` log entries (events with an id), skipping other events."""
        found: list[Received] = []
        while len(found) < count:
            item = self.next(timeout)
            assert item is not None, f"the stream ended after {len(found)} of {count} entries"
            if item.id is not None:
                found.append(item)
        return found

    def quiet(self, seconds: float) -> list[Received | None]:
        """Whatever arrives (comments aside) in the next `seconds`: nothing, when all is well."""
        found: list[Received | None] = []
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                item = self.received.get(timeout=left)
            except queue.Empty:
                break
            if item is None or item.comment is None:
                found.append(item)
        return found

    def close(self) -> None:
        """Drop the connection: the reader leaves at its next line (heartbeats keep coming)."""
        self._stop.set()
        self._thread.join(10)
        assert not self._thread.is_alive(), "the stream reader did not stop"
        self._client.close()


def close_all(streams: Iterable[EventStream]) -> None:
    """Close several streams: all told to stop first, so their readers leave together at
    their next lines rather than one heartbeat after another."""
    streams = list(streams)
    for stream in streams:
        stream._stop.set()
    for stream in streams:
        stream.close()
