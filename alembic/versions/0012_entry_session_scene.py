"""Every log entry records its session and scene (issue 21), outside its hashed content.

Existing entries are backfilled from the log itself: each session_started/scene_started
entry carries in its request the session and scene it opens, and every entry belongs to
the last one at or before it (0, 0 before the first).

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
CLOCK_KINDS = ("session_started", "scene_started")
# The append-only triggers of 0002 (FAIR-12), set aside for the backfill alone: it writes
# only the new columns, never a hashed field.
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

_log = sa.table(
    "log_entry",
    sa.column("campaign_id", sa.Uuid()),
    sa.column("seq", sa.Integer()),
    sa.column("kind", sa.String()),
    sa.column("request", JSON),
    sa.column("session", sa.Integer()),
    sa.column("scene", sa.Integer()),
)


def _backfill(bind: sa.Connection) -> None:
    clocks = bind.execute(
        sa.select(_log.c.campaign_id, _log.c.seq, _log.c.request)
        .where(_log.c.kind.in_(CLOCK_KINDS))
        .order_by(_log.c.campaign_id, _log.c.seq)
    ).all()
    by_campaign: dict[object, list[tuple[int, int, int]]] = {}
    for campaign_id, seq, request in clocks:
        numbers = (int(request["session"]), int(request["scene"]))
        by_campaign.setdefault(campaign_id, []).append((seq, *numbers))
    for campaign_id, starts in by_campaign.items():
        for index, (seq, session, scene) in enumerate(starts):
            condition = sa.and_(_log.c.campaign_id == campaign_id, _log.c.seq >= seq)
            if index + 1 < len(starts):
                condition = sa.and_(condition, _log.c.seq < starts[index + 1][0])
            bind.execute(sa.update(_log).where(condition).values(session=session, scene=scene))


def upgrade() -> None:
    op.add_column(
        "log_entry", sa.Column("session", sa.Integer(), nullable=False, server_default="0")
    )
    op.add_column("log_entry", sa.Column("scene", sa.Integer(), nullable=False, server_default="0"))
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        op.execute("ALTER TABLE log_entry DISABLE TRIGGER log_entry_append_only")
        _backfill(bind)
        op.execute("ALTER TABLE log_entry ENABLE TRIGGER log_entry_append_only")
    else:
        op.execute("DROP TRIGGER IF EXISTS log_entry_no_update")
        _backfill(bind)
        op.execute(SQLITE_TRIGGERS[0])
    op.create_index(
        "ix_log_entry_campaign_id_actor_id_seq", "log_entry", ["campaign_id", "actor_id", "seq"]
    )
    op.create_index(
        "ix_log_entry_campaign_id_session_scene_seq",
        "log_entry",
        ["campaign_id", "session", "scene", "seq"],
    )


def downgrade() -> None:
    op.drop_index("ix_log_entry_campaign_id_session_scene_seq", table_name="log_entry")
    op.drop_index("ix_log_entry_campaign_id_actor_id_seq", table_name="log_entry")
    # Plain DROP COLUMN on both engines (SQLite 3.35+): a batch copy of the log table would
    # lose its append-only triggers.
    op.execute("ALTER TABLE log_entry DROP COLUMN scene")
    op.execute("ALTER TABLE log_entry DROP COLUMN session")
