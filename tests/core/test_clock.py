"""The stored timestamp text: one UTC form, written and read back the same whatever the input's zone."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claudeops.clock import from_timestamp, to_timestamp


def test_a_moment_is_stored_as_utc_text_to_the_second():
    assert to_timestamp(datetime(2026, 3, 14, 3, 0, 7, 999_999, tzinfo=UTC)) == "2026-03-14T03:00:07Z"


def test_an_aware_moment_in_another_zone_is_stored_in_utc():
    paris = timezone(timedelta(hours=1))
    assert to_timestamp(datetime(2026, 3, 14, 4, 0, 0, tzinfo=paris)) == "2026-03-14T03:00:00Z"


def test_a_naive_moment_is_taken_as_utc():
    assert to_timestamp(datetime(2026, 3, 14, 3, 0, 0)) == "2026-03-14T03:00:00Z"


@given(st.datetimes(min_value=datetime(1970, 1, 1), max_value=datetime(9999, 1, 1), timezones=st.just(UTC)))
def test_stored_text_reads_back_as_the_same_aware_utc_moment(moment):
    stored = to_timestamp(moment)
    assert from_timestamp(stored) == moment.replace(microsecond=0)
    assert from_timestamp(stored).tzinfo is UTC
    assert len(stored) == 20 and stored.endswith("Z")  # fixed width: string order is time order


@pytest.mark.parametrize(("text", "expected"), [
    ("2026-03-14T05:00:00+02:00", datetime(2026, 3, 14, 3, 0, 0, tzinfo=UTC)),
    ("2026-03-14 03:00:00", datetime(2026, 3, 14, 3, 0, 0, tzinfo=UTC)),
])
def test_other_iso_forms_written_by_hand_read_as_utc(text, expected):
    assert from_timestamp(text) == expected


@pytest.mark.parametrize("text", ["", "yesterday", "14/03/2026 03:00"])
def test_text_that_is_no_timestamp_is_a_value_error(text):
    with pytest.raises(ValueError):
        from_timestamp(text)
