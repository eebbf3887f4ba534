"""Vampire roll kinds: who may act, and what each rule reads, recorded for replay."""

from __future__ import annotations

from typing import Any

from sqlmodel import Session

from app.core.problems import Forbidden, Unprocessable
from app.models.vampire import VampireActionCreate, VampireWillpowerRestoreCreate
from app.services.access import CampaignAccess, get_campaign_character
from app.services.log import SealedEntry, record_resolution
from app.services.rolls import (
    clock_request,
    controlled_character,
    load_entry,
    roll_handler,
    snapshot,
)


def retry_chain(
    session: Session, access: CampaignAccess, body: VampireActionCreate
) -> list[dict[str, Any]]:
    """VAM-30: the earlier attempts of the same action, oldest first."""
    chain: list[dict[str, Any]] = []
    seq: int | None = body.retry_of
    while seq is not None:
        entry = load_entry(session, access, seq)
        request = entry["request"]
        same = (
            entry["kind"] == "vampire.action"
            and entry["character_id"] == str(body.character_id)
            and request["attribute"] == body.attribute
            and request.get("ability") == body.ability
        )
        if not same:
            raise Unprocessable(
                f"VAM-30: retry_of {seq} is not the same action (same character, attribute "
                "and ability)"
            )
        chain.insert(
            0,
            {
                "seq": seq,
                "outcome": entry["result"]["outcome"],
                "difficulty": int(request.get("difficulty") or 6),
                "visibility": entry["visibility"],
            },
        )
        seq = (request.get("retry") or {}).get("of")
    first = chain[0]["difficulty"]
    if body.difficulty is not None and body.difficulty != first:
        raise Unprocessable(
            f"VAM-30: a retry is the same action, at its difficulty ({first}); the penalty is "
            "added by the rules"
        )
    return chain


@roll_handler("vampire.action")
def action(session: Session, access: CampaignAccess, body: VampireActionCreate) -> SealedEntry:
    character = controlled_character(session, access, body.character_id)
    if not access.is_gm and body.explosive is not None:
        raise Forbidden("VAM-14: only the Storyteller sets or clears explosive")
    if not access.is_gm and body.waive_retry_penalty:
        raise Forbidden("VAM-30: only the Storyteller waives the retry penalty")
    request: dict[str, Any] = {
        **clock_request(access),
        "character": snapshot(character),
        "options": access.campaign.options,
        **body.model_dump(
            mode="json",
            include={
                "attribute",
                "ability",
                "modifier",
                "difficulty",
                "explosive",
                "tense",
                "willpower",
                "take_automatic",
            },
        ),
    }
    visibility = body.visibility or "public"
    if body.retry_of is not None:
        chain = retry_chain(session, access, body)
        request["retry"] = {"of": body.retry_of, "chain": chain, "waived": body.waive_retry_penalty}
        visibility = body.visibility or chain[-1]["visibility"]
    if body.take_automatic and body.willpower:
        raise Unprocessable("VAM-20/21: an automatic success rolls no dice; Willpower adds nothing")
    return record_resolution(
        session,
        access,
        kind=body.kind,
        request=request,
        character_id=character.id,
        visibility=visibility,
        follows=body.retry_of,
    )


@roll_handler("vampire.willpower_restore")
def willpower_restore(
    session: Session, access: CampaignAccess, body: VampireWillpowerRestoreCreate
) -> SealedEntry:
    access.require_gm("restore Willpower")
    character = get_campaign_character(session, access, body.character_id)
    request = {
        **clock_request(access),
        "character": snapshot(character),
        "amount": body.amount,
    }
    return record_resolution(
        session,
        access,
        kind=body.kind,
        request=request,
        character_id=character.id,
        visibility=body.visibility,
    )
