"""Every campaign's row is keyed by campaign first (issue 23): characters, encounters, roll
requests and invitations take the primary key (campaign_id, id), as the log, the members
and the webhooks already do, so Citus can distribute them by campaign_id and co-locate them
with their campaign. An invitation's code is unique with its campaign (a unique key must
hold the distribution column); code first, since accepting one looks it up by code alone.
The index on campaign_id alone is the primary key's prefix now, and goes; characters and
encounters, which routes name by id alone, get an index on id.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from collections.abc import Sequence

from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

TABLES = ("character", "encounter", "roll_request", "invitation")
BY_ID = ("character", "encounter")  # named by id alone in their routes


def _rekey(table: str, columns: list[str]) -> None:
    # SQLite copies the table ("recreate"); PostgreSQL alters it in place.
    with op.batch_alter_table(table) as batch:
        batch.drop_constraint(f"pk_{table}", type_="primary")
        batch.create_primary_key(f"pk_{table}", columns)


def upgrade() -> None:
    for table in TABLES:
        op.drop_index(f"ix_{table}_campaign_id", table_name=table)
        _rekey(table, ["campaign_id", "id"])
    for table in BY_ID:
        op.create_index(f"ix_{table}_id", table, ["id"])
    with op.batch_alter_table("invitation") as batch:
        batch.drop_constraint("uq_invitation_code", type_="unique")
        batch.create_unique_constraint("uq_invitation_code_campaign_id", ["code", "campaign_id"])


def downgrade() -> None:
    with op.batch_alter_table("invitation") as batch:
        batch.drop_constraint("uq_invitation_code_campaign_id", type_="unique")
        batch.create_unique_constraint("uq_invitation_code", ["code"])
    for table in BY_ID:
        op.drop_index(f"ix_{table}_id", table_name=table)
    for table in TABLES:
        _rekey(table, ["id"])
        op.create_index(f"ix_{table}_campaign_id", table, ["campaign_id"])
