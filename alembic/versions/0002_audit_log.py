"""Audit log: seed epochs, the append-only log, idempotency keys, the campaign's log head.

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-29
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
TS = sa.DateTime(timezone=True)

# FAIR-12: the log is append-only, enforced by the database itself.
PG_FUNCTION = """
CREATE FUNCTION log_entry_append_only() RETURNS trigger AS $$
BEGIN
    RAISE EXCEPTION 'log_entry is append-only (FAIR-12): % refused', TG_OP;
END;
$$ LANGUAGE plpgsql
"""
PG_TRIGGER = """
CREATE TRIGGER log_entry_append_only BEFORE UPDATE OR DELETE ON log_entry
FOR EACH ROW EXECUTE FUNCTION log_entry_append_only()
"""
SQLITE_TRIGGERS = (
    """
    CREATE TRIGGER log_entry_no_update BEFORE UPDATE ON log_entry
    BEGIN SELECT RAISE(ABORT, 'log_entry is append-only (FAIR-12): UPDATE refused'); END
    """,
    """
    CREATE TRIGGER log_entry_no_delete BEFORE DELETE ON log_entry
    BEGIN SELECT RAISE(ABORT, 'log_entry is append-only (FAIR-12): DELETE refused'); END
    """,
)


def upgrade() -> None:
    with op.batch_alter_table("campaign") as batch:
        batch.add_column(sa.Column("last_seq", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(
            sa.Column("last_hash", sa.String(length=64), nullable=False, server_default="0" * 64)
        )
        batch.add_column(
            sa.Column("current_epoch", sa.Integer(), nullable=False, server_default="0")
        )
    with op.batch_alter_table("campaign") as batch:
        batch.alter_column("last_seq", server_default=None)
        batch.alter_column("last_hash", server_default=None)
        batch.alter_column("current_epoch", server_default=None)

    op.create_table(
        "seed_epoch",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("number", sa.Integer(), nullable=False),
        sa.Column("server_seed", sa.String(length=64), nullable=False),
        sa.Column("commitment", sa.String(length=64), nullable=False),
        sa.Column("client_seed", sa.String(length=64), nullable=False),
        sa.Column("opened_seq", sa.Integer(), nullable=False),
        sa.Column("first_roll_seq", sa.Integer(), nullable=True),
        sa.Column("closed_seq", sa.Integer(), nullable=True),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_seed_epoch_campaign_id_campaign")
        ),
        sa.PrimaryKeyConstraint("campaign_id", "number", name=op.f("pk_seed_epoch")),
    )
    op.create_table(
        "log_entry",
        sa.Column("campaign_id", sa.Uuid(), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("epoch", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=60), nullable=False),
        sa.Column("created_at", sa.String(length=32), nullable=False),
        sa.Column("actor_id", sa.String(length=36), nullable=False),
        sa.Column("character_id", sa.String(length=36), nullable=True),
        sa.Column("visibility", sa.String(length=10), nullable=False),
        sa.Column("follows", sa.Integer(), nullable=True),
        sa.Column("request", JSON, nullable=False),
        sa.Column("draws", JSON, nullable=False),
        sa.Column("result", JSON, nullable=False),
        sa.Column("effects", JSON, nullable=False),
        sa.Column("prev_hash", sa.String(length=64), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("hash", sa.String(length=64), nullable=False),
        sa.ForeignKeyConstraint(
            ["campaign_id"], ["campaign.id"], name=op.f("fk_log_entry_campaign_id_campaign")
        ),
        # FAIR-5: (campaign_id, seq) is unique, a safety net behind the counter lock.
        sa.PrimaryKeyConstraint("campaign_id", "seq", name=op.f("pk_log_entry")),
    )
    op.create_index(
        "ix_log_entry_campaign_id_kind_seq", "log_entry", ["campaign_id", "kind", "seq"]
    )
    op.create_index(
        "ix_log_entry_campaign_id_character_id_seq",
        "log_entry",
        ["campaign_id", "character_id", "seq"],
    )
    op.create_table(
        "idempotency_key",
        sa.Column("user_id", sa.Uuid(), nullable=False),
        sa.Column("scope", sa.String(length=40), nullable=False),
        sa.Column("key", sa.String(length=255), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("response_body", JSON, nullable=True),
        sa.Column("created_at", TS, nullable=False),
        sa.Column("completed_at", TS, nullable=True),
        sa.ForeignKeyConstraint(
            ["user_id"], ["user_account.id"], name=op.f("fk_idempotency_key_user_id_user_account")
        ),
        sa.PrimaryKeyConstraint("user_id", "scope", "key", name=op.f("pk_idempotency_key")),
    )

    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_FUNCTION)
        op.execute(PG_TRIGGER)
    else:
        for statement in SQLITE_TRIGGERS:
            op.execute(statement)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER IF EXISTS log_entry_append_only ON log_entry")
        op.execute("DROP FUNCTION IF EXISTS log_entry_append_only()")
    else:
        op.execute("DROP TRIGGER IF EXISTS log_entry_no_update")
        op.execute("DROP TRIGGER IF EXISTS log_entry_no_delete")
    op.drop_table("idempotency_key")
    op.drop_index("ix_log_entry_campaign_id_character_id_seq", table_name="log_entry")
    op.drop_index("ix_log_entry_campaign_id_kind_seq", table_name="log_entry")
    op.drop_table("log_entry")
    op.drop_table("seed_epoch")
    with op.batch_alter_table("campaign") as batch:
        batch.drop_column("current_epoch")
        batch.drop_column("last_hash")
        batch.drop_column("last_seq")
