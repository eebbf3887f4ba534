"""PostgreSQL's LISTEN: every process hears every other's commits.

One connection per process listens on the feed's channel; a notification names the
campaign and its log's head, and wakes that campaign's room, which reads the entries itself.
When the connection drops it reconnects by itself, then wakes every room: each reads from
the last seq it handed out, so nothing committed meanwhile is lost.
"""

from __future__ import annotations

import asyncio
import logging

import psycopg
from sqlalchemy.engine import make_url

from app.services.feed.broker import Broker
from app.services.feed.notices import CHANNEL, Notice

logger = logging.getLogger("nocturne.feed")
RETRY_SECONDS = (0.1, 0.5, 1.0, 2.0, 5.0)


def libpq_url(database_url: str) -> str:
    """The SQLAlchemy URL as psycopg takes it (no "+psycopg" driver suffix)."""
    return make_url(database_url).set(drivername="postgresql").render_as_string(hide_password=False)


async def listen(broker: Broker, database_url: str) -> None:
    """Hand every notification to the broker, for as long as the process runs."""
    failures = 0
    while True:
        try:
            connection = await psycopg.AsyncConnection.connect(
                libpq_url(database_url), autocommit=True
            )
            async with connection:
                await connection.execute(f"LISTEN {CHANNEL}")
                if failures:
                    logger.info("feed listener reconnected")
                failures = 0
                broker.wake_all()  # what committed before LISTEN took effect
                async for notification in connection.notifies():
                    try:
                        broker.hear(Notice.parse(notification.payload))
                    except (ValueError, KeyError, TypeError):
                        logger.warning("ignored a malformed feed notification")
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # the server restarted, the network dropped
            delay = RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)]
            failures += 1
            logger.warning("feed listener lost its connection (%s); retrying in %ss", exc, delay)
            await asyncio.sleep(delay)


def ensure_listening(broker: Broker, database_url: str) -> None:
    """Start this process's listener, once, on the running event loop."""
    if broker.listener is None or broker.listener.done():
        broker.listener = asyncio.create_task(listen(broker, database_url), name="feed-listener")
