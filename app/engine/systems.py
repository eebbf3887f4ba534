"""A system's sheets and options: validation with readable errors, defaults, derived fields."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ValidationError

from app.engine.contract import CharacterKind, System
from app.engine.sheets import describe_validation_error


def validate_options(system: System, raw: Mapping[str, Any] | None) -> dict[str, Any]:
    """Campaign options, defaults filled in, or InvalidInput naming the bad option."""
    try:
        model = system.options.model_validate(dict(raw or {}))
    except ValidationError as exc:
        raise describe_validation_error(exc, "options") from exc
    return model.model_dump(mode="json")


def validate_sheet(
    system: System,
    raw: Mapping[str, Any],
    *,
    kind: CharacterKind,
    options: Mapping[str, Any],
    creating: bool,
) -> dict[str, Any]:
    """The sheet with defaults filled in, or InvalidInput listing every problem.

    The context turns on the checks an edit must pass and a sheet read back from storage
    need not pass again, since the rules may have gone past them: the limits of the fields
    the rules manage, the campaign's options and the creation budget.
    """
    context = {"editing": True, "kind": kind, "options": dict(options), "creating": creating}
    try:
        model = system.sheet.model_validate(dict(raw), context=context)
    except ValidationError as exc:
        raise describe_validation_error(exc, "sheet") from exc
    return model.model_dump(mode="json")


def derive(
    system: System, before: Mapping[str, Any] | None, after: dict[str, Any], scene: int
) -> dict[str, Any]:
    """The sheet with what the rules derive from an edit (e.g. JDR-22's scene)."""
    return system.on_sheet_edit(before, after, scene) if system.on_sheet_edit else after


def default_sheet_values(system: System) -> dict[str, Any]:
    """Default value of every field that has one (what a new character starts with)."""
    defaults: dict[str, Any] = {}
    for name, info in system.sheet.model_fields.items():
        if not info.is_required():
            value = info.get_default(call_default_factory=True)
            defaults[name] = (
                value.model_dump(mode="json") if isinstance(value, BaseModel) else value
            )
    return defaults
