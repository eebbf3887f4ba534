"""FAIR-12: the log refuses TRUNCATE too (PostgreSQL; SQLite has no TRUNCATE).

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-30
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The row triggers of 0002 refuse UPDATE and DELETE; TRUNCATE fires statement triggers only.
PG_TRIGGER = """
CREATE TRIGGER log_entry_no_truncate BEFORE TRUNCATE ON log_entry
FOR EACH STATEMENT EXECUTE FUNCTION log_entry_append_only()
"""


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute(PG_TRIGGER)


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("DROP TRIGGER log_entry_no_truncate ON log_entry")
