"""What a JDR Express character fights with (JDR-32, JDR-36, JDR-37, corrected): the sources'
weapons, listed on the sheet by catalog id, and the GM's custom items. An attack names one
item the attacker carries; nobody declares a weapon's values at the moment of the attack."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final, Literal

from pydantic import Field

from app.engine.contract import Label, Model
from app.engine.errors import InvalidInput
from app.engine.sheets import enum_labels

WeaponTag = Literal["ash_stake", "silver", "supernatural"]
DraculaWeaponId = Literal["cavalry_sabre", "lumberjack_axe", "ash_stake", "silver_blade"]
CthulhuWeaponId = Literal["hunting_rifle", "fireman_axe"]


BARE_HANDS: Final = "mains nues"  # an attack that names no weapon


@dataclass(frozen=True)
class CatalogWeapon:
    """A weapon as the sources give it."""

    label: Label
    damage_bonus: int
    setting: Literal["jdr-express-dracula", "jdr-express-cthulhu"]
    tags: tuple[WeaponTag, ...] = ()
    short_range_only: bool = False  # [C] the hunting rifle's +2 counts at short range only


# JDR-32/36/37 (corrected): « +1 dégât (sabre de cavalerie, hache de bûcheron, pieu de frêne
# en plein cœur d'un mort-vivant) », « +2 dégâts (fusil de chasse à courte portée, hache de
# pompier) », « une lame d'argent vaut deux lames d'acier face aux créatures ».
CATALOG: Final[dict[str, CatalogWeapon]] = {
    "cavalry_sabre": CatalogWeapon(
        Label("Cavalry sabre", "Sabre de cavalerie"), 1, "jdr-express-dracula"
    ),
    "lumberjack_axe": CatalogWeapon(
        Label("Lumberjack's axe", "Hache de bûcheron"), 1, "jdr-express-dracula"
    ),
    # +1 against an identified undead only (JDR-36): no step of its own.
    "ash_stake": CatalogWeapon(
        Label("Ash stake", "Pieu de frêne"), 0, "jdr-express-dracula", ("ash_stake",)
    ),
    # A blade (+1), whose step counts twice against a creature (JDR-37).
    "silver_blade": CatalogWeapon(
        Label("Silver blade", "Lame d'argent"), 1, "jdr-express-dracula", ("silver",)
    ),
    "hunting_rifle": CatalogWeapon(
        Label("Hunting rifle", "Fusil de chasse"),
        2,
        "jdr-express-cthulhu",
        short_range_only=True,
    ),
    "fireman_axe": CatalogWeapon(
        Label("Fireman's axe", "Hache de pompier"), 2, "jdr-express-cthulhu"
    ),
}
CATALOG_LABELS: Final = {weapon_id: weapon.label for weapon_id, weapon in CATALOG.items()}
WEAPON_TAG_LABELS: Final = {
    "ash_stake": Label("Ash stake", "Pieu de frêne"),
    "silver": Label("Silver", "Argent"),
    "supernatural": Label("Supernatural (the GM's)", "Surnaturel (selon le MJ)"),
}

DraculaWeapon = Annotated[DraculaWeaponId, Field(json_schema_extra=enum_labels(CATALOG_LABELS))]
CthulhuWeapon = Annotated[CthulhuWeaponId, Field(json_schema_extra=enum_labels(CATALOG_LABELS))]


class DraculaCarried(Model):
    """A weapon of the Dracula setting's sources, carried."""

    id: DraculaWeapon


class CthulhuCarried(Model):
    """A weapon of the Cthulhu setting's sources, carried."""

    id: CthulhuWeapon


class CustomItem(Model):
    """A weapon the GM adds to a sheet with its own values (JDR-32, corrected)."""

    name: str = Field(min_length=1, max_length=60, title="Name")
    attack_bonus: int = Field(default=0, ge=0, le=5, title="Attack bonus", description="JDR-30")
    damage_bonus: int = Field(
        default=0, ge=0, le=5, title="Damage bonus", description="steps before the margin (JDR-32)"
    )
    tags: list[Annotated[WeaponTag, Field(json_schema_extra=enum_labels(WEAPON_TAG_LABELS))]] = (
        Field(
            default_factory=list,
            max_length=3,
            title="Tags",
            description="ash_stake, silver (JDR-36/37), supernatural: what wounds a werewolf",
        )
    )


@dataclass(frozen=True)
class Armed:
    """The item an attack names, read for the rules."""

    name: str
    catalog: str | None
    attack_bonus: int
    damage_bonus: int
    tags: tuple[WeaponTag, ...]
    custom: bool = False


def armed_with(
    name: str | None,
    weapons: list[DraculaCarried] | list[CthulhuCarried],
    custom: list[CustomItem],
    *,
    short_range: bool,
) -> Armed:
    """The item `name` the attacker carries: a catalog id on the sheet, or a custom item's
    name; none is bare hands (no bonus)."""
    if name is None:
        return Armed(BARE_HANDS, None, 0, 0, ())
    if name in CATALOG and any(weapon.id == name for weapon in weapons):
        weapon = CATALOG[name]
        steps = weapon.damage_bonus
        if weapon.short_range_only and not short_range:
            steps = 0  # [C] « fusil de chasse à courte portée »
        return Armed(weapon.label.fr, name, 0, steps, weapon.tags)
    for item in custom:
        if item.name == name:
            return Armed(
                item.name, None, item.attack_bonus, item.damage_bonus, tuple(item.tags), True
            )
    carried = [*(weapon.id for weapon in weapons), *(item.name for item in custom)]
    raise InvalidInput(
        f"the attacker carries no '{name}' (on the sheet: {', '.join(carried) or 'nothing'}); "
        "list the weapon on the sheet first",
        rule="JDR-32",
    )
