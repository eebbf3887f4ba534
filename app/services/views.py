"""What each member may read of the log (FAIR-13), and an entry as a person reads it: the
one-line summary and the outcome's label in the caller's language."""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import Any, Protocol

from pydantic import ValidationError
from sqlmodel import Session, col, select

from app.engine.audit import redact
from app.engine.canonical import canonical_json
from app.engine.contract import FollowUpRecord, Language, Settling
from app.engine.dicenotation.grammar import MAX_SIDES
from app.engine.errors import EngineError
from app.engine.hidden import has_commitment, open_commitments
from app.engine.registry import Registry
from app.models import HeldEffects, LogEntry
from app.services.access import CampaignAccess
from app.services.structural import structural_summary

logger = logging.getLogger("nocturne.views")


class Entry(Protocol):
    """What the views need of an entry: a stored row or one just appended."""

    @property
    def seq(self) -> int: ...
    @property
    def visibility(self) -> str: ...
    @property
    def actor_id(self) -> str: ...
    def as_entry(self) -> dict[str, Any]: ...
    def key_attachment(self) -> dict[str, Any]:
        """A hidden entry's key and proof (FAIR-17), or nothing."""
        ...

    def value_disclosures(self) -> list[dict[str, Any]] | None:
        """What opens the entry's commitments (FAIR-18), or None."""
        ...

    def typed(self) -> tuple[Any, Any] | None:
        """The request and result as the rules made them, when the entry was just made."""
        ...


def can_see(entry: Entry, access: CampaignAccess) -> bool:
    """public: everyone; gm and self: the roller and the GM; blind: the GM only; and any
    entry the GM disclosed (FAIR-19)."""
    if entry.visibility == "public" or access.is_gm:
        return True
    if entry.visibility in ("gm", "self") and entry.actor_id == str(access.user.id):
        return True
    return entry.seq in access.disclosed()


def export_view(entry: Entry, access: CampaignAccess) -> dict[str, Any]:
    """The entry exactly as it was hashed, or redacted when this member may not see it; a
    hidden entry the member may see carries its key and proof (FAIR-17), outside the hash."""
    full = entry.as_entry()
    if not can_see(entry, access):
        return redact(full)
    full.update(entry.key_attachment())
    _attach_disclosures(full, entry, access)
    return full


def may_open(entry: Entry, access: CampaignAccess) -> bool:
    """FAIR-18: the values committed in an entry are the GM's (NPC sheets) until disclosed."""
    return entry.value_disclosures() is not None and (
        access.is_gm or entry.seq in access.disclosed()
    )


def _attach_disclosures(view: dict[str, Any], entry: Entry, access: CampaignAccess) -> None:
    if may_open(entry, access):
        view["disclosures"] = entry.value_disclosures()


def describe(
    entry: dict[str, Any],
    registry: Registry,
    language: Language,
    typed: tuple[Any, Any] | None = None,
) -> tuple[str, dict[str, str] | None]:
    """The entry's one-line summary and its outcome (stable code and label), derived for the
    API from its typed request and result (`typed`, when the caller holds them); never
    hashed."""
    kind = str(entry["kind"])
    structural = structural_summary(entry, language)
    if structural is not None:
        return structural, None
    try:
        rules = registry.for_entry(entry)
        if typed is not None:
            request, result = typed
        else:
            request = rules.kind.parse_request(entry["request"])
            result = rules.kind.parse_result(entry["result"])
        summary = rules.kind.summary(request, result, language)
        outcome = rules.kind.outcome(result) if rules.kind.outcome else None
    except (EngineError, ValidationError) as exc:
        # The entry still verifies or fails on its own; a view never fails for its words.
        logger.warning("no summary for entry %s (%s): %s", entry.get("seq"), kind, exc)
        return kind, None
    if outcome is None:
        return summary, None
    label = rules.ruleset.labels.get(outcome.group, {}).get(outcome.code)
    return summary, {"code": outcome.code, "label": label.text(language) if label else outcome.code}


def stored_dice(draws: Any) -> list[tuple[int, int]] | None:
    """The (sides, face) of each die an entry drew, or None when its draws are not the list
    of dice the service writes (the entry was changed outside the service)."""
    try:
        dice = [(draw["sides"], draw["face"]) for draw in draws]
    except (TypeError, KeyError):
        return None
    for sides, face in dice:
        if type(sides) is not int or type(face) is not int or not 1 <= sides <= MAX_SIDES:
            return None
    return dice


