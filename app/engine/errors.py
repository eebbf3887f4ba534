"""The engine's one exception hierarchy. The service maps each class to an HTTP status."""

from __future__ import annotations

from typing import Any


class EngineError(Exception):
    """Root of every error a rule raises. `detail` says what to change; `rule` names the rule id."""

    title = "Rule engine error"

    def __init__(
        self, detail: str, *, rule: str | None = None, errors: list[dict[str, Any]] | None = None
    ) -> None:
        super().__init__(detail)
        self.detail = detail
        self.rule = rule
        self.errors = errors or []


class InvalidInput(EngineError):
    """The request is malformed for the rules (HTTP 422): a value out of range, an unknown id."""

    title = "Invalid input for the rules"


class RuleRefusal(EngineError):
    """A rule forbids the action now (HTTP 409): a resource is spent, a pre-condition fails."""

    title = "Refused by the rules"


class DiceError(EngineError):
    """A dice source cannot serve the draw asked for (replay mismatch, exhausted record)."""

    title = "Dice source error"
