"""The Chat page's held questions (regintel/ui/pending_turns.py): a question is kept from the moment it is sent until
its answer is stored, so a run of the page that interrupts its answer answers it again instead of dropping it."""

from __future__ import annotations

from regintel.ui import pending_turns
from regintel.ui.pending_turns import KEY, PendingTurns


def test_a_question_is_held_in_its_conversation_until_it_is_done():
    session: dict = {}
    pending_turns.hold(session, "  What is personal data?  ", "conv-1")
    held = pending_turns.pending(session)
    assert held == PendingTurns("conv-1", ["What is personal data?"])
    assert pending_turns.start(session).attempts == 1 and not held.resumed
    pending_turns.done(session)
    assert pending_turns.pending(session) is None and KEY not in session


def test_an_interrupted_answer_is_started_again_and_says_so():
    session: dict = {}
    pending_turns.hold(session, "What is a processor?", "")
    pending_turns.start(session)  # this run is dropped by a click before the answer is stored
    again = pending_turns.start(session)
    assert again.question == "What is a processor?" and again.resumed


def test_a_question_sent_while_another_waits_joins_its_conversation_and_is_answered_next():
    session: dict = {}
    pending_turns.hold(session, "First?", "")
    held = pending_turns.pending(session)
    held.conversation_id, held.created = "conv-new", True  # the page creates the conversation of a first question
    pending_turns.start(session)
    pending_turns.hold(session, "Second?", "conv-other")
    pending_turns.done(session)
    nxt = pending_turns.pending(session)
    assert (nxt.conversation_id, nxt.questions, nxt.attempts, nxt.created) == ("conv-new", ["Second?"], 0, False)


def test_blank_questions_are_not_held_and_drop_forgets_everything():
    session: dict = {}
    pending_turns.hold(session, "   ", "conv-1")
    pending_turns.hold(session, None, "conv-1")
    assert pending_turns.pending(session) is None
    pending_turns.hold(session, "One?", "conv-1")
    pending_turns.hold(session, "Two?", "conv-1")
    assert pending_turns.drop(session).questions == ["One?", "Two?"]
    assert pending_turns.pending(session) is None
    pending_turns.done(session)  # nothing pending: nothing happens
