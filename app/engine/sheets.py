"""Shared helpers for the rulesets' character sheets: strict pydantic models, readable errors."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError

from app.engine.errors import InvalidInput


class StrictModel(BaseModel):
    """A sheet part: unknown keys are refused so a typo never silently vanishes."""

    model_config = ConfigDict(extra="forbid", frozen=False)


def describe_validation_error(exc: ValidationError, prefix: str) -> InvalidInput:
    """Turn a pydantic error into an InvalidInput whose detail names each field and the fix."""
    errors: list[dict[str, Any]] = []
    for err in exc.errors(include_url=False, include_input=False):
        loc = [prefix, *[str(part) for part in err["loc"]]]
        message = str(err["msg"])
        if message.startswith("Value error, "):
            message = message.removeprefix("Value error, ")
        errors.append({"loc": loc, "msg": message, "type": err["type"]})
    summary = "; ".join(f"{'.'.join(e['loc'])}: {e['msg']}" for e in errors[:5])
    if len(errors) > 5:
        summary += f"; and {len(errors) - 5} more"
    return InvalidInput(f"invalid {prefix}: {summary}", errors=errors)
