"""Migrations: upgrade and downgrade on an empty database and on one with rows; models and
migrations agree."""

from __future__ import annotations

import datetime
import uuid
from collections.abc import Iterable, Iterator
from typing import Any

import pytest
import sqlalchemy as sa
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


def _filler(column: sa.Column[Any]) -> Any:
    """A value for a required column the test does not care about."""
    kind = column.type
    if isinstance(kind, sa.types.TypeDecorator):
        kind = kind.impl_instance
    if isinstance(kind, sa.Uuid):
        return uuid.uuid4()
    if isinstance(kind, sa.Boolean):
        return False
    if isinstance(kind, sa.Integer):
        return 0
    if isinstance(kind, sa.DateTime):
        return datetime.datetime.now(datetime.UTC)
    if isinstance(kind, sa.String | sa.Text):
        return "x"
    return {}  # JSON


def insert_row(
    connection: sa.Connection, table: sa.Table, *, skip: Iterable[str] = (), **values: Any
) -> None:
    """A row of the model's table at an older revision: the given values, fillers for the
    other required columns, none of the `skip` columns (which that revision lacks)."""
    skipped = set(skip)
    row = {
        column.name: _filler(column)
        for column in table.columns
        if not column.nullable and column.server_default is None and column.name not in skipped
    }
    row.update(values)
    # Only these columns: the model's defaults would name columns the revision does not have.
    bare = sa.table(table.name, *(sa.column(name, table.c[name].type) for name in row))
    connection.execute(bare.insert().values(row))


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


REKEYED = ("character", "encounter", "roll_request", "invitation")  # by 0014 (issue 23)


def _keys(engine: Engine) -> dict[str, Any]:
    found = inspect(engine)
    keys: dict[str, Any] = {
        table: found.get_pk_constraint(table)["constrained_columns"] for table in REKEYED
    }
    keys["uniques"] = [u["column_names"] for u in found.get_unique_constraints("invitation")]
    keys["indexes"] = sorted(
        (index["name"], tuple(index["column_names"]))
        for table in REKEYED
        for index in found.get_indexes(table)
        if not index.get("duplicates_constraint")  # PostgreSQL's index of a unique key
    )
    return keys


def _rows(engine: Engine) -> dict[str, set[tuple[Any, ...]]]:
    with engine.connect() as connection:
        return {
            table: set(connection.execute(text(f'SELECT campaign_id, id FROM "{table}"')).all())
            for table in REKEYED
        }


def test_issue_23_0014_keys_rows_by_campaign_and_back(empty_engine):
    engine: Engine = empty_engine
    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0013")
    before = _keys(engine)
    tables = SQLModel.metadata.tables  # 0014 changes keys only: the columns are 0013's
    user_id, campaigns = uuid.uuid4(), [uuid.uuid4(), uuid.uuid4()]
    with engine.begin() as connection:
        insert_row(connection, tables["user_account"], id=user_id)
        for campaign_id in campaigns:
            insert_row(connection, tables["campaign"], id=campaign_id, gm_id=user_id)
            for table in REKEYED:
                for _ in range(2):
                    values = (
                        {"created_by": user_id, "code": uuid.uuid4().hex}
                        if table == "invitation"
                        else {}
                    )
                    insert_row(connection, tables[table], campaign_id=campaign_id, **values)
    rows = _rows(engine)
    assert all(len(found) == 4 for found in rows.values())

    with engine.begin() as connection:
        command.upgrade(alembic_config(connection), "0014")
    after = _keys(engine)
    assert [after[table] for table in REKEYED] == [["campaign_id", "id"]] * len(REKEYED)
    assert after["uniques"] == [["code", "campaign_id"]]
    # The index on campaign_id alone is the key's prefix now; routes find by id alone.
    assert after["indexes"] == [
        ("ix_character_id", ("id",)),
        ("ix_character_owner_id", ("owner_id",)),
        ("ix_encounter_id", ("id",)),
    ]
    assert _rows(engine) == rows
    # A code is unique within its campaign.
    with engine.connect() as connection:
        invitation = tables["invitation"]
        campaign_id, code = connection.execute(
            sa.select(invitation.c.campaign_id, invitation.c.code)
        ).first()
    with pytest.raises(sa.exc.IntegrityError), engine.begin() as connection:
        insert_row(
            connection,
            tables["invitation"],
            campaign_id=campaign_id,
            code=code,
            created_by=user_id,
        )

    with engine.begin() as connection:
        command.downgrade(alembic_config(connection), "0013")
    assert _keys(engine) == before
    assert _rows(engine) == rows
