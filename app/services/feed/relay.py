"""The feed's notices of rolls appended on the event loop, sent after their commit (issue 23).

A transaction that NOTIFYs takes, as it commits, a lock that PostgreSQL holds until its
commit is on disk, and the same lock for every notifying transaction of the server: rolls
that each sent their notice in their own statement committed one at a time, each waiting
for the WAL flush of the one before, where they would otherwise share one (at 64 clients,
10 to 14 sessions waited on that lock, `Lock:object`; bench/profile.md, stop 50). A roll on
a known head awaited on the loop (known_head.py) therefore commits without a NOTIFY, and
hands its notice to this process's relay, which sends every notice waiting in one statement
of its own. That statement's transaction writes nothing to the WAL before its commit, so
PostgreSQL does not wait for a flush to commit it, and it holds the lock only while it
queues the notices. The rolls' transactions are unchanged: a 201 still means the roll is on
disk.

A notice only wakes its campaign's rooms in every process, which then read the log from the
last seq they handed out (broker.py): one that comes late, twice, or merged with the next
one of its campaign loses nothing. So the relay keeps one notice per campaign (its newest
head, every topic), and one it could not send (the server out of reach) is kept and sent
with the next ones, after a pause; as serving stops, the relay has `DRAIN_SECONDS` to send
what it holds. Past that, or after a crash, the other processes' streams read the entry at
their campaign's next notice or their periodic re-read (`FEED_RECHECK_SECONDS`). This
process's own rooms heard the roll already, as after a commit (notices.sent_in_autocommit).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
import weakref

from sqlalchemy.exc import SQLAlchemyError

from app.core.loop_connections import LoopConnections, NotConnected
from app.services.feed.notices import CHANNEL, Notice

logger = logging.getLogger("nocturne.feed")
RETRY_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)
DRAIN_SECONDS = 2.0  # as serving stops: how long the notices not sent yet may take
SEND_NOTICES = (
    "SELECT count(*) FROM (SELECT pg_notify(%(channel)s, payload) "
    "FROM unnest(%(payloads)s::text[]) AS payload) AS sent"
)


class NoticeRelay:
    """Sends notices, one statement at a time, on one loop's connections to the database."""

    def __init__(self, connections: LoopConnections) -> None:
        self._connections = connections
        self._waiting: dict[uuid.UUID, Notice] = {}
        self._sending: asyncio.Task[None] | None = None

    def send(self, notice: Notice) -> None:
        """Send `notice` once the statement under way, if any, is done (on the loop)."""
        _merge(self._waiting, notice)
        if self._sending is None or self._sending.done():
            self._sending = asyncio.get_running_loop().create_task(
                self._send_waiting(), name="feed-relay"
            )

    @property
    def waiting(self) -> list[Notice]:
        """The notices not sent yet, one per campaign."""
        return list(self._waiting.values())

    async def drain(self, seconds: float = DRAIN_SECONDS) -> None:
        """Wait until every notice given is sent, for at most `seconds` (as serving stops);
        then stop trying, saying how many were not sent."""
        sending = self._sending
        if sending is None or sending.done():
            return
        try:
            await asyncio.wait_for(asyncio.shield(sending), seconds)
        except TimeoutError:
            sending.cancel()
            logger.warning(
                "the feed's notices of %d campaigns were not sent before shutdown",
                len(self._waiting),
            )

    async def _send_waiting(self) -> None:
        failures = 0
        while self._waiting:
            notices, self._waiting = self._waiting, {}
            values = {"channel": CHANNEL, "payloads": [n.payload() for n in notices.values()]}
            try:
                await self._connections.first(SEND_NOTICES, values)
            except Exception as exc:  # a server restarted or out of reach, and any other
                for notice in notices.values():
                    _merge(self._waiting, notice)
                delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
                failures += 1
                error = exc.error if isinstance(exc, NotConnected) else exc
                logger.warning(
                    "the feed's notices of %d campaigns were not sent (%s); retrying in %ss",
                    len(self._waiting),
                    type(error).__name__,
                    delay,
                    exc_info=not isinstance(error, SQLAlchemyError),  # not a database's: a bug
                )
                await asyncio.sleep(delay)
            except BaseException:  # cancelled: kept, for whoever drains or sends next
                for notice in notices.values():
                    _merge(self._waiting, notice)
                raise
            else:
                failures = 0


def _merge(waiting: dict[uuid.UUID, Notice], notice: Notice) -> None:
    """One notice per campaign: the newest head and every topic (a new object: the notice
    given may be held by this process's listeners)."""
    kept = waiting.get(notice.campaign_id)
    seq, topics = notice.seq, set(notice.topics)
    if kept is not None:
        seq, topics = max(seq, kept.seq), topics | kept.topics
    waiting[notice.campaign_id] = Notice(notice.campaign_id, seq, topics)


_relays: weakref.WeakKeyDictionary[LoopConnections, NoticeRelay] = weakref.WeakKeyDictionary()


def relay_for(connections: LoopConnections) -> NoticeRelay:
    """The relay sending on `connections` (one per loop and database), drained before they
    close as serving stops."""
    relay = _relays.get(connections)
    if relay is None:
        relay = _relays[connections] = NoticeRelay(connections)
        connections.before_close(relay.drain)
    return relay
