"""The body of POST .../rolls: one model per roll kind, told apart by `kind`.

The kind names are the contract VTT clients code against.
"""

from typing import Annotated

from pydantic import Field

from app.models.entries import DiceRollCreate
from app.models.fabulae import (
    FabulaeAbsorbCreate,
    FabulaeActionCreate,
    FabulaeAttackCreate,
    FabulaeBreakFreeCreate,
    FabulaeDangerCreate,
    FabulaeDeathTestCreate,
    FabulaeDestinyAwardCreate,
    FabulaeEndEffectCreate,
    FabulaeGrappleCreate,
    FabulaeOpposedCreate,
    FabulaePanicCreate,
    FabulaePowerCreate,
    FabulaePushCreate,
    FabulaeRecoverCreate,
    FabulaeReloadCreate,
    FabulaeRepairCreate,
    FabulaeSecondWindCreate,
    FabulaeSequelaCreate,
    FabulaeStabilizeCreate,
    FabulaeStateChoiceCreate,
    FabulaeStrangleCreate,
    FabulaeStreetRatCreate,
    FabulaeStressCreate,
    FabulaeStressResistCreate,
)
from app.models.jdr import (
    JdrActionCreate,
    JdrAttackCreate,
    JdrContextCreate,
    JdrEffleurementCreate,
    JdrEffleurementRefusalCreate,
    JdrHolyWaterCreate,
    JdrInitiativeCreate,
    JdrJokerCreate,
    JdrMedicalCareCreate,
    JdrMythosCreate,
    JdrPenanceCreate,
    JdrSacrificeCreate,
    JdrTalismanCreate,
    JdrTalismanRulingCreate,
)
from app.models.vampire import VampireActionCreate, VampireWillpowerRestoreCreate

RollCreate = Annotated[
    DiceRollCreate
    | JdrActionCreate
    | JdrTalismanCreate
    | JdrTalismanRulingCreate
    | JdrEffleurementCreate
    | JdrEffleurementRefusalCreate
    | JdrJokerCreate
    | JdrContextCreate
    | JdrAttackCreate
    | JdrHolyWaterCreate
    | JdrInitiativeCreate
    | JdrMythosCreate
    | JdrSacrificeCreate
    | JdrPenanceCreate
    | JdrMedicalCareCreate
    | FabulaeActionCreate
    | FabulaeOpposedCreate
    | FabulaePushCreate
    | FabulaeStateChoiceCreate
    | FabulaeAbsorbCreate
    | FabulaeStressCreate
    | FabulaeStressResistCreate
    | FabulaePanicCreate
    | FabulaeRecoverCreate
    | FabulaeDestinyAwardCreate
    | FabulaeAttackCreate
    | FabulaeGrappleCreate
    | FabulaeBreakFreeCreate
    | FabulaeStrangleCreate
    | FabulaeSequelaCreate
    | FabulaeDeathTestCreate
    | FabulaeStabilizeCreate
    | FabulaeDangerCreate
    | FabulaePowerCreate
    | FabulaeRepairCreate
    | FabulaeSecondWindCreate
    | FabulaeEndEffectCreate
    | FabulaeReloadCreate
    | FabulaeStreetRatCreate
    | VampireActionCreate
    | VampireWillpowerRestoreCreate,
    Field(discriminator="kind"),
]
