"""FAIR-21: the GM applies a hidden roll: the changes it holds to player characters'
sheets, then what it set off (a panic), rolled now that its consequences are told."""

from __future__ import annotations

from sqlmodel import Session

from app.engine.registry import Registry
from app.models import HeldEffects
from app.services.access import LockedAccess
from app.services.encounters import bind_set_off, sides_of_action
from app.services.log import SealedEntry, apply_held_effects, rotate_near_span_end
from app.services.rolls import set_off_when_applied


def apply_held(session: Session, access: LockedAccess, registry: Registry, seq: int) -> SealedEntry:
    """The `effects_applied` entry, with the entries the roll set off as `triggered`."""
    held = session.get(HeldEffects, (access.campaign.id, seq))
    sets_off = held is not None and held.sets_off and held.applied_seq is None
    entry = apply_held_effects(session, access, seq)
    if sets_off:
        sides = sides_of_action(session, access, seq)
        entry.triggered.extend(set_off_when_applied(session, access, registry, seq, sides))
        bind_set_off(session, access, registry, seq, entry.triggered)
        rotate_near_span_end(session, access)
    return entry
