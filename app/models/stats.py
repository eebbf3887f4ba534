"""API shapes of a campaign's roll statistics (issue 21)."""

from __future__ import annotations

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
    outcomes: list[OutcomeCountPublic] = Field(description="worst to best, as the odds order them")
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
    kinds: list[KindStatsPublic]
    dice: list[DiceStatsPublic] = Field(description="per die size, every die the rolls drew")


class StatsGroupPublic(StatsBody):
    key: str | None = Field(description="the actor, character, kind, session or scene")


class StatsPublic(StatsBody):
    """The statistics of a campaign's rolls, as the caller may see them."""

    groups: list[StatsGroupPublic] | None = Field(
        default=None, description="with group_by: the same statistics for each group"
    )
