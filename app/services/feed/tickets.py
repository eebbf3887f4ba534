"""Stream tickets: a browser's EventSource sends no header, so instead of the API key (which
a URL would leak to logs and history) it carries a ticket good for one stream, briefly."""

from __future__ import annotations

import hashlib
import secrets
import uuid
from datetime import timedelta

from sqlalchemy import delete
from sqlmodel import Session

from app.core.problems import Unauthorized
from app.models import StreamTicket, User, utcnow
from app.models.feed import StreamTicketPublic
from app.services.access import readable_access

TICKET_SECONDS = 60
TICKET_PREFIX = "nst_"
_tickets = StreamTicket.__table__  # type: ignore[attr-defined]


def hash_ticket(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


def issue(session: Session, campaign_id: uuid.UUID, user: User, path: str) -> StreamTicketPublic:
    """A ticket for one stream of this campaign, for a member who may read its log."""
    readable_access(session, campaign_id, user)
    now = utcnow()
    # Expired tickets are only ever deleted here: the table stays as small as its traffic.
    session.execute(
        delete(_tickets).where(_tickets.c.campaign_id == campaign_id, _tickets.c.expires_at < now)
    )
    ticket = TICKET_PREFIX + secrets.token_urlsafe(32)
    expires_at = now + timedelta(seconds=TICKET_SECONDS)
    session.add(
        StreamTicket(
            campaign_id=campaign_id,
            ticket_hash=hash_ticket(ticket),
            user_id=user.id,
            expires_at=expires_at,
        )
    )
    session.commit()
    return StreamTicketPublic(ticket=ticket, expires_at=expires_at, url=f"{path}?ticket={ticket}")


def redeem(session: Session, campaign_id: uuid.UUID, ticket: str) -> User:
    """The ticket's user; the ticket is spent whether or not it was still good."""
    spent = session.execute(
        delete(_tickets)
        .where(_tickets.c.campaign_id == campaign_id, _tickets.c.ticket_hash == hash_ticket(ticket))
        .returning(_tickets.c.user_id, _tickets.c.expires_at)
    ).first()
    session.commit()
    if spent is None:
        raise Unauthorized(
            "this stream ticket is unknown or already used: a ticket opens one stream, once; "
            "ask POST .../events/ticket for another"
        )
    user_id, expires_at = spent
    if expires_at.tzinfo is None:  # SQLite keeps no offset: stored in UTC
        expires_at = expires_at.replace(tzinfo=utcnow().tzinfo)
    if expires_at < utcnow():
        raise Unauthorized(
            f"this stream ticket expired (tickets last {TICKET_SECONDS} s); ask another"
        )
    user = session.get(User, user_id)
    if user is None:
        raise Unauthorized("this stream ticket's user no longer exists")
    session.expunge(user)
    return user