def as_written(entry: dict[str, Any]) -> bool:
    """Whether a stored entry has the shape the service writes (objects, lists, dice), so
    that its words can be derived; one changed outside the service is shown as stored."""
    return (
        isinstance(entry.get("request"), dict)
        and isinstance(entry.get("result"), dict)
        and isinstance(entry.get("effects"), list)
        and stored_dice(entry.get("draws")) is not None
    )


def public_view(
    entry: Entry, access: CampaignAccess, registry: Registry, language: Language
) -> dict[str, Any]:
    """The entry as this member may see it, with its summary, or redacted when they may not
    (FAIR-13); `follows` is always present when visible."""
    full = entry.as_entry()
    if not can_see(entry, access):
        return redact(full)  # exactly FAIR-13's fields: not even a summary
    if not as_written(full):  # changed outside the service: served as stored, marked unfit
        full.setdefault("follows", None)
        full.update(follow_ups=[], triggered=[], summary=str(full.get("kind")), outcome=None)
        return full
    disclosures = entry.value_disclosures()
    opened = open_commitments(full, disclosures, canonical_json) if disclosures else full
    # FAIR-18: whoever may see the committed values reads them in place (the export keeps
    # the hashed form); the others read the commitments.
    view = opened if may_open(entry, access) else full
    view.update(entry.key_attachment())
    _attach_disclosures(view, entry, access)
    view.setdefault("follows", None)
    # Issue 21: where in the campaign it was made, recorded beside the entry (not hashed).
    place = getattr(entry, "session", None), getattr(entry, "scene", None)
    if place[0] is not None and place[1] is not None:
        view["session"], view["scene"] = place
    view.setdefault("follow_ups", [])
    view.setdefault("triggered", [])
    view["summary"], view["outcome"] = describe(opened, registry, language, entry.typed())
    if view is full and has_commitment(full) and structural_summary(full, language) is None:
        # FAIR-18: the kind's words show what the rules read (« against Defense 13 »); a
        # caller holding commitments reads the names, the dice and the outcome.
        view["summary"] = committed_summary(full, view["outcome"])
    if full.get("label"):
        # What the roller said the roll is for comes first, as a table reads it out.
        colon = " :" if language == "fr" else ":"
        view["summary"] = f"{full['label']}{colon} {view['summary']}"
    return view


def committed_summary(entry: dict[str, Any], outcome: dict[str, str] | None) -> str:
    """« Mihail, Le comte — 6, 6: Blessure légère »: an entry's summary from what every
    member may read of it, the characters' names, the faces drawn and the outcome."""
    names: list[str] = []
    stack: list[Any] = [entry["request"]]
    while stack:
        node = stack.pop(0)
        if isinstance(node, dict):
            name = node.get("name")
            if node.get("kind") in ("pc", "npc") and isinstance(name, str):
                if name not in names:
                    names.append(name)
                continue
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    words = ", ".join(names) or str(entry["kind"])
    faces = ", ".join(str(draw["face"]) for draw in entry.get("draws") or [])
    if faces:
        words = f"{words} — {faces}"
    return f"{words}: {outcome['label']}" if outcome else words


def roll_view(
    entry: Any, access: CampaignAccess, registry: Registry, language: Language
) -> dict[str, Any]:
    """The answer to a roll: its entry as the caller may see it, with the entries its
    rules set off at once (`triggered`), each as the caller may see it."""
    view = public_view(entry, access, registry, language)
    if not view.get("redacted"):
        view["effects_held"] = entry.effects_held
        view["triggered"] = [public_view(t, access, registry, language) for t in entry.triggered]
        for shown, made in zip(view["triggered"], entry.triggered, strict=True):
            if not shown.get("redacted"):
                shown["effects_held"] = made.effects_held
    return view


@dataclass(frozen=True)
class FollowUps:
    """The follow-ups of some entries and which of them the GM holds, read once: each
    member's views take from them what that member may see (FAIR-21)."""

    direct: list[LogEntry]  # the entries that follow one of them
    nested: list[LogEntry]  # the entries that follow one of those
    held: set[int]  # those of them whose effects the GM holds

    def sight(self, access: CampaignAccess) -> tuple[bool, ...]:
        """Which follow-ups this member may see: members who see the same ones read the
        same annotations."""
        return tuple(can_see(row, access) for row in (*self.direct, *self.nested))


