"""Migrations: upgrade and downgrade on an empty database; models and migrations agree."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Engine, inspect, text
from sqlmodel import SQLModel

from app.core.database import create_db_engine
from tests.conftest import alembic_config


@pytest.fixture
def empty_engine(database_url: str, tmp_path) -> Iterator[Engine]:
    """An empty database: a new SQLite file, or a throwaway schema on PostgreSQL."""
    if not database_url.startswith("postgresql"):
        engine = create_db_engine(f"sqlite:///{tmp_path / 'empty.db'}")
        yield engine
        engine.dispose()
        return
    schema = f"migrations_{uuid.uuid4().hex[:8]}"
    admin = create_db_engine(database_url)
    with admin.begin() as connection:
        connection.execute(text(f"CREATE SCHEMA {schema}"))
    engine = create_db_engine(database_url, connect_args={"options": f"-csearch_path={schema}"})
    try:
        yield engine
    finally:
        engine.dispose()
        with admin.begin() as connection:
            connection.execute(text(f"DROP SCHEMA {schema} CASCADE"))
        admin.dispose()


def _tables(engine: Engine) -> set[str]:
    return set(inspect(engine).get_table_names()) - {"alembic_version"}


def test_upgrade_head_then_downgrade_base_on_an_empty_database(empty_engine):
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    assert _tables(empty_engine) == set(SQLModel.metadata.tables)
    with empty_engine.begin() as connection:
        command.downgrade(alembic_config(connection), "base")
    assert _tables(empty_engine) == set()
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    assert _tables(empty_engine) == set(SQLModel.metadata.tables)


def test_models_and_migrations_agree(empty_engine):
    with empty_engine.begin() as connection:
        command.upgrade(alembic_config(connection), "head")
    with empty_engine.connect() as connection:
        context = MigrationContext.configure(connection, opts={"compare_type": True})
        diff = compare_metadata(context, SQLModel.metadata)
    assert diff == [], f"autogenerate would change the schema: {diff}"
