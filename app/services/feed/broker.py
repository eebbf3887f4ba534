"""Each process's event streams: one room per followed campaign reads what is new once and
hands every stream its own view of it.

A notice (a commit in this process, or PostgreSQL's NOTIFY from any process) wakes the
campaign's room; the room reads the entries after the last one it handed out, renders them
once per sight (FAIR-13 redaction, as GET /log; viewers who may see them alike share it)
and queues them on each stream. A stream skips what it already sent and, when it finds a
gap (it fell behind), reads the log itself: every entry reaches it exactly once, in seq
order.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections import Counter
from dataclasses import dataclass, field

import anyio

from app.core.problems import ServiceUnavailable, TooManyRequests
from app.core.settings import get_settings
from app.services.feed.notices import Notice
from app.services.feed.reading import Batch, Event, Viewer, read_room

logger = logging.getLogger("nocturne.feed")
QUEUE_LIMIT = 1000  # batches a stream may lag behind before it reads the log itself


@dataclass(frozen=True)
class Ended:
    """The stream must close, and why (its member was removed, the campaign deleted)."""

    reason: str


@dataclass(eq=False)
class Subscriber:
    """One open stream."""

    campaign_id: uuid.UUID
    viewer: Viewer
    role: str
    queue: asyncio.Queue[list[Event] | Ended] = field(default_factory=asyncio.Queue)
    behind: bool = False  # its queue overflowed: it reads the log itself

    def offer(self, item: list[Event] | Ended) -> None:
        if isinstance(item, list) and self.queue.qsize() >= QUEUE_LIMIT:
            self.behind = True  # dropped: the stream sees the gap and reads the log
            return
        self.queue.put_nowait(item)


class Room:
    """A campaign followed in this process: its streams and the last seq handed out."""

    def __init__(self, broker: Broker, campaign_id: uuid.UUID, head: int) -> None:
        self.broker = broker
        self.campaign_id = campaign_id
        self.head = head
        self.subscribers: set[Subscriber] = set()
        self.topics: set[str] = set()
        self.woken = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    def wake(self, topics: set[str] | None = None) -> None:
        self.topics |= topics or set()
        self.woken.set()

    async def run(self) -> None:
        settings = get_settings()
        while self.subscribers:
            recheck = False
            try:
                await asyncio.wait_for(self.woken.wait(), settings.feed_recheck_seconds)
            except TimeoutError:
                recheck = True  # what a lost notification would have said
            self.woken.clear()
            topics, self.topics = self.topics, set()
            viewers = [(s.viewer, s.role) for s in self.subscribers]
            if not viewers:
                break
            try:
                batch = await anyio.to_thread.run_sync(
                    read_room,
                    self.campaign_id,
                    self.head,
                    viewers,
                    topics,
                    recheck,
                    limiter=self.broker.limiter,
                )
            except Exception:
                logger.exception("reading campaign %s for its streams failed", self.campaign_id)
                self.topics |= topics
                await asyncio.sleep(1.0)
                self.woken.set()
                continue
            self.hand_out(batch)
        self.broker.rooms.pop(self.campaign_id, None)

    def hand_out(self, batch: Batch) -> None:
        self.head = max(self.head, batch.head)
        for subscriber in list(self.subscribers):
            user_id = subscriber.viewer.user.id
            if user_id in batch.ended:
                subscriber.offer(Ended(batch.ended[user_id]))
                continue
            subscriber.role = batch.roles.get(user_id, subscriber.role)
            events = batch.events.get(subscriber.viewer.key)
            if events:
                subscriber.offer(events)
        if batch.more:
            self.woken.set()


class Broker:
    """This process's rooms. Notices arrive on the event loop (PostgreSQL's listener) or
    from the threads that commit (SQLite), and wake the room of their campaign."""

    def __init__(self) -> None:
        self.rooms: dict[uuid.UUID, Room] = {}
        self.loop: asyncio.AbstractEventLoop | None = None
        self.limiter = anyio.CapacityLimiter(2)
        self.per_user: Counter[uuid.UUID] = Counter()
        self.streams = 0
        self.listener: asyncio.Task[None] | None = None

    def join(self, subscriber: Subscriber, head: int) -> None:
        """Follow a campaign from now on: whatever commits after this reaches the stream.
        Refused past the per-user or per-process number of streams."""
        settings = get_settings()
        user_id = subscriber.viewer.user.id
        if self.per_user[user_id] >= settings.feed_streams_per_user:
            raise TooManyRequests(
                f"you already hold {settings.feed_streams_per_user} event streams open; "
                "close one (or follow several campaigns from one client) first"
            )
        if self.streams >= settings.feed_max_streams:
            raise ServiceUnavailable("this server holds all the event streams it can; retry soon")
        self.loop = asyncio.get_running_loop()
        room = self.rooms.get(subscriber.campaign_id)
        if room is None:
            room = self.rooms[subscriber.campaign_id] = Room(self, subscriber.campaign_id, head)
        room.subscribers.add(subscriber)
        if room.task is None or room.task.done():
            room.task = asyncio.create_task(room.run(), name=f"feed-room-{room.campaign_id}")
        self.per_user[user_id] += 1
        self.streams += 1

    def leave(self, subscriber: Subscriber) -> None:
        room = self.rooms.get(subscriber.campaign_id)
        if room is None or subscriber not in room.subscribers:
            return
        room.subscribers.discard(subscriber)
        self.per_user[subscriber.viewer.user.id] -= 1
        if self.per_user[subscriber.viewer.user.id] <= 0:
            del self.per_user[subscriber.viewer.user.id]
        self.streams -= 1
        if not room.subscribers:
            room.woken.set()  # its task sees nobody left and ends

    def hear(self, notice: Notice) -> None:
        """A notice, on the event loop's thread."""
        room = self.rooms.get(notice.campaign_id)
        if room is not None and (notice.seq > room.head or notice.topics):
            room.wake(notice.topics)

    def hear_from_thread(self, notice: Notice) -> None:
        """A notice from a committing thread (or the loop itself)."""
        loop = self.loop
        if loop is None or loop.is_closed() or notice.campaign_id not in self.rooms:
            return
        with contextlib.suppress(RuntimeError):  # the loop closed meanwhile
            loop.call_soon_threadsafe(self.hear, notice)

    def wake_all(self) -> None:
        """After the listener reconnected: every room reads what it may have missed."""
        for room in self.rooms.values():
            room.wake({"members"})

    async def close(self) -> None:
        tasks = [room.task for room in self.rooms.values() if room.task is not None]
        if self.listener is not None:
            tasks.append(self.listener)
        for task in tasks:
            task.cancel()
        for task in tasks:
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
        self.rooms.clear()
        self.listener = None


broker = Broker()
