"""Migration 0012 (issue 21): the session and scene of every entry already in a log are
backfilled from the log itself, its session_started/scene_started entries in seq order."""

from __future__ import annotations

import uuid

import sqlalchemy as sa
from alembic import command
from sqlalchemy import Engine
from sqlmodel import SQLModel

from tests.conftest import alembic_config
from tests.db.test_migrations import (
    empty_engine,  # noqa: F401 (a fixture)
    insert_row,
)

NEW = ("session", "scene")  # added by 0012


def test_0012_backfills_each_entry_from_the_clock_entries_before_it(empty_engine):  # noqa: F811
    engine: Engine = empty_engine
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0011")
    tables = SQLModel.metadata  # these tables' columns at 0011, and log_entry's before 0012
    user_id, campaign_id, other_id = uuid.uuid4(), uuid.uuid4(), uuid.uuid4()
    clock = {
        3: ("session_started", 1, 1),
        5: ("scene_started", 1, 2),
        7: ("session_started", 2, 3),
    }
    with engine.begin() as connection:
        insert_row(connection, tables.tables["user_account"], id=user_id)
        for campaign in (campaign_id, other_id):
            insert_row(connection, tables.tables["campaign"], id=campaign, gm_id=user_id)
        for seq in range(1, 9):
            kind, session, scene = clock.get(seq, ("dice", 0, 0))
            request = {"session": session, "scene": scene} if seq in clock else {}
            insert_row(
                connection,
                tables.tables["log_entry"],
                skip=NEW,
                campaign_id=campaign_id,
                seq=seq,
                kind=kind,
                request=request,
            )
        # Another campaign's log, with no clock entry: all in session 0, scene 0.
        insert_row(
            connection,
            tables.tables["log_entry"],
            skip=NEW,
            campaign_id=other_id,
            seq=1,
            kind="dice",
        )
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0012")
    with engine.connect() as connection:
        log = tables.tables["log_entry"]
        rows = connection.execute(
            sa.select(log.c.campaign_id, log.c.seq, log.c.session, log.c.scene).order_by(log.c.seq)
        ).all()
    places = {seq: (session, scene) for cid, seq, session, scene in rows if cid == campaign_id}
    assert places == {
        1: (0, 0),
        2: (0, 0),
        3: (1, 1),
        4: (1, 1),
        5: (1, 2),
        6: (1, 2),
        7: (2, 3),
        8: (2, 3),
    }
    assert [(s, c) for cid, _, s, c in rows if cid == other_id] == [(0, 0)]
    # FAIR-12: the append-only triggers are back once the backfill is done.
    with engine.connect() as connection:
        try:
            connection.execute(sa.text("UPDATE log_entry SET session = 9"))
        except sa.exc.DBAPIError as exc:
            assert "append-only" in str(exc)
        else:
            raise AssertionError("the log accepted an UPDATE after the migration")
