"""Stored timestamps come back timezone-aware in UTC on every engine."""

from datetime import UTC, datetime, timedelta, timezone

import pytest

from app.models import User


def test_timestamps_read_back_aware_in_utc(session):
    paris = timezone(timedelta(hours=1))
    user = User(
        name="Mina", api_key_hash="h" * 64, created_at=datetime(2026, 11, 29, 13, tzinfo=paris)
    )
    session.add(user)
    session.flush()
    session.expire_all()
    reloaded = session.get(User, user.id)
    assert reloaded.created_at == datetime(2026, 11, 29, 12, tzinfo=UTC)
    assert reloaded.created_at.utcoffset() == timedelta(0)


def test_naive_timestamps_are_refused(session):
    session.add(User(name="Naive", api_key_hash="n" * 64, created_at=datetime(2026, 1, 1)))
    with pytest.raises(Exception, match="timezone-aware"):
        session.flush()
