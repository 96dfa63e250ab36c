"""Sidebar filters shared by the analytics pages: a date period (the tenant is always the signed-in one)."""

from __future__ import annotations

from datetime import date, datetime, time, timedelta, timezone

import streamlit as st

from regintel.chat.repository import ConversationRepository
from regintel.errors import RegIntelError
from regintel.ui import state

NO_DATA = "No conversations yet: ask a question on the Chat page (or run `python -m regintel demo`)."


def repository_or_stop() -> ConversationRepository:
    """The runtime's conversation repository; stops the page with the reason when the SQL store is unusable."""
    try:
        return state.app().conversations
    except RegIntelError as exc:
        st.error(str(exc))
        st.stop()


def period_select(days: int = 30) -> tuple[datetime, datetime, str]:
    """[start, end) in UTC covering whole days, and a label; stops the page while the range is incomplete."""
    today = date.today()
    period = st.date_input("Period", (today - timedelta(days=days), today), max_value=today, key="filter_period")
    if not isinstance(period, (tuple, list)) or len(period) != 2:
        st.info("Choose the end of the period.")
        st.stop()
    start = datetime.combine(period[0], time.min, tzinfo=timezone.utc)
    end = datetime.combine(period[1] + timedelta(days=1), time.min, tzinfo=timezone.utc)
    return start, end, f"{period[0]} – {period[1]}"
