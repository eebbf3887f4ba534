"""What a notation rolled, as the log stores it: every die in draw order, what became of it."""

from __future__ import annotations

from pydantic import Field

from app.engine.contract import Model


class RolledDie(Model):
    """One die as drawn; the flags are stored only when set."""

    face: int = Field(description="the face drawn; a Fudge die shows -1, 0 or +1")
    value: int | None = Field(
        default=None,
        description="what it counts for, when it is not its face: what `!!` added into it, "
        "then mi or ma",
    )
    added: list[int] | None = Field(
        default=None, description="the faces `!!` drew and added into this die, in draw order"
    )
    dropped: bool = Field(default=False, description="dropped by k, p, kh, kl, dh or dl")
    rerolled: bool = Field(default=False, description="replaced by a reroll (rr, ro)")
    exploded: bool = Field(default=False, description="it added a die to the group (e, !, ra)")
    success: bool = Field(default=False, description="it meets the group's success count")

    @property
    def counts(self) -> bool:
        return not (self.dropped or self.rerolled)

    @property
    def worth(self) -> int:
        return self.face if self.value is None else self.value


class DiceGroupRoll(Model):
    """One dice group of the notation: its dice in the order drawn, and its value."""

    dice: str = Field(description="the group in canonical form, e.g. 4d6dl1")
    rolls: list[RolledDie]
    value: int = Field(description="the sum of its counted dice, or its successes")
    successes: int | None = Field(default=None, description="when it counts successes")
    stopped: list[str] | None = Field(
        default=None, description="the caps that stopped its rerolls or explosions, if any"
    )
