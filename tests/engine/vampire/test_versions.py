"""Rules version 2 changed results (the corrections of 2026-11-30: VAM-2, VAM-30); an entry
made under version 1 replays under version 1's rules. The same request, resolved by each.

(VAM-20's Storyteller's permission and VAM-30's chain, inferred retries and `new_action`
are decided while preparing a roll, before the rules resolve it: tests/api/vampire/
test_corrections.py.)
"""

from __future__ import annotations

from itertools import product
from typing import Any

import pytest

from app.engine.dice import ReplayDice
from app.engine.errors import InvalidInput, RuleRefusal
from app.engine.registry import DEFAULT_REGISTRY
from tests.engine.rules import Resolved, resolve
from tests.engine.vampire.requests import d10, make_sheet
from tests.engine.vampire.test_action import action_request, pool_request, retry_of

V1, V2 = "vampire@1", "vampire@2"
KIND = "vampire.action"


def replayed(request: dict[str, Any], source: ReplayDice, rules: str) -> Resolved:
    resolved = resolve(KIND, request, source, rules=rules)
    source.assert_consumed()
    return resolved


def both(request: dict[str, Any], *faces: int) -> tuple[Resolved, Resolved]:
    return replayed(request, d10(*faces), V1), replayed(request, d10(*faces), V2)


def refused_by_v2(request: dict[str, Any], rule: str, error: Any = RuleRefusal) -> str:
    """Version 2 refuses (naming `rule`) before drawing any die; the detail."""
    with pytest.raises(error) as caught:
        resolve(KIND, request, d10(), rules=V2)
    assert caught.value.rule == rule, caught.value.detail
    return str(caught.value.detail)


def test_the_vampire_ruleset_is_at_version_2_and_still_replays_version_1():
    assert DEFAULT_REGISTRY.in_campaign("vampire", KIND).rules_id == V2
    assert DEFAULT_REGISTRY.for_entry({"kind": KIND, "rules": V1}).version == 1
    # An entry from before rules versions is version 1's.
    assert DEFAULT_REGISTRY.for_entry({"kind": KIND, "request": {"system": "vampire"}}).version == 1


# --- VAM-30 (corrected): no retry penalty in tense situations -----------------------------


@pytest.mark.parametrize("failures", [1, 2, 4])
def test_VAM30_a_tense_retry_took_the_penalty_before_version_2(failures):
    request = pool_request(
        2, difficulty=6, tense=True, retry=retry_of(*["failure"] * failures, difficulty=6)
    )
    old, new = both(request, 7, 6)
    assert (old.result["difficulty"], old.result["retry_penalty"]) == (6 + failures, failures)
    assert (new.result["difficulty"], new.result["retry_penalty"]) == (6, 0)
    assert new.result["difficulty_label"] == "Moyen"
    # The dice meet the difficulty each version rolls against: 7 and 6 succeed at 6 only.
    assert new.result["successes"] == 2
    assert old.result["successes"] == (1 if failures == 1 else 0)


def test_VAM30_a_calm_retry_takes_the_same_penalty_in_both_versions():
    request = pool_request(2, difficulty=6, retry=retry_of("failure", "botch", difficulty=6))
    old, new = both(request, 8, 3)
    assert old == new
    assert (new.result["difficulty"], new.result["retry_penalty"]) == (8, 2)


def test_VAM30_a_tense_roll_without_a_retry_is_the_same_in_both_versions():
    request = pool_request(3, difficulty=7, tense=True)
    for faces in product((1, 6, 7, 10), repeat=3):
        old, new = both(request, *faces)
        assert old == new, faces


def test_VAM30_an_inferred_retry_resolves_as_a_named_one():
    named = pool_request(2, difficulty=6, retry=retry_of("failure", difficulty=6))
    inferred = pool_request(2, difficulty=6, retry={**retry_of("failure"), "inferred": True})
    assert replayed(named, d10(7, 7), V2) == replayed(inferred, d10(7, 7), V2)
    # The Storyteller's ruling of a new action is recorded and changes nothing of the dice.
    fresh = pool_request(2, difficulty=6, new_action=True)
    assert replayed(fresh, d10(7, 7), V2).result["retry_penalty"] == 0


def test_VAM30_a_chain_holding_a_success_was_retried_before_version_2():
    # Version 1 looked at the last attempt only; a success anywhere closes the chain.
    request = pool_request(2, difficulty=6, retry=retry_of("failure", "success", "failure"))
    old = replayed(request, d10(8, 8), V1)
    assert (old.result["difficulty"], old.result["retry_penalty"]) == (8, 2)
    assert "closes its chain" in refused_by_v2(request, "VAM-30")
    # A success as the last attempt is refused by both.
    closed = pool_request(2, retry=retry_of("failure", "success"))
    with pytest.raises(RuleRefusal):
        resolve(KIND, closed, d10(), rules=V1)
    refused_by_v2(closed, "VAM-30")


# --- VAM-2 (corrected): a misspelled ability is an error -------------------------------------


def test_VAM2_an_unknown_ability_rolled_the_attribute_alone_before_version_2():
    sheet = make_sheet("vigueur", 3, {"athletisme": 2})
    request = action_request(sheet, attribute="vigueur", ability="atletisme")
    old = replayed(request, d10(7, 7, 7), V1)
    assert (old.result["pool"], old.result["ability_value"]) == (3, 0)
    detail = refused_by_v2(request, "VAM-2", InvalidInput)
    assert "'atletisme'" in detail and "athletisme" in detail


@pytest.mark.parametrize(
    ("ability", "pool"),
    [
        ("athletisme", 5),  # listed on the sheet
        ("bagarre", 3),  # a V20 ability the sheet does not list: 0 dots
        ("thaumaturgie", 4),  # the campaign's own, listed on the sheet
        (None, 3),  # the attribute alone
    ],
)
def test_VAM2_a_known_ability_rolls_the_same_in_both_versions(ability, pool):
    sheet = make_sheet("vigueur", 3, {"athletisme": 2, "thaumaturgie": 1})
    request = action_request(sheet, attribute="vigueur", ability=ability)
    faces = (6,) * pool
    old, new = both(request, *faces)
    assert old == new and new.result["pool"] == pool


def test_VAM2_the_error_names_the_nearest_known_abilities_or_the_sheets():
    sheet = make_sheet("astuce", 3, {"subterfuge": 3, "thaumaturgie": 2})
    near = refused_by_v2(action_request(sheet, ability="taumaturgie"), "VAM-2", InvalidInput)
    assert "did you mean thaumaturgie?" in near
    far = refused_by_v2(action_request(sheet, ability="xylophone"), "VAM-2", InvalidInput)
    assert "did you mean" not in far and "sheet lists subterfuge, thaumaturgie" in far


def test_VAM2_an_unknown_ability_is_refused_before_the_pool_and_the_automatic_success():
    # Version 2 reads the ability first: no VAM-10 or VAM-20 refusal hides the misspelling.
    request = action_request(ability="subterfug", modifier=-5, take_automatic=True)
    refused_by_v2(request, "VAM-2", InvalidInput)
    with pytest.raises(RuleRefusal):
        resolve(KIND, request, d10(), rules=V1)
