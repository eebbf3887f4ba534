"""Fixtures of the database tests that commit, as production does (see test_concurrency)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from sqlalchemy import Engine

from app.core.database import create_db_engine
from tests.conftest import serve_committed


@pytest.fixture(scope="module")
def committed_engine(db_engine: Engine, database_url: str) -> Iterator[Engine]:
    """An engine of our own on the migrated test database, like the app's get_engine()."""
    engine = create_db_engine(database_url)
    yield engine
    engine.dispose()


@pytest.fixture
def committed_app(committed_engine: Engine, monkeypatch: pytest.MonkeyPatch) -> None:
    """The app with the production sessions on the test database: one committed session per
    request (the suite's rolled-back session override is lifted)."""
    write_engine = committed_engine.execution_options(sqlite_begin="IMMEDIATE")
    serve_committed(monkeypatch, committed_engine, write_engine)
