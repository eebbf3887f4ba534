"""Hidden rolls on committed per-entry keys (FAIR-16..17), hidden values as commitments
(FAIR-18), disclosed by the GM (FAIR-19), hidden rolls' effects held for the GM (FAIR-21).

Each new epoch draws a second secret, `hidden_seed`; epochs from before have none and
their entries keep verifying under FAIR-1..15. Each entry records the fairness rules it
was made under (`fairness`, hashed; absent before: 1). A hidden entry stores its entry key
and Merkle proof beside its content: given to whoever may see it, never hashed.

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column("seed_epoch", sa.Column("hidden_seed", sa.String(length=64), nullable=True))
    op.add_column("seed_epoch", sa.Column("hidden_root", sa.String(length=64), nullable=True))
    op.add_column("log_entry", sa.Column("fairness", sa.Integer(), nullable=True))
    op.add_column("log_entry", sa.Column("entry_key", sa.String(length=64), nullable=True))
    op.add_column("log_entry", sa.Column("proof", sa.String(length=768), nullable=True))
    # FAIR-18: the salts and values of the entry's commitments, for the GM; never hashed.
    op.add_column("log_entry", sa.Column("disclosures", JSON, nullable=True))
    # FAIR-19: hidden entries the GM disclosed to everyone, and the entry that did it.
    op.create_table(
        "disclosed_entry",
        sa.Column("campaign_id", sa.Uuid(), sa.ForeignKey("campaign.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("disclosed_seq", sa.Integer(), nullable=False),
    )

    # FAIR-21: a hidden roll's changes to sheets other members read, held for the GM.
    op.create_table(
        "held_effects",
        sa.Column("campaign_id", sa.Uuid(), sa.ForeignKey("campaign.id"), primary_key=True),
        sa.Column("seq", sa.Integer(), primary_key=True),
        sa.Column("effects", JSON, nullable=False),
        sa.Column("applied_seq", sa.Integer(), nullable=True),
    )


def downgrade() -> None:
    op.drop_table("held_effects")
    op.drop_table("disclosed_entry")
    # Plain DROP COLUMN on both engines (SQLite 3.35+): a batch copy of the log table would
    # lose its append-only triggers.
    for column in ("disclosures", "proof", "entry_key", "fairness"):
        op.execute(f"ALTER TABLE log_entry DROP COLUMN {column}")
    op.execute("ALTER TABLE seed_epoch DROP COLUMN hidden_root")
    op.execute("ALTER TABLE seed_epoch DROP COLUMN hidden_seed")