def read_follow_ups(session: Session, campaign_id: uuid.UUID, seqs: list[int]) -> FollowUps:
    """The follow-ups of the entries `seqs` of a campaign, for annotate_follow_ups."""
    direct = _follow_up_rows(session, campaign_id, seqs)
    nested = _follow_up_rows(session, campaign_id, [row.seq for row in direct])
    held = set(
        session.exec(
            select(HeldEffects.seq).where(
                col(HeldEffects.campaign_id) == campaign_id,
                col(HeldEffects.seq).in_(seqs),
                col(HeldEffects.applied_seq).is_(None),
            )
        ).all()
    )
    # Follow-ups changed outside the service are left out: each is shown unfit on its own.
    return FollowUps(
        [row for row in direct if isinstance(row.result, dict)],
        [row for row in nested if isinstance(row.result, dict)],
        held,
    )


def annotate_follow_ups(
    session: Session,
    access: CampaignAccess,
    views: list[dict[str, Any]],
    registry: Registry,
    language: Language,
    follow_ups: FollowUps | None = None,
) -> list[dict[str, Any]]:
    """Add to each visible entry the follow-ups it received and where each stands, where
    the entry itself finally stands (`final`), and whether the GM holds its effects
    (FAIR-21).

    Derived for the API only (never hashed, never exported): a Talisman invocation shows
    `pending` until the GM's ruling follows it, then the ruling's status; an action shows
    the tier its Talisman, Effleurement or Joker settled it on. `follow_ups`, when given,
    were read for (at least) these entries; otherwise they are read here.
    """
    seqs = [view["seq"] for view in views if not view.get("redacted")]
    if not seqs:
        return views
    if follow_ups is None:
        follow_ups = read_follow_ups(session, access.campaign.id, seqs)
    direct, nested = follow_ups.direct, follow_ups.nested
    # FAIR-21: a ruling the caller may not see (the GM's, on a Talisman) leaves the status
    # the caller can see, or none: its verdict would tell what the visibility hides.
    latest_status = {
        row.follows: row.result.get("status") for row in nested if can_see(row, access)
    }
    nested_by_parent: dict[int, list[FollowUpRecord]] = {}
    for row in nested:
        if can_see(row, access) and row.follows is not None:
            nested_by_parent.setdefault(row.follows, []).append(
                FollowUpRecord(
                    seq=row.seq, kind=row.kind, character_id=row.character_id, result=row.result
                )
            )
    settling: dict[int, list[Settling]] = {}
    for row in direct:
        if can_see(row, access) and row.follows is not None:
            settling.setdefault(row.follows, []).append(
                Settling(
                    seq=row.seq,
                    kind=row.kind,
                    result=row.result,
                    follow_ups=nested_by_parent.get(row.seq, []),
                )
            )
    by_parent: dict[int, list[dict[str, Any]]] = {}
    for row in direct:
        item: dict[str, Any] = {"seq": row.seq, "kind": row.kind, "status": None}
        if can_see(row, access):
            item["status"] = latest_status.get(row.seq) or row.result.get("status")
        assert row.follows is not None
        by_parent.setdefault(row.follows, []).append(item)
    for view in views:
        if not view.get("redacted"):
            view["follow_ups"] = by_parent.get(view["seq"], [])
            view["effects_held"] = view["seq"] in follow_ups.held
            final = final_of(view, settling.get(view["seq"], []), registry, language)
            if final is not None:
                view["final"] = final
    return views


def final_of(
    view: dict[str, Any], follow_ups: list[Settling], registry: Registry, language: Language
) -> dict[str, Any] | None:
    """Where the entry finally stands once its follow-ups are counted, or None when none
    changed it: its outcome's code and label, and the entry that settled it."""
    if not follow_ups:
        return None
    try:
        rules = registry.for_entry(view)
    except EngineError:
        return None
    settle = rules.kind.settle
    try:
        settled = settle(follow_ups) if settle is not None else None
    except (EngineError, ValidationError, KeyError, TypeError, ValueError) as exc:
        # A follow-up changed outside the service (a ruling without its tier): no verdict.
        logger.warning("no final standing for entry %s: %r", view.get("seq"), exc)
        return None
    if settled is None:
        return None
    label = rules.ruleset.labels.get(settled.outcome.group, {}).get(settled.outcome.code)
    text = label.text(language) if label else settled.outcome.code
    return {"code": settled.outcome.code, "label": text, "by": settled.by}


def _follow_up_rows(session: Session, campaign_id: uuid.UUID, seqs: list[int]) -> list[LogEntry]:
    if not seqs:
        return []
    return list(
        session.exec(
            select(LogEntry)
            .where(col(LogEntry.campaign_id) == campaign_id, col(LogEntry.follows).in_(seqs))
            .order_by(col(LogEntry.seq))
        ).all()
    )
