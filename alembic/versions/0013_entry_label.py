"""Every roll may carry a label (issue 21): what it is for, as its roller named it. It is
part of the entry's hashed content when present (FAIR-10 lists what an entry holds at
least), so older entries, which have none, hash as they did.

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("log_entry", sa.Column("label", sa.String(length=100), nullable=True))


def downgrade() -> None:
    # Plain DROP COLUMN on both engines (SQLite 3.35+): a batch copy of the log table would
    # lose its append-only triggers.
    op.execute("ALTER TABLE log_entry DROP COLUMN label")
