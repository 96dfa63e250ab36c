"""One rendering rule for untrusted text: whatever a user, an uploaded file or a model wrote is shown as text.

One function per output. Markdown renderers differ in where they find links: Streamlit (remark-gfm) turns bare
``https://…``, ``www.…`` and ``name@host`` into links by a regular expression over the text *after* backslash
escapes are decoded, so escaping alone cannot stop them; Gradio (marked) links the same three forms while
tokenising. Both stop at an invisible WORD JOINER (U+2060) placed inside ``://``, after ``www`` and after ``@``.
Brackets (inline, reference-style and image links), angle brackets (HTML, ``<autolinks>``), ``$`` (math) and the
backslash itself (so ``\\[x\\](url)`` cannot undo our escape) are backslash-escaped.

Every rule looks at most three characters back, so a streamed answer is neutralised delta by delta
(``neutralised_stream``) and reads the same as the whole answer neutralised at once.
"""

from __future__ import annotations

import html
import re
from typing import Iterable, Iterator

from regintel.text.normalise import printable

WORD_JOINER = "\u2060"
# a joiner between ":" and "/" (any scheme://), between "www" and ".", between "$" and "$" (display math), and
# after every "@" (e-mail autolinks); each decision needs at most three characters of context
LINK_BREAKS = re.compile(r"(?<=:)(?=/)|(?<=[wW]{3})(?=\.)|(?<=\$)(?=\$)|(?<=@)")
CONTEXT = 3  # characters of look-behind the rules above need
ANSWER_SPECIAL = re.compile(r"([\\\[\]<>$])")
LABEL_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:&])")  # & too: "&lt;" shows as typed


def break_links(text: str) -> str:
    """The text with a word joiner wherever a renderer would start a bare link (invisible when shown)."""
    return LINK_BREAKS.sub(WORD_JOINER, text)


def markdown_answer(text: object) -> str:
    """An answer (model output, possibly steered by a hostile source) as markdown that keeps its emphasis, lists
    and line breaks but draws no link, image, HTML or math: "[1]" still reads "[1]"."""
    return ANSWER_SPECIAL.sub(r"\\\1", break_links(str(text or "")))


def markdown_label(text: object) -> str:
    """A one-line label (title, tenant or user name, concept label, quote, URL shown as text) as markdown that
    reads exactly as the text: every markdown character is escaped, invisible and control characters removed,
    whitespace folded."""
    return LABEL_SPECIAL.sub(r"\\\1", break_links(printable(text)))


def html_text(text: object) -> str:
    """Text for an HTML fragment (also safe if that fragment is later read as markdown): entities, no tags."""
    return html.escape(break_links(printable(text)), quote=True)


def pyvis_text(text: object, limit: int = 60) -> str:
    """A pyvis (vis-network 9) node label or tooltip: vis-network draws strings as text, so only what a person
    cannot see is removed and the text shortened; never pass it to pyvis's ``tooltip_link`` (innerHTML)."""
    cleaned = printable(text)
    return cleaned if len(cleaned) <= limit else cleaned[: limit - 1] + "…"


def neutralised_stream(deltas: Iterable[str]) -> Iterator[str]:
    """``markdown_answer`` applied to a stream: each delta is neutralised with the last characters before it as
    context, so a link split across two deltas is broken too."""
    previous = ""
    for delta in deltas:
        if not delta:
            continue
        head = markdown_answer(previous)
        whole = markdown_answer(previous + delta)
        yield whole[len(head):]
        previous = (previous + delta)[-CONTEXT:]
