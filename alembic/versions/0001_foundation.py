"""Foundation: users, campaigns, members, characters.

Revision ID: 0001
Revises:
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "user_account",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("api_key_hash", sa.String(length=64), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_user_account")),
    )
    op.create_index(
        op.f("ix_user_account_api_key_hash"), "user_account", ["api_key_hash"], unique=True
    )
    op.create_table(
        "campaign",
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("system", sa.String(length=40), nullable=False),
        sa.Column("options", JSON, nullable=False),
        sa.Column("gm_id", sa.Uuid(), nullable=False),
        sa.Column("current_session", sa.Integer(), nullable=False),
        sa.Column("current_scene", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("deleted_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["gm_id"], ["user_account.id"], name=op.f("fk_campaign_gm_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_campaign")),
    )
    op.create_index(op.f("ix_campaign_gm_id"), "campaign", ["gm_id"], unique=False)
    op.create_table(
        "campaign_member",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("role", sa.String(length=10), nullable=False),
        sa.Column("joined_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_campaign_member_campaign_id_campaign")
        ),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_campaign_member_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("campaign_id", "user_id", name=op.f("pk_campaign_member")),
    )
    op.create_index(
        op.f("ix_campaign_member_user_id"), "campaign_member", ["user_id"], unique=False
    )
    op.create_table(
        "character",
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=3), nullable=False),
        sa.Column("owner_id", sa.Uuid(), nullable=True),
        sa.Column("sheet", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("deleted_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_character_campaign_id_campaign")
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["user_account.id"], name=op.f("fk_character_owner_id_user_account")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_character")),
    )
    op.create_index(op.f("ix_character_campaign_id"), "character", ["campaign_id"], unique=False)
    op.create_index(op.f("ix_character_owner_id"), "character", ["owner_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_character_owner_id"), table_name="character")
    op.drop_index(op.f("ix_character_campaign_id"), table_name="character")
    op.drop_table("character")
    op.drop_index(op.f("ix_campaign_member_user_id"), table_name="campaign_member")
    op.drop_table("campaign_member")
    op.drop_index(op.f("ix_campaign_gm_id"), table_name="campaign")
    op.drop_table("campaign")
    op.drop_index(op.f("ix_user_account_api_key_hash"), table_name="user_account")
    op.drop_table("user_account")
