"""Record on each log entry the rules version that resolved it (e.g. `vampire@1`).

Entries from before have none: they were resolved by version 1 of their ruleset.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("log_entry", sa.Column("rules", sa.String(length=48), nullable=True))


def downgrade() -> None:
    # A plain DROP COLUMN on both engines (SQLite 3.35+): a batch copy of the table would
    # lose its append-only triggers.
    op.execute("ALTER TABLE log_entry DROP COLUMN rules")
