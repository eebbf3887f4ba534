"""Imports every module that registers entry kinds, so the registry is complete."""

from app.engine import clock  # noqa: F401
from app.engine.fabulae import combat as fabulae_combat  # noqa: F401
from app.engine.fabulae import powers as fabulae_powers  # noqa: F401
from app.engine.fabulae import rules as fabulae_rules  # noqa: F401
from app.engine.jdr import rules as jdr_rules  # noqa: F401
from app.engine.kinds import KINDS, STRUCTURAL_KINDS, is_roll_kind, resolve
from app.engine.vampire import rules as vampire_rules  # noqa: F401

__all__ = ["KINDS", "STRUCTURAL_KINDS", "is_roll_kind", "resolve"]
