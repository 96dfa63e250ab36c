"""Questions the Chat page holds until their answers are stored.

Streamlit runs the page script again whenever the analyst touches a widget or changes page, and a run that starts
drops the one in progress. A turn's messages are stored together at its end (nothing is stored half), so a question
whose answer was being written when that happened was lost without a word, and the conversation created for it stayed
empty. The page keeps its questions here, in the browser session's state, from the moment they are sent until their
answers are stored: a run that finds one answers it (again), and the chat input stays disabled meanwhile.
"""

from __future__ import annotations

from collections.abc import MutableMapping
from dataclasses import dataclass, field
from typing import Any

KEY = "regintel_chat_pending"


@dataclass
class PendingTurns:
    """Questions of one conversation waiting for their answers, oldest first (the first is being answered).

    ``conversation_id`` is empty until the page creates the conversation of a first question; ``created`` says the
    page created it for them (an interrupted first question leaves no empty conversation behind); ``attempts``
    counts the runs that started answering the first question (a second one means the first was interrupted)."""

    conversation_id: str = ""
    questions: list[str] = field(default_factory=list)
    created: bool = False
    attempts: int = 0

    @property
    def question(self) -> str:
        return self.questions[0]

    @property
    def resumed(self) -> bool:
        return self.attempts > 1


def pending(session: MutableMapping[str, Any]) -> PendingTurns | None:
    held = session.get(KEY)
    return held if isinstance(held, PendingTurns) and held.questions else None


def hold(session: MutableMapping[str, Any], question: str | None, conversation_id: str) -> None:
    """Keep a question sent in ``conversation_id`` ("" for a new one). One sent while others wait joins them, in
    their conversation: the analyst was reading that one."""
    question = (question or "").strip()
    if not question:
        return
    held = pending(session)
    if held is None:
        session[KEY] = PendingTurns(conversation_id, [question])
    else:
        held.questions.append(question)


def start(session: MutableMapping[str, Any]) -> PendingTurns:
    """The first question's answer starts being written (call with a question pending)."""
    held = pending(session)
    assert held is not None, "no question is pending"
    held.attempts += 1
    return held


def done(session: MutableMapping[str, Any]) -> None:
    """The first question is settled (answered and stored, or refused with a message): the next one, if any, is
    answered by the next run."""
    held = pending(session)
    if held is None:
        return
    held.questions.pop(0)
    held.attempts = 0
    held.created = False  # the conversation holds a turn now, or the next question's turn
    if not held.questions:
        session.pop(KEY, None)


def drop(session: MutableMapping[str, Any]) -> PendingTurns | None:
    """Forget every pending question (their conversation is gone); returns what was dropped."""
    held = pending(session)
    session.pop(KEY, None)
    return held
