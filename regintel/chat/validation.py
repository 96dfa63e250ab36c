"""Input validation of a chat question: 1-1000 characters of printable text.

Control characters, zero-width and bidirectional-override characters are removed (they hide text from people
and reviewers); whitespace is folded. What remains must be 1 to 1000 characters.
"""

from __future__ import annotations

from regintel.errors import InputError
from regintel.text.normalise import printable

__all__ = ["InputError", "clean_question", "MAX_QUESTION_CHARS"]

MAX_QUESTION_CHARS = 1000




def clean_question(text: object) -> str:
    if not isinstance(text, str):
        raise InputError("The question must be text.")
    cleaned = printable(text)
    if not cleaned:
        raise InputError("The question is empty: type a question about the regulation.")
    if len(cleaned) > MAX_QUESTION_CHARS:
        raise InputError(f"The question is {len(cleaned)} characters long; the limit is {MAX_QUESTION_CHARS}. "
                         "Shorten it or split it into several questions.")
    return cleaned
