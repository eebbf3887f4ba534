"""Combat encounters.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "encounter",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("name", sa.String(length=120), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("turn", sa.Integer(), nullable=False),
        sa.Column("combatants", JSON, nullable=False),
        sa.Column("deck", JSON, nullable=False),
        sa.Column("history", JSON, nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        sa.Column("ended_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_encounter_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_encounter")),
    )
    op.create_index(op.f("ix_encounter_campaign_id"), "encounter", ["campaign_id"], unique=False)


def downgrade() -> None:
    op.drop_index(op.f("ix_encounter_campaign_id"), table_name="encounter")
    op.drop_table("encounter")
