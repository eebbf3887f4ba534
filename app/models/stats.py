"""API shapes of a campaign's roll statistics (issue 21)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field


class FitPublic(BaseModel):
    """Pearson's chi-square goodness-of-fit test of observed counts against expected ones."""

    statistic: float | None = Field(description="null when the p-value is 0 by construction")
    degrees_of_freedom: int
    p_value: float = Field(
        ge=0, le=1, description="the chance of a fit at least this poor if the dice are fair"
    )
    approximate: bool = Field(
        description="an expected count is under 5: the chi-square approximation is rough"
    )
    note: str | None = None


class NotComparedPublic(BaseModel):
    """Rolls you see, counted, but left out of the outcomes compared with the odds."""

    reason: Literal["hidden_values", "awaiting", "unfit"] = Field(
        description="hidden_values: the roll's odds would read values committed from a sheet "
        "you may not read (FAIR-18); its outcome is left out of observed, expected and the fit "
        "alike, so that the comparison tells nothing of those values. awaiting: an attack or "
        "opposed roll still waiting for the other side's answer (FAB-36, FAB-62), which is "
        "the roll that counts. unfit: a stored entry that no longer fits its kind, changed "
        "outside the service (GET .../log/verify names where); its dice are not counted"
    )
    rule: str = Field(description="the rule that leaves them out")
    detail: str
    rolls: int = Field(description="how many rolls were left out for this reason")


class OutcomeCountPublic(BaseModel):
    code: str
    observed: int = Field(description="rolls of this kind with this outcome")
    observed_with_odds: int = Field(
        description="among them, the rolls whose exact odds are known to you (compared)"
    )
    expected: float | None = Field(
        description="the sum of each compared roll's exact probability of this outcome; null "
        "when no roll of this kind has odds"
    )


class KindStatsPublic(BaseModel):
    kind: str
    rolls: int
    rolls_with_odds: int = Field(
        description="rolls whose odds are computed and read only values you may see (FAIR-18)"
    )
    not_compared: list[NotComparedPublic] = Field(
        description="rolls counted in `rolls` whose outcomes are not compared, and why"
    )
    outcomes: list[OutcomeCountPublic] = Field(
        description="worst to best, as the rolls' odds order them, whatever order the rolls "
        "came in; when their odds order them in opposite ways (vampire.damage: an attack's "
        "worst is a hazard's best), in the order of the ruleset's labels (`GET /systems/{id}`), "
        "a code without a label first"
    )
    fit: FitPublic | None = Field(description="observed against expected outcomes")
    mean_luck_percentile: float | None = Field(description="50 is ordinary luck; null without odds")


class DiceStatsPublic(BaseModel):
    sides: int
    dice: int = Field(description="dice of this size drawn")
    faces: list[int] = Field(description="how often each face came up, from 1 to sides")
    expected_each: float
    uniformity: FitPublic | None = Field(description="the faces against a fair die")


class StatsBody(BaseModel):
    rolls: int = Field(description="the rolls counted: those you may see that match the filters")
    rolls_with_odds: int
    mean_luck_percentile: float | None = Field(
        description="over the rolls with odds: 50 is ordinary, above is lucky"
    )
    not_compared: list[NotComparedPublic] = Field(
        description="rolls counted in `rolls` whose outcomes are not compared, and why"
    )
    kinds: list[KindStatsPublic]
    dice: list[DiceStatsPublic] = Field(description="per die size, every die the rolls drew")


class StatsGroupPublic(StatsBody):
    key: str | None = Field(description="the actor, character, kind, session or scene")


class StatsPublic(StatsBody):
    """The statistics of a campaign's rolls, as the caller may see them."""

    groups: list[StatsGroupPublic] | None = Field(
        default=None, description="with group_by: the same statistics for each group"
    )
