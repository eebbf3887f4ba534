"""Roll requests: the GM asks characters for a roll with the values the GM decides.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def upgrade() -> None:
    op.create_table(
        "roll_request",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=60), nullable=False),
        sa.Column("character_ids", JSON, nullable=False),
        sa.Column("values", JSON, nullable=False),
        sa.Column("visibility", sa.String(length=10), nullable=False),
        sa.Column("note", sa.String(length=500), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("answers", JSON, nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("created_at", TS, nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_roll_request_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_roll_request")),
    )
    op.create_index(
        op.f("ix_roll_request_campaign_id"), "roll_request", ["campaign_id"], unique=False
    )


def downgrade() -> None:
    op.drop_index(op.f("ix_roll_request_campaign_id"), table_name="roll_request")
    op.drop_table("roll_request")
