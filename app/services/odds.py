"""The exact odds of a roll before it is made (issue 21): any roll kind's body, prepared
as POST /rolls prepares it, answered with the probability of every outcome its rules
define. Nothing is drawn or logged."""

from __future__ import annotations

import copy
import uuid
from typing import Any

from pydantic import BaseModel
from sqlmodel import Session

from app.core.problems import Forbidden, Unprocessable
from app.engine.odds import Odds
from app.engine.registry import Registry
from app.models import User
from app.services.access import CampaignAccess, access_and_characters
from app.services.commitments import commit_npc_values
from app.services.roll_requests import answering
from app.services.rolls import prepare_without_rolling
from app.services.table import named_ids


def kinds_with_odds(registry: Registry, system: str) -> list[str]:
    return sorted(kind.name for kind in registry.campaign_kinds(system) if kind.odds is not None)


def campaign_odds(
    session: Session,
    campaign_id: uuid.UUID,
    user: User,
    registry: Registry,
    body: BaseModel,
    request_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """`roll_odds` for a member of the campaign: the campaign, the membership and the sheets
    the body names read in one round trip (`access_and_characters`)."""
    # `_held` keeps the sheets in the session while the rules read them (weak references).
    access, _held = access_and_characters(session, campaign_id, user, named_ids([body]))
    return roll_odds(session, access, registry, body, request_id)


def roll_odds(
    session: Session,
    access: CampaignAccess,
    registry: Registry,
    body: BaseModel,
    request_id: uuid.UUID | None = None,
) -> dict[str, Any]:
    """{kind, rules, odds} for the roll this body asks for, as the caller would make it;
    with `request_id`, as the answer to that roll request, with the values the GM set."""
    kind_name = str(getattr(body, "kind"))  # noqa: B009 (every roll body has its kind)
    rules = registry.in_campaign(access.campaign.system, kind_name)
    gm_set: frozenset[str] = frozenset()
    if request_id is not None:
        reply = answering(session, access, rules.kind, body, request_id)
        body, gm_set = reply.body, reply.gm_set
    prepared, table = prepare_without_rolling(session, access, rules, body, gm_set)
    kind = rules.kind
    if not access.is_gm:
        # FAIR-13: what the rules read of entries hidden from the caller stays hidden.
        if table.read_visibility == "blind":
            raise Forbidden(
                f"these odds read an entry hidden from you; only the GM may ask for the odds "
                f"of this {kind.name}",
                rule="FAIR-13",
            )
        # FAIR-18: odds computed from an NPC's sheet (the GM's) would tell its values.
        request = copy.deepcopy(prepared.request.dump())
        if commit_npc_values(session, access.campaign.id, request, {}, [], kind.npc_values):
            raise Forbidden(
                f"these odds read an NPC's values, which only the GM may see (FAIR-18); "
                f"only the GM may ask for the odds of this {kind.name}",
                rule="FAIR-18",
            )
    if kind.odds is None:
        offered = kinds_with_odds(registry, access.campaign.system)
        listed = ", ".join(offered) if offered else "none yet"
        raise Unprocessable(
            f"odds for {kind.name} are not computed yet; this campaign's kinds with odds: "
            f"{listed}. POST .../rolls still rolls it"
        )
    odds: Odds = kind.odds(prepared.request, rules.version)
    return {"kind": kind.name, "rules": rules.rules_id, "odds": odds}
