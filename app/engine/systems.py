"""The four rulesets the service runs, their sheet and option models, and sheet validation."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from pydantic import BaseModel, ValidationError

from app.engine.errors import InvalidInput
from app.engine.fabulae.sheet import FABULAE_PROTECTED, FabulaeOptions, FabulaeSheet
from app.engine.jdr import rules as jdr_rules
from app.engine.jdr.sheet import (
    CTHULHU_PROTECTED,
    DRACULA_CREATION_CHOICES,
    DRACULA_PROTECTED,
    JdrCthulhuSheet,
    JdrDraculaSheet,
    JdrOptions,
)
from app.engine.sheets import describe_validation_error
from app.engine.vampire.sheet import (
    VAMPIRE_CREATION_CHOICES,
    VAMPIRE_PROTECTED,
    VampireOptions,
    VampireSheet,
)

SheetHook = Callable[[Mapping[str, Any] | None, dict[str, Any], int], dict[str, Any]]
SystemId = Literal["jdr-express-dracula", "jdr-express-cthulhu", "fabulae-tenebris", "vampire"]
CharacterKind = Literal["pc", "npc"]


@dataclass(frozen=True)
class Ruleset:
    """One ruleset: how its sheets and campaign options are shaped and validated."""

    id: SystemId
    name: str
    family: Literal["jdr", "fabulae", "vampire"]
    rules_file: str
    sheet_model: type[BaseModel]
    options_model: type[BaseModel]
    # Resources the rules spend: only rule actions or a GM override change them.
    protected_fields: frozenset[str]
    # Protected fields a player still chooses when creating their character.
    creation_choices: frozenset[str] = field(default_factory=frozenset)
    # Fields the rules derive when a sheet is created or edited, given the current scene.
    on_sheet_edit: SheetHook | None = None
    # Sheet fields the clock's recharge rules read (recorded in session and scene entries).
    clock_fields: tuple[str, ...] = ()

    def validate_options(self, raw: Mapping[str, Any] | None) -> dict[str, Any]:
        """Campaign options, defaults filled in, or InvalidInput naming the bad option."""
        try:
            model = self.options_model.model_validate(dict(raw or {}))
        except ValidationError as exc:
            raise describe_validation_error(exc, "options") from exc
        return model.model_dump(mode="json")

    def validate_sheet(
        self,
        raw: Mapping[str, Any],
        *,
        kind: CharacterKind,
        options: Mapping[str, Any],
        creating: bool,
    ) -> dict[str, Any]:
        """The sheet with defaults filled in, or InvalidInput listing every problem."""
        context = {"kind": kind, "options": dict(options), "creating": creating}
        try:
            model = self.sheet_model.model_validate(dict(raw), context=context)
        except ValidationError as exc:
            raise describe_validation_error(exc, "sheet") from exc
        return model.model_dump(mode="json")

    def derive(
        self, before: Mapping[str, Any] | None, after: dict[str, Any], scene: int
    ) -> dict[str, Any]:
        """The sheet with what the rules derive from an edit (e.g. JDR-22's scene)."""
        return self.on_sheet_edit(before, after, scene) if self.on_sheet_edit else after

    def default_sheet_values(self) -> dict[str, Any]:
        """Default value of every field that has one (what a new character starts with)."""
        defaults: dict[str, Any] = {}
        for name, info in self.sheet_model.model_fields.items():
            if not info.is_required():
                value = info.get_default(call_default_factory=True)
                defaults[name] = (
                    value.model_dump(mode="json") if isinstance(value, BaseModel) else value
                )
        return defaults

    def sheet_schema(self) -> dict[str, Any]:
        return self.sheet_model.model_json_schema()

    def options_schema(self) -> dict[str, Any]:
        return self.options_model.model_json_schema()


RULESETS: Final[dict[str, Ruleset]] = {
    r.id: r
    for r in (
        Ruleset(
            id="jdr-express-dracula",
            name="JDR Express — Dracula",
            family="jdr",
            rules_file="jdr-express.md",
            sheet_model=JdrDraculaSheet,
            options_model=JdrOptions,
            protected_fields=DRACULA_PROTECTED,
            creation_choices=DRACULA_CREATION_CHOICES,
            on_sheet_edit=jdr_rules.on_sheet_edit,
            clock_fields=("joker", "talisman"),
        ),
        Ruleset(
            id="jdr-express-cthulhu",
            name="JDR Express — Cthulhu",
            family="jdr",
            rules_file="jdr-express.md",
            sheet_model=JdrCthulhuSheet,
            options_model=JdrOptions,
            protected_fields=CTHULHU_PROTECTED,
            clock_fields=("joker", "effleurement"),
        ),
        Ruleset(
            id="fabulae-tenebris",
            name="Fabulae Tenebris — Victorian Age",
            family="fabulae",
            rules_file="fabulae-tenebris.md",
            sheet_model=FabulaeSheet,
            options_model=FabulaeOptions,
            protected_fields=FABULAE_PROTECTED,
            clock_fields=("active_effects",),
        ),
        Ruleset(
            id="vampire",
            name="Vampire",
            family="vampire",
            rules_file="vampire.md",
            sheet_model=VampireSheet,
            options_model=VampireOptions,
            protected_fields=VAMPIRE_PROTECTED,
            creation_choices=VAMPIRE_CREATION_CHOICES,
        ),
    )
}


def get_ruleset(system_id: str) -> Ruleset:
    try:
        return RULESETS[system_id]
    except KeyError:
        known = ", ".join(RULESETS)
        raise InvalidInput(f"unknown system '{system_id}'; known systems: {known}") from None
