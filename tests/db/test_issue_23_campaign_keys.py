"""Issue 23: every campaign's rows are keyed by campaign, ready for Citus to distribute them
by `campaign_id` and co-locate them with their campaign. Checked over the metadata: Citus
requires the distribution column in every primary key and unique key of a distributed
table, and in every foreign key between two of them."""

from __future__ import annotations

import sqlalchemy as sa
from sqlmodel import SQLModel

import app.models  # noqa: F401  (registers every table on the metadata)

# The campaign's own id is its distribution column: its rows are the campaign.
DISTRIBUTION_COLUMN = {"campaign": "id"}
CAMPAIGN_ID = "campaign_id"

# Tables that are no campaign's rows, and why (Citus: reference or local tables).
GLOBAL_TABLES = {
    "user_account": "a user plays in many campaigns; a reference table, which the campaigns' "
    "tables may reference (members, owners, invitations' authors)",
    "idempotency_key": "a user's retry key, whatever the scope (creating a campaign has none "
    "yet); a local table on the coordinator",
}


def distribution_column(table: sa.Table) -> str:
    return DISTRIBUTION_COLUMN.get(table.name, CAMPAIGN_ID)


def campaign_key_problems(metadata: sa.MetaData, global_tables: set[str]) -> list[str]:
    """What keeps a table from being distributed by campaign, one line a problem."""
    problems = [
        f"{name}: listed as global, but no such table"
        for name in sorted(global_tables - set(metadata.tables))
    ]
    for table in metadata.sorted_tables:
        if table.name in global_tables:
            problems.extend(
                f"{table.name}: global, but references the campaign table {fk.referred_table.name}"
                for fk in table.foreign_key_constraints
                if fk.referred_table.name not in global_tables
            )
            continue
        column = distribution_column(table)
        if column not in table.c:
            problems.append(f"{table.name}: no {column} column (nor listed as global)")
            continue
        primary = [c.name for c in table.primary_key.columns]
        if primary[:1] != [column]:
            problems.append(f"{table.name}: primary key {primary} does not start with {column}")
        uniques = [
            (constraint.name, [c.name for c in constraint.columns])
            for constraint in table.constraints
            if isinstance(constraint, sa.UniqueConstraint)
        ] + [
            (index.name, [c.name for c in index.columns]) for index in table.indexes if index.unique
        ]
        problems.extend(
            f"{table.name}: unique key {name} {columns} lacks {column}"
            for name, columns in uniques
            if column not in columns
        )
        for fk in table.foreign_key_constraints:
            referred = fk.referred_table
            if referred.name in global_tables:
                continue
            pairs = {(element.parent.name, element.column.name) for element in fk.elements}
            if (column, distribution_column(referred)) not in pairs:
                problems.append(
                    f"{table.name}: foreign key {fk.name} to {referred.name} does not pair "
                    f"{column} with {referred.name}.{distribution_column(referred)}"
                )
    return problems


def test_issue_23_every_campaign_table_is_keyed_by_campaign_id() -> None:
    assert campaign_key_problems(SQLModel.metadata, set(GLOBAL_TABLES)) == []


def test_issue_23_rekeyed_tables_lead_with_the_campaign() -> None:
    # Migration 0014's keys; an invitation's code leads its unique key, as accepting one
    # looks it up by code alone.
    tables = SQLModel.metadata.tables
    for name in ("character", "encounter", "roll_request", "invitation"):
        assert [c.name for c in tables[name].primary_key.columns] == ["campaign_id", "id"]
    uniques = [
        [c.name for c in constraint.columns]
        for constraint in tables["invitation"].constraints
        if isinstance(constraint, sa.UniqueConstraint)
    ]
    assert uniques == [["code", "campaign_id"]]
    # Citus: campaign is distributed by its own id, co-located with every campaign_id.
    assert distribution_column(tables["campaign"]) == "id"


def _with(*tables: sa.Table) -> sa.MetaData:
    """The application's tables, plus these (built on a copy of its metadata)."""
    metadata = sa.MetaData(naming_convention=SQLModel.metadata.naming_convention)
    for table in SQLModel.metadata.sorted_tables:
        table.to_metadata(metadata)
    for table in tables:
        table.to_metadata(metadata)
    return metadata


def _bad(*columns: sa.Column | sa.Constraint | sa.Index) -> sa.Table:
    return sa.Table("bad", sa.MetaData(), *columns)


def test_issue_23_the_check_catches_a_table_without_campaign_id() -> None:
    bad = _bad(sa.Column("id", sa.Uuid, primary_key=True), sa.Column("name", sa.String(10)))
    assert campaign_key_problems(_with(bad), set(GLOBAL_TABLES)) == [
        "bad: no campaign_id column (nor listed as global)"
    ]


def test_issue_23_the_check_catches_keys_without_campaign_id() -> None:
    bad = _bad(
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("campaign_id", sa.Uuid, sa.ForeignKey("campaign.id")),
        sa.Column("code", sa.String(10), unique=True),
        sa.Column("slug", sa.String(10)),
        sa.Column("name", sa.String(10)),
        sa.UniqueConstraint("campaign_id", "name", name="uq_bad_campaign_id_name"),
        sa.Index("ix_bad_slug", "slug", unique=True),
    )
    problems = campaign_key_problems(_with(bad), set(GLOBAL_TABLES))
    assert sorted(problems) == sorted(
        [
            "bad: primary key ['id'] does not start with campaign_id",
            "bad: unique key uq_bad_code ['code'] lacks campaign_id",  # Column(unique=True)
            "bad: unique key ix_bad_slug ['slug'] lacks campaign_id",
        ]
    )


def test_issue_23_the_check_catches_a_primary_key_holding_campaign_id_second() -> None:
    bad = _bad(
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("campaign_id", sa.Uuid, sa.ForeignKey("campaign.id"), primary_key=True),
    )
    assert campaign_key_problems(_with(bad), set(GLOBAL_TABLES)) == [
        "bad: primary key ['id', 'campaign_id'] does not start with campaign_id"
    ]


def test_issue_23_the_check_catches_a_foreign_key_between_campaign_tables_by_id_alone() -> None:
    bad = _bad(
        sa.Column("campaign_id", sa.Uuid, sa.ForeignKey("campaign.id"), primary_key=True),
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("encounter_id", sa.Uuid),
        sa.Column("author_id", sa.Uuid, sa.ForeignKey("user_account.id")),  # global: fine
        sa.ForeignKeyConstraint(["encounter_id"], ["encounter.id"], name="fk_bad_encounter"),
        sa.ForeignKeyConstraint(
            ["campaign_id", "encounter_id"],
            ["encounter.campaign_id", "encounter.id"],
            name="fk_bad_campaign_encounter",
        ),  # with the campaign: fine
    )
    assert campaign_key_problems(_with(bad), set(GLOBAL_TABLES)) == [
        "bad: foreign key fk_bad_encounter to encounter does not pair campaign_id with "
        "encounter.campaign_id"
    ]


def test_issue_23_the_check_catches_a_global_table_referencing_a_campaign_table() -> None:
    bad = _bad(
        sa.Column("id", sa.Uuid, primary_key=True),
        sa.Column("campaign_id", sa.Uuid, sa.ForeignKey("campaign.id")),
    )
    problems = campaign_key_problems(_with(bad), {*GLOBAL_TABLES, "bad"})
    assert problems == ["bad: global, but references the campaign table campaign"]


def test_issue_23_the_check_catches_a_stale_global_listing() -> None:
    problems = campaign_key_problems(SQLModel.metadata, {*GLOBAL_TABLES, "gone"})
    assert problems == ["gone: listed as global, but no such table"]
