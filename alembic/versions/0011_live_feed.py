"""The live feed: stream tickets, webhooks and their outbox of deliveries.

Revision ID: 0011
Revises: 0010
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)


def _campaign_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["campaign_id"], ["campaign.id"], name=op.f(f"fk_{table}_campaign_id_campaign")
    )


def upgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("webhooks", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("campaign") as batch:
        batch.alter_column("webhooks", server_default=None)
    op.create_table(
        "stream_ticket",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("ticket_hash", sa.String(length=64), nullable=False),
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("expires_at", TS, nullable=False),
        _campaign_fk("stream_ticket"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_stream_ticket_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("campaign_id", "ticket_hash", name=op.f("pk_stream_ticket")),
    )
    op.create_table(
        "webhook",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("url", sa.String(length=2000), nullable=False),
        sa.Column("kinds", JSON, nullable=False),
        sa.Column("description", sa.String(length=200), nullable=False),
        sa.Column("secret", sa.String(length=100), nullable=False),
        sa.Column("enabled", sa.Boolean(), nullable=False),
        sa.Column("disabled_reason", sa.String(length=300), nullable=True),
        sa.Column("failing_since", TS, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("updated_at", TS, nullable=False),
        _campaign_fk("webhook"),
        sa.PrimaryKeyConstraint("campaign_id", "id", name=op.f("pk_webhook")),
    )
    op.create_table(
        "webhook_delivery",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("webhook_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=60), nullable=False),
        sa.Column("status", sa.String(length=10), nullable=False),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", TS, nullable=False),
        sa.Column("leased_until", TS, nullable=True),
        sa.Column("payload", sa.String(), nullable=True),
        sa.Column("created_at", TS, nullable=False),
        _campaign_fk("webhook_delivery"),
        sa.PrimaryKeyConstraint("campaign_id", "id", name=op.f("pk_webhook_delivery")),
    )
    op.create_index("ix_webhook_delivery_webhook_id_seq", "webhook_delivery", ["webhook_id", "seq"])
    op.create_index(
        "ix_webhook_delivery_status_next_attempt_at",
        "webhook_delivery",
        ["status", "next_attempt_at"],
    )
    op.create_table(
        "webhook_attempt",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("delivery_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("attempted_at", TS, nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("error", sa.String(length=300), nullable=True),
        sa.Column("duration_ms", sa.Integer(), nullable=False),
        _campaign_fk("webhook_attempt"),
        sa.PrimaryKeyConstraint(
            "campaign_id", "delivery_id", "number", name=op.f("pk_webhook_attempt")
        ),
    )


def downgrade() -> None:
    op.drop_table("webhook_attempt")
    op.drop_index("ix_webhook_delivery_status_next_attempt_at", table_name="webhook_delivery")
    op.drop_index("ix_webhook_delivery_webhook_id_seq", table_name="webhook_delivery")
    op.drop_table("webhook_delivery")
    op.drop_table("webhook")
    op.drop_table("stream_ticket")
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("webhooks")
