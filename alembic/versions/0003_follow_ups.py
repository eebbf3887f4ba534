"""Index follow-ups by the entry they follow (FAIR-9).

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-29
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_log_entry_campaign_id_follows", "log_entry", ["campaign_id", "follows"])


def downgrade() -> None:
    op.drop_index("ix_log_entry_campaign_id_follows", table_name="log_entry")
