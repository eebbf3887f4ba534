"""The GM reveals hidden entries (FAIR-19): a public `disclosed` entry publishes their keys,
proofs and value disclosures, and from then on every member reads them whole, re-derives
their dice and replays them."""

from __future__ import annotations

from typing import Any

from sqlalchemy import insert
from sqlmodel import Session, col, select

from app.core.problems import Conflict, Unprocessable
from app.models import DisclosedEntry, LogEntry
from app.services.access import LockedAccess
from app.services.log import SealedEntry, append_entry, current_epoch

MAX_DISCLOSED = 1000
_disclosed_table = DisclosedEntry.__table__  # type: ignore[attr-defined]


def disclose(session: Session, access: LockedAccess, seqs: list[int]) -> SealedEntry:
    """Disclose these hidden entries to every member (GM only); 409 when none is left hidden."""
    access.require_gm("disclose hidden entries")
    wanted = sorted(set(seqs))
    if not wanted:
        raise Unprocessable("name at least one entry to disclose")
    if len(wanted) > MAX_DISCLOSED:
        raise Unprocessable(f"disclose at most {MAX_DISCLOSED} entries at once")
    rows = session.exec(
        select(LogEntry).where(
            col(LogEntry.campaign_id) == access.campaign.id, col(LogEntry.seq).in_(wanted)
        )
    ).all()
    missing = sorted(set(wanted) - {row.seq for row in rows})
    if missing:
        raise Unprocessable(f"no entry with seq {', '.join(map(str, missing[:10]))} in this log")
    already = access.disclosed()
    hidden = sorted(
        (row for row in rows if _holds_secrets(row) and row.seq not in already),
        key=lambda row: row.seq,
    )
    if not hidden:
        raise Conflict(
            "nothing to disclose: every entry named is public with no committed value, "
            "or already disclosed"
        )
    disclosed = [_published(row) for row in hidden]
    entry = append_entry(
        session,
        access.campaign,
        kind="disclosed",
        actor_id=access.user.id,
        epoch=current_epoch(session, access).number,
        request={"seqs": [row.seq for row in hidden]},
        result={"entries": disclosed},
    )
    session.execute(
        insert(_disclosed_table),
        [
            {"campaign_id": access.campaign.id, "seq": row.seq, "disclosed_seq": entry.seq}
            for row in hidden
        ],
    )
    already.update(row.seq for row in hidden)
    return entry


def _holds_secrets(row: LogEntry) -> bool:
    """Hidden from some member: its visibility (FAIR-13) or committed values (FAIR-18)."""
    return row.visibility != "public" or bool(row.disclosures)


def _published(row: LogEntry) -> dict[str, Any]:
    """What a disclosure publishes of an entry: its key and proof, and what opens its
    commitments (FAIR-19)."""
    published: dict[str, Any] = {"seq": row.seq, "epoch": row.epoch, **row.key_attachment()}
    if row.disclosures:
        published["disclosures"] = row.disclosures
    return published
