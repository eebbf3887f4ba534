"""Log verification and export: long reads kept off the roll path.

They run in a small thread pool of their own (HEAVY_READ_THREADS per worker), never in the
threads that serve rolls, on read-only sessions; one user runs at most HEAVY_READS_PER_USER
of them at once (429 past that); and a verification of a head already verified is answered
from a cache keyed by that head, since the log up to a head never changes (FAIR-12).
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections import Counter, OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from functools import cache
from typing import Any, TypeVar

from sqlalchemy.exc import SQLAlchemyError
from sqlmodel import Session

from app.core.problems import TooManyRequests
from app.core.settings import get_settings

T = TypeVar("T")
Head = tuple[uuid.UUID, int, str]  # campaign, last seq, last hash

CACHED_REPORTS = 512


@cache
def _executor() -> ThreadPoolExecutor:
    threads = get_settings().heavy_read_threads
    return ThreadPoolExecutor(threads, thread_name_prefix="heavy-read")


class UserSlots:
    """How many heavy reads each user is running in this process."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._running: Counter[uuid.UUID] = Counter()

    def take(self, user_id: uuid.UUID) -> None:
        """One more for `user_id`, or 429 when they run as many as they may."""
        allowed = get_settings().heavy_reads_per_user
        with self._lock:
            if self._running[user_id] >= allowed:
                raise TooManyRequests(
                    f"you already run {allowed} log verification or export at once; "
                    "retry when it ends",
                    headers={"Retry-After": "1"},
                )
            self._running[user_id] += 1

    def give_back(self, user_id: uuid.UUID) -> None:
        with self._lock:
            self._running[user_id] -= 1
            if not self._running[user_id]:
                del self._running[user_id]

    def released_once(self, user_id: uuid.UUID) -> Callable[[], None]:
        """A release that gives the slot back once, however often it is called."""
        done = threading.Event()

        def release() -> None:
            if not done.is_set():
                done.set()
                self.give_back(user_id)

        return release

    @contextmanager
    def hold(self, user_id: uuid.UUID) -> Iterator[None]:
        self.take(user_id)
        try:
            yield
        finally:
            self.give_back(user_id)


class ReportCache:
    """Verification reports by head, the least recently used dropped first."""

    def __init__(self, size: int = CACHED_REPORTS) -> None:
        self._lock = threading.Lock()
        self._reports: OrderedDict[Head, Any] = OrderedDict()
        self._size = size

    def get(self, head: Head) -> Any | None:
        with self._lock:
            report = self._reports.get(head)
            if report is not None:
                self._reports.move_to_end(head)
            return report

    def put(self, head: Head, report: Any) -> None:
        with self._lock:
            self._reports[head] = report
            self._reports.move_to_end(head)
            while len(self._reports) > self._size:
                self._reports.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._reports.clear()


slots = UserSlots()
reports = ReportCache()


async def run(call: Callable[[], T]) -> T:
    """`call` in the heavy-read pool, awaited without holding a request thread."""
    return await asyncio.wrap_future(_executor().submit(call))


async def iterate(items: Iterator[T], batch: int = 500) -> AsyncIterator[list[T]]:
    """`items` pulled a batch at a time in the heavy-read pool."""

    def take() -> list[T]:
        return [item for _, item in zip(range(batch), items, strict=False)]

    while chunk := await run(take):
        yield chunk


def end_reads(session: Session) -> None:
    """End the session's read transaction, giving its connection back (in a pool thread).

    A READ ONLY transaction on PostgreSQL ends in COMMIT (issue 23): the server refused to
    write any row in it, so a COMMIT keeps no row a ROLLBACK would undo, and psycopg drops
    every statement prepared on the connection at a ROLLBACK, which the rolls served next
    on that pooled connection would then prepare again."""
    if not session.in_transaction():
        return
    session.expunge_all()
    if session.is_active and _read_only_on_postgres(session):
        try:
            session.commit()
            return
        except SQLAlchemyError:
            pass  # the connection was lost mid-read: rolled back, the read's own error kept
    session.rollback()


def _read_only_on_postgres(session: Session) -> bool:
    # The bind, not session.connection(), which could wait for the pool again when the
    # read's first statement had timed out waiting for a connection.
    bind = session.get_bind()
    return bind.dialect.name == "postgresql" and bool(
        bind.get_execution_options().get("postgresql_readonly")
    )
