"""Issue 16: log verification and export read through read-only transactions."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine, text
from sqlalchemy.exc import DBAPIError
from sqlmodel import Session

from app.core import database
from app.core.database import create_db_engine


def test_long_reads_cannot_write(
    db_engine: Engine, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if db_engine.dialect.name != "postgresql":
        pytest.skip("SQLite has no read-only transaction (its WAL readers never block writers)")
    engine = create_db_engine(database_url)
    monkeypatch.setattr(database, "get_engine", lambda: engine)
    try:
        with Session(database.read_only_engine()) as session:
            assert session.execute(text("SHOW transaction_read_only")).scalar() == "on"
            with pytest.raises(DBAPIError, match="read-only transaction"):
                session.execute(text("UPDATE user_account SET name = name WHERE false"))
        # The pooled connection goes back writable for the requests that write.
        with Session(engine) as session:
            assert session.execute(text("SHOW transaction_read_only")).scalar() == "off"
    finally:
        engine.dispose()
