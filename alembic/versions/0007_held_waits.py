"""A hidden roll's wait names the player characters it read (FAIR-21).

Every hidden roll that read a player character's sheet waits for the GM, whether or not
it changed it: the rules refuse to read that sheet again until the GM applies the roll, so
whether they refuse tells nothing of its outcome. `characters` lists the sheets a wait
guards; rows from before guard the characters their effects change.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-30
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.add_column(
        "held_effects",
        sa.Column("characters", JSON, nullable=False, server_default=sa.text("'[]'")),
    )
    op.add_column(
        "held_effects",
        sa.Column("sets_off", sa.Boolean(), nullable=False, server_default=sa.false()),
    )
    held = sa.table(
        "held_effects",
        sa.column("campaign_id", sa.Uuid()),
        sa.column("seq", sa.Integer()),
        sa.column("effects", JSON),
        sa.column("characters", JSON),
    )
    connection = op.get_bind()
    for row in connection.execute(sa.select(held)).all():
        characters = sorted({str(effect["character_id"]) for effect in row.effects})
        connection.execute(
            held.update()
            .where(held.c.campaign_id == row.campaign_id, held.c.seq == row.seq)
            .values(characters=characters)
        )


def downgrade() -> None:
    op.execute("ALTER TABLE held_effects DROP COLUMN sets_off")
    op.execute("ALTER TABLE held_effects DROP COLUMN characters")
