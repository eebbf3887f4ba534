"""Statistics of a campaign's rolls (issue 21): counts, observed against expected outcome
distributions (the expected one summed from each roll's own exact odds), a goodness-of-fit
test, the mean luck percentile, and per die size the face counts with a uniformity test.

A member's statistics count only what they may see (FAIR-13); a roll they see whose odds
would read values they may not (FAIR-18) is counted but left out of the outcomes compared,
observed and expected alike, and said so under `not_compared`. The GM's count everything.
The rows are read as plain columns and each distinct request's odds computed once (its
timing: bench/stats.py).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction
from itertools import pairwise
from typing import Any

from pydantic import ValidationError
from sqlalchemy import select
from sqlmodel import Session

from app.engine.canonical import canonical_json
from app.engine.contract import Labels
from app.engine.errors import EngineError
from app.engine.hidden import has_commitment, open_commitments
from app.engine.odds import Odds, luck, luck_by_value, luck_by_values
from app.engine.registry import Registry, Rules
from app.models import LogEntry
from app.services.access import CampaignAccess
from app.services.log import EntryFilters
from app.services.views import stored_dice

_log = LogEntry.__table__  # type: ignore[attr-defined]
_COLUMNS = [
    _log.c.seq,
    _log.c.kind,
    _log.c.visibility,
    _log.c.actor_id,
    _log.c.character_id,
    _log.c.rules,
    _log.c.session,
    _log.c.scene,
    _log.c.request,
    _log.c.result,
    _log.c.draws,
    _log.c.disclosures,
]
_READ = ("/request/", "/result/")
GROUPS = ("actor", "character", "kind", "session", "scene")
# Pearson's chi-square is an approximation; below this expected count it is a poor one.
SMALL_EXPECTED = 5.0
# Why a visible roll is left out of the outcomes compared with the odds.
HIDDEN_VALUES = {
    "reason": "hidden_values",
    "rule": "FAIR-18",
    "detail": "its odds would read values committed from a sheet you may not read",
}
AWAITING = {
    "reason": "awaiting",
    "rule": "FAB-36",
    "detail": "it asked the other side for an answer: that answer is the roll that counts, "
    "compared under its own kind once it is made",
}
UNFIT = {
    "reason": "unfit",
    "rule": "FAIR-14",
    "detail": "its stored content does not fit its kind: the log was changed outside the "
    "service, and GET .../log/verify names the first entry that fails; its dice and outcome "
    "are not counted",
}


@dataclass
class _Row:
    seq: int
    kind: str
    actor_id: str
    character_id: str | None
    rules: str | None
    session: int
    scene: int
    request: dict[str, Any]
    result: dict[str, Any]
    draws: list[dict[str, int]]
    readable: bool  # whether the caller reads every value its odds would use (FAIR-18)
    request_key: str | None = None  # its request's JSON, keyed on once written (_Odds)


@dataclass
class _KindTally:
    rolls: int = 0
    with_odds: int = 0
    # FAIR-18: rolls the caller sees whose values they may not all read: left out of the
    # outcomes, observed and expected alike (an outcome counted on one side only would skew
    # the fit).
    hidden: int = 0
    awaiting: int = 0  # attacks and opposed rolls still waiting for the answer that counts
    unfit: int = 0  # stored entries changed outside the service (FAIR-12/14)
    observed: dict[str, int] = field(default_factory=dict)
    # The outcomes of the rolls whose odds are known: what the expected counts compare to.
    compared: dict[str, int] = field(default_factory=dict)
    expected: dict[str, float] = field(default_factory=dict)
    # Each distinct worst-to-best order the rolls' odds give, the label group each observed
    # code was read in, and the ruleset's labels: the outcomes' order, whatever the rolls'.
    orders: set[tuple[str, ...]] = field(default_factory=set)
    groups: dict[str, str] = field(default_factory=dict)
    labels: Labels = field(default_factory=dict)
    percentiles: float = 0.0

    def order(self) -> list[str]:
        return outcome_order(self.orders, self.observed, self._label_rank)

    def _label_rank(self, code: str) -> tuple[int, int, int, str]:
        """Where the ruleset's labels list a code (in the group it was read in, else the
        first group that has it); a code without a label (an odds' no-outcome: unhurt)
        comes first."""
        groups = list(self.labels)
        holding = [group for group in groups if code in self.labels[group]]
        seen = self.groups.get(code)
        if seen in holding:
            holding = [seen]
        if not holding:
            return (0, 0, 0, code)
        group = holding[0]
        return (1, groups.index(group), list(self.labels[group]).index(code), code)


def outcome_order(
    orders: Iterable[tuple[str, ...]], codes: Iterable[str], rank: Callable[[str], Any]
) -> list[str]:
    """A kind's outcomes worst to best, as its rolls' odds order them, whatever order the
    rolls came in: every distinct order merged, ties (codes no order places) broken by
    `rank`. When the orders contradict each other (vampire.damage: an attack's worst is a
    hazard's best, VAM-40), no order is worst to best for all: the ruleset's label order
    (`rank`) is used instead."""
    nodes = set(codes)
    for order in orders:
        nodes.update(order)
    better: dict[str, set[str]] = {code: set() for code in nodes}
    for order in orders:
        for worse, next_better in pairwise(order):
            better[worse].add(next_better)
    waiting = {code: 0 for code in nodes}
    for code in nodes:
        for after in better[code]:
            waiting[after] += 1
    ready = sorted((code for code in nodes if waiting[code] == 0), key=rank)
    merged: list[str] = []
    while ready:
        code = ready.pop(0)
        merged.append(code)
        for after in better[code]:
            waiting[after] -= 1
            if waiting[after] == 0:
                ready.append(after)
        ready.sort(key=rank)
    if len(merged) < len(nodes):  # a cycle: the orders disagree
        return sorted(nodes, key=rank)
    return merged


def fit(observed: list[int], expected: list[float]) -> dict[str, Any] | None:
    """Pearson's chi-square of observed counts against expected ones, with its p-value;
    None when there is nothing to test (fewer than two possible categories). An observed
    count where none was possible makes the p-value 0."""
    cells = [(o, e) for o, e in zip(observed, expected, strict=True) if e > 0 or o > 0]
    possible = [(o, e) for o, e in cells if e > 0]
    if len(possible) < 2:
        return None
    if any(e <= 0 for _, e in cells):
        return {
            "statistic": None,
            "degrees_of_freedom": len(possible) - 1,
            "p_value": 0.0,
            "approximate": False,
            "note": "an outcome the odds give no chance was observed",
        }
    statistic = sum((o - e) ** 2 / e for o, e in possible)
    dof = len(possible) - 1
    return {
        "statistic": statistic,
        "degrees_of_freedom": dof,
        "p_value": chi_square_survival(dof, statistic),
        "approximate": any(e < SMALL_EXPECTED for _, e in possible),
        "note": None,
    }


def chi_square_survival(degrees_of_freedom: int, statistic: float) -> float:
    """P(X >= statistic) for X chi-square distributed: scipy's, imported on first use (it
    adds most of a second to a process's start)."""
    from scipy.special import chdtrc

    return float(chdtrc(degrees_of_freedom, statistic))


@dataclass(frozen=True)
class _Known:
    """One request's odds, as the statistics add them up: worst to best, each outcome's
    probability and the luck percentile a roll with that outcome has."""

    order: tuple[str, ...]
    probability: dict[str, float]
    percentile: dict[str, float]
    no_outcome: str | None  # the code of a result the rules give no outcome (unhurt)
    ranked: Odds | None  # a kind without outcomes: its odds rank a result by a value
    # ...and each value's (probability, percentile), read once for all its rolls.
    by_value: dict[int, tuple[float, float]]


class _Odds:
    """Each distinct request's odds, computed once (a sheet rarely changes between rolls)."""

    def __init__(self, registry: Registry) -> None:
        self._registry = registry
        self._odds: dict[tuple[str, str], _Known | None] = {}
        self._fits: dict[tuple[str, str], bool] = {}
        self._rules: dict[tuple[str, str | None], Rules | None] = {}

    def rules(self, row: _Row) -> Rules | None:
        key = (row.kind, row.rules)
        if key not in self._rules:
            entry = {"kind": row.kind, "request": row.request}
            if row.rules is not None:
                entry["rules"] = row.rules
            try:
                self._rules[key] = self._registry.for_entry(entry)
            except EngineError:
                self._rules[key] = None
        return self._rules[key]

    def request_fits(self, rules: Rules, row: _Row) -> bool:
        """Whether the row's request fits its kind (as GET /log would type it), once per
        distinct request."""
        key = self._key(rules, row)
        fits = self._fits.get(key)
        if fits is None:
            if rules.kind.odds is not None:
                self.of(rules, row)  # parses the request once for both
                return self._fits[key]
            try:
                rules.kind.parse_request(row.request)
                fits = True
            except ValidationError:
                fits = False
            except EngineError:
                fits = True  # the rules' own refusal: counted as before
            self._fits[key] = fits
        return fits

    def _key(self, rules: Rules, row: _Row) -> tuple[str, str]:
        if row.request_key is None:
            row.request_key = json.dumps(row.request, sort_keys=True)
        return (rules.rules_id + "/" + rules.kind.name, row.request_key)

    def of(self, rules: Rules, row: _Row) -> _Known | None:
        kind = rules.kind
        if kind.odds is None:
            return None
        key = self._key(rules, row)
        if key not in self._odds:
            try:
                request = kind.parse_request(row.request)
            except ValidationError:
                self._fits[key], self._odds[key] = False, None
                return None
            except EngineError:
                self._fits[key], self._odds[key] = True, None
                return None
            self._fits[key] = True
            try:
                odds = kind.odds(request, rules.version)
                codes = tuple(item.code for item in odds.outcomes)
                self._odds[key] = _Known(
                    order=codes,
                    probability={item.code: float(Fraction(item.exact)) for item in odds.outcomes},
                    percentile={code: luck(odds, code).percentile for code in codes},
                    no_outcome=odds.no_outcome,
                    ranked=odds if odds.ranked_by is not None else None,
                    by_value=luck_by_values(odds) if odds.ranked_by is not None else {},
                )
            except (EngineError, ValidationError):
                self._odds[key] = None
        return self._odds[key]


def _rows(
    session: Session, access: CampaignAccess, registry: Registry, filters: EntryFilters
) -> list[_Row]:
    conditions = [
        _log.c.campaign_id == access.campaign.id,
        _log.c.kind.in_(registry.roll_kind_names()),
        *filters.conditions(),
    ]
    query = select(*_COLUMNS).where(*conditions).order_by(_log.c.seq)
    user = str(access.user.id)
    rows: list[_Row] = []
    for found in session.execute(query):
        seq, kind, visibility, actor, character, rules, sess, scene = found[:8]
        request, result, draws, disclosures = found[8:]
        if not (
            access.is_gm
            or visibility == "public"
            or (visibility in ("gm", "self") and actor == user)
            or seq in access.disclosed()
        ):
            continue  # FAIR-13: not even counted
        readable = True
        if disclosures:
            if access.is_gm or seq in access.disclosed():
                # FAIR-18: whoever may read the values reads them opened; the effects'
                # commitments are not read here.
                read = [d for d in disclosures if str(d.get("path", "")).startswith(_READ)]
                try:
                    opened = open_commitments(
                        {"request": request, "result": result}, read, canonical_json
                    )
                    request, result = opened["request"], opened["result"]
                except EngineError:
                    pass  # left committed: counted, its outcome not compared
            readable = not has_commitment(request) and not has_commitment(result)
        rows.append(
            _Row(seq, kind, actor, character, rules, sess, scene, request, result, draws, readable)
        )
    return rows


def _summarize(rows: Iterable[_Row], odds: _Odds) -> dict[str, Any]:
    kinds: dict[str, _KindTally] = {}
    faces: dict[int, list[int]] = {}
    total = 0
    lucky = 0
    hidden = awaiting = unfit = 0
    percentile_sum = 0.0
    for row in rows:
        total += 1
        tally = kinds.setdefault(row.kind, _KindTally())
        tally.rolls += 1
        dice = stored_dice(row.draws)
        fits = dice is not None and isinstance(row.result, dict) and isinstance(row.request, dict)
        rules, result = None, None
        if fits and row.readable and row.result.get("awaiting") is None:
            rules = odds.rules(row)
            if rules is not None:
                try:
                    result = rules.kind.parse_result(row.result)
                    fits = odds.request_fits(rules, row)
                except ValidationError:
                    fits = False
                except EngineError:
                    rules = None
        if not fits or dice is None:
            tally.unfit += 1  # changed outside the service: neither its dice nor its outcome
            unfit += 1
            continue
        for sides, face in dice:
            counts = faces.get(sides)
            if counts is None:
                counts = faces[sides] = [0] * sides
            if 1 <= face <= sides:
                counts[face - 1] += 1
        if row.result.get("awaiting") is not None:
            # FAB-62/FAB-36: nothing rolled yet; the answer is the roll that counts.
            tally.awaiting += 1
            awaiting += 1
            continue
        if not row.readable:
            tally.hidden += 1  # FAIR-18: seen and counted; its outcome not compared
            hidden += 1
            continue
        if rules is None or result is None:
            continue
        tally.labels = rules.ruleset.labels
        known = odds.of(rules, row)
        if known is not None and known.ranked is not None:
            # Generic dice: no outcomes to compare, a luck percentile by the total.
            value = getattr(result, known.ranked.ranked_by or "", None)
            if isinstance(value, int):
                ranked = known.by_value.get(value)
                percentile = ranked[1] if ranked else luck_by_value(known.ranked, value).percentile
                tally.with_odds += 1
                tally.percentiles += percentile
                percentile_sum += percentile
                lucky += 1
            continue
        found = rules.kind.outcome(result) if rules.kind.outcome is not None else None
        code = found.code if found is not None else known.no_outcome if known else None
        if code is None:
            continue
        tally.observed[code] = tally.observed.get(code, 0) + 1
        if found is not None:
            tally.groups.setdefault(code, found.group)
        if known is None or code not in known.percentile:
            continue  # no odds, or an outcome they do not define: counted, not compared
        tally.with_odds += 1
        tally.compared[code] = tally.compared.get(code, 0) + 1
        for expected_code, p in known.probability.items():
            tally.expected[expected_code] = tally.expected.get(expected_code, 0.0) + p
        tally.orders.add(known.order)
        percentile = known.percentile[code]
        tally.percentiles += percentile
        percentile_sum += percentile
        lucky += 1
    return {
        "rolls": total,
        "rolls_with_odds": lucky,
        "mean_luck_percentile": percentile_sum / lucky if lucky else None,
        "not_compared": _not_compared(hidden, awaiting, unfit),
        "kinds": [_kind_view(name, tally) for name, tally in sorted(kinds.items())],
        "dice": [_dice_view(sides, counts) for sides, counts in sorted(faces.items())],
    }


def _not_compared(hidden: int, awaiting: int, unfit: int) -> list[dict[str, Any]]:
    left_out = ((HIDDEN_VALUES, hidden), (AWAITING, awaiting), (UNFIT, unfit))
    return [{**reason, "rolls": count} for reason, count in left_out if count]


def _kind_view(name: str, tally: _KindTally) -> dict[str, Any]:
    compared = tally.with_odds > 0
    order = tally.order()
    outcomes = [
        {
            "code": code,
            "observed": tally.observed.get(code, 0),
            "observed_with_odds": tally.compared.get(code, 0),
            "expected": tally.expected.get(code, 0.0) if compared else None,
        }
        for code in order
    ]
    test = None
    if compared:
        test = fit(
            [tally.compared.get(code, 0) for code in order],
            [tally.expected.get(code, 0.0) for code in order],
        )
    return {
        "kind": name,
        "rolls": tally.rolls,
        "rolls_with_odds": tally.with_odds,
        "not_compared": _not_compared(tally.hidden, tally.awaiting, tally.unfit),
        "outcomes": outcomes,
        "fit": test,
        "mean_luck_percentile": tally.percentiles / tally.with_odds if compared else None,
    }


def _dice_view(sides: int, counts: list[int]) -> dict[str, Any]:
    dice = sum(counts)
    expected = dice / sides
    return {
        "sides": sides,
        "dice": dice,
        "faces": counts,
        "expected_each": expected,
        "uniformity": fit(counts, [expected] * sides),
    }


def campaign_stats(
    session: Session,
    access: CampaignAccess,
    registry: Registry,
    filters: EntryFilters,
    group_by: str | None = None,
) -> dict[str, Any]:
    """The statistics of the rolls the caller may see among those the filters select,
    overall and, with `group_by`, for each actor, character, kind, session or scene."""
    filters.check_kind(registry)
    rows = _rows(session, access, registry, filters)
    odds = _Odds(registry)
    answer = _summarize(rows, odds)
    if group_by is not None:
        key = _GROUP_KEYS[group_by]
        groups: dict[Any, list[_Row]] = {}
        for row in rows:
            groups.setdefault(key(row), []).append(row)
        answer["groups"] = [
            {"key": None if value is None else str(value), **_summarize(members, odds)}
            for value, members in sorted(groups.items(), key=lambda item: _sortable(item[0]))
        ]
    return answer


_GROUP_KEYS: dict[str, Callable[[_Row], Any]] = {
    "actor": lambda row: row.actor_id,
    "character": lambda row: row.character_id,
    "kind": lambda row: row.kind,
    "session": lambda row: row.session,
    "scene": lambda row: row.scene,
}


def _sortable(value: Any) -> tuple[int, Any]:
    if value is None:
        return (0, 0)
    return (1, value) if isinstance(value, int) else (2, str(value))
