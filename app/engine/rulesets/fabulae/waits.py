"""What a two-sided roll waits for from the other side before any die falls: the defense
of an attack or grapple (FAB-62), the passive side's talents and helpers (FAB-36)."""

from __future__ import annotations

import dataclasses
from typing import Literal

from pydantic import ConfigDict, Field

from app.engine.contract import Aftermath, Awaiting, LoggedEntry, Model, Table, Visibility
from app.engine.errors import InvalidInput, refusal


class FabulaeAwaiting(Model):
    """A choice the entry waits for: whose, by which follow-up, under which rule."""

    choice: Literal["defense", "passive"] = Field(
        description="defense: parry, dodge or none; passive: the passive side's talents and helpers"
    )
    character_id: str
    answer: str = Field(description="the follow-up kind that answers")
    rule: str


def waits_for(
    choice: Literal["defense", "passive"], character_id: str, answer: str, rule: str
) -> FabulaeAwaiting:
    """What the entry shows while it waits (every field set, so it is recorded whole)."""
    return FabulaeAwaiting(choice=choice, character_id=character_id, answer=answer, rule=rule)


def asking(after: Aftermath, awaiting: FabulaeAwaiting | None, note: str) -> Aftermath:
    """The aftermath of an entry that waits: it asks the other side (a roll request)."""
    if awaiting is None:
        return after
    asked = Awaiting(awaiting.character_id, awaiting.answer, awaiting.rule, note)
    return dataclasses.replace(after, awaits=asked)


def answer_visibility(asked: Visibility | None, waiting: LoggedEntry) -> Visibility:
    """An answer resolves the other side's roll: it keeps that roll's visibility, which
    the answering side does not choose."""
    if asked is not None and asked != waiting.visibility:
        raise InvalidInput(
            f"visibility: the answer keeps the visibility of the roll it answers "
            f"({waiting.visibility}); leave it out"
        )
    return waiting.visibility


class _Waits(Model):
    model_config = ConfigDict(extra="ignore")
    awaiting: FabulaeAwaiting | None = None


def waiting_entry(
    table: Table, follows: int, kinds: tuple[str, ...], answer: str, character_id: object
) -> tuple[LoggedEntry, FabulaeAwaiting]:
    """The entry an answer resolves and what it waits for: an entry of one of these kinds
    that waits, for this character, and has had no answer yet."""
    entry = table.entry(follows)
    waits = _Waits.model_validate(entry.result).awaiting if entry.kind in kinds else None
    if waits is None or waits.answer != answer:
        raise InvalidInput(
            f"{answer} answers a {' or '.join(kinds)} that waits for it; entry {entry.seq} "
            f"({entry.kind}) does not"
        )
    if str(character_id) != waits.character_id:
        raise InvalidInput(
            f"the {entry.kind} at seq {entry.seq} waits for character {waits.character_id}, "
            f"not {character_id}"
        )
    answered = [f.seq for f in table.follow_ups(entry.seq) if f.kind == answer]
    if answered:
        raise refusal(waits.rule, f"the {entry.kind} was answered already, at seq {answered[0]}")
    return entry, waits
