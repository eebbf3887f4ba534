"""Tables and API schemas. Importing this package registers every table on the metadata."""

from app.models.base import JSONType, utcnow
from app.models.campaign import (
    Campaign,
    CampaignMember,
    CampaignUpdate,
    MemberCreate,
    MemberPublic,
    MembersPublic,
)
from app.models.character import (
    Character,
    CharacterCreate,
    CharacterUpdate,
)
from app.models.encounter import Encounter
from app.models.feed import StreamTicket
from app.models.invitation import (
    Invitation,
    InvitationCreate,
    InvitationPublic,
    InvitationsPublic,
)
from app.models.log import DisclosedEntry, HeldEffects, IdempotencyKey, LogEntry, SeedEpoch
from app.models.roll_request import (
    RollRequest,
    RollRequestCreate,
    RollRequestPublic,
    RollRequestsPublic,
)
from app.models.user import User, UserCreate, UserCreated, UserPublic
from app.models.webhook import Webhook, WebhookAttempt, WebhookDelivery

__all__ = [
    "Campaign",
    "CampaignMember",
    "CampaignUpdate",
    "Character",
    "CharacterCreate",
    "CharacterUpdate",
    "DisclosedEntry",
    "Encounter",
    "HeldEffects",
    "IdempotencyKey",
    "Invitation",
    "InvitationCreate",
    "InvitationPublic",
    "InvitationsPublic",
    "JSONType",
    "LogEntry",
    "MemberCreate",
    "MemberPublic",
    "MembersPublic",
    "RollRequest",
    "RollRequestCreate",
    "RollRequestPublic",
    "RollRequestsPublic",
    "SeedEpoch",
    "StreamTicket",
    "User",
    "UserCreate",
    "UserCreated",
    "UserPublic",
    "Webhook",
    "WebhookAttempt",
    "WebhookDelivery",
    "utcnow",
]
