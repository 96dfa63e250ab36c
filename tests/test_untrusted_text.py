"""The one rendering rule for untrusted text (regintel/ui/untrusted.py) against every link trick of tests/hostile.py.

A rendered result is "live" when CommonMark (markdown-it, raw HTML allowed: the strictest case) makes a tag, or
when the link finders of the renderers we ship would find a link: remark-gfm's regular expressions (Streamlit;
copied from its bundle, run over the visible text after escapes are decoded) and marked's (Gradio; run over the
markdown source it tokenises).
"""

from __future__ import annotations

import html
import random
import re

import pytest
from markdown_it import MarkdownIt

from regintel.ui.untrusted import WORD_JOINER, html_text, markdown_answer, markdown_label, neutralised_stream, pyvis_text
from tests.hostile import EVIL, HOSTILE, LINK_TRICK_TEXTS, LINK_TRICKS

MARKDOWN = MarkdownIt("commonmark", {"html": True}).enable(["strikethrough", "table"])
TAG = re.compile(r"<(a|img|script|iframe|svg|style|html|b|sup|section)\b[^>]*>", re.IGNORECASE)
REMARK_URL = re.compile(r"(https?://|www(?=\.))([-.\w]+)([^ \t\r\n]*)", re.IGNORECASE | re.ASCII)
REMARK_EMAIL = re.compile(r"([-.\w+]+)@([-\w]+(?:\.[-\w]+)+)", re.ASCII)
MARKED_URL = re.compile(r"((?:ftp|https?)://|www\.)(?:[a-zA-Z0-9\-]+\.?)+[^\s<]*", re.IGNORECASE)
MARKED_EMAIL = re.compile(r"[A-Za-z0-9._+-]+(@)[a-zA-Z0-9-_]+(?:\.[a-zA-Z0-9-_]*[a-zA-Z0-9])+")
UNESCAPED_DOLLAR = re.compile(r"(?<!\\)(?:\\\\)*\$")


def visible(markdown: str) -> str:
    """What a person reads: the rendered HTML without tags, entities decoded."""
    return html.unescape(re.sub(r"<[^>]+>", "", MARKDOWN.render(markdown)))


def live_links(markdown: str) -> list[str]:
    """Every way the markdown could become a link, image or markup in one of the renderers."""
    rendered = MARKDOWN.render(markdown)
    found = [m.group(0) for m in TAG.finditer(rendered)]
    text = visible(markdown)
    for finder in (REMARK_URL, REMARK_EMAIL):
        found += [m.group(0) for m in finder.finditer(text)]
    for finder in (MARKED_URL, MARKED_EMAIL):
        found += [m.group(0) for m in finder.finditer(markdown)]
    found += ["$ (math)" for _ in UNESCAPED_DOLLAR.finditer(markdown)]
    return found


@pytest.mark.parametrize("name", [name for name, _ in LINK_TRICKS])
def test_the_tricks_are_live_when_not_neutralised(name):
    """The table is worth testing against: each trick does make a link, an image or math somewhere."""
    assert live_links(LINK_TRICK_TEXTS[name])


@pytest.mark.parametrize("name", [name for name, _ in LINK_TRICKS])
def test_answers_draw_no_link_image_or_math_and_keep_their_words(name):
    text = LINK_TRICK_TEXTS[name] + " [1]"
    shown = markdown_answer(text)
    assert live_links(shown) == [], shown
    readable = visible(shown).replace(WORD_JOINER, "")
    assert "[1]" in readable and (EVIL in readable.lower() or EVIL not in text.lower())


@pytest.mark.parametrize("name", [name for name, _ in LINK_TRICKS] + [row[0] for row in HOSTILE])
def test_labels_read_exactly_as_the_text(name):
    text = LINK_TRICK_TEXTS.get(name) or next(row[2] for row in HOSTILE if row[0] == name)
    shown = markdown_label(text)
    assert live_links(shown) == [], shown
    assert visible(shown).replace(WORD_JOINER, "").strip() == " ".join(html.unescape(html_text(text)).replace(WORD_JOINER, "").split())


def test_backslash_before_a_bracket_cannot_undo_the_escape():
    shown = markdown_answer("\\[phish\\](https://evil.example)")
    assert shown.startswith("\\\\\\[phish\\\\\\]") and live_links(shown) == []
    assert visible(shown).replace(WORD_JOINER, "") == "\\[phish\\](https://evil.example)\n"


def test_emphasis_lists_and_citations_survive():
    shown = markdown_answer("**Notify** within 72 hours [1]:\n\n1. the authority\n2. the data subject [2]")
    rendered = MARKDOWN.render(shown)
    assert "<strong>Notify</strong>" in rendered and "<ol>" in rendered and "[1]" in rendered and "[2]" in rendered


@pytest.mark.parametrize("seed", range(20))
def test_a_stream_split_anywhere_is_neutralised_like_the_whole_answer(seed):
    text = " ".join(text for _, text in LINK_TRICKS) + " www.evil.example $$x$$ a@b.example https://x.example"
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(text)), 60))
    deltas = [text[a:b] for a, b in zip([0] + cuts, cuts + [len(text)])]
    assert "".join(neutralised_stream(deltas)) == markdown_answer(text)


def test_html_text_has_no_tag_and_pyvis_text_is_visible_text_only():
    assert html_text('<a href="https://evil.example">x</a>') == \
        f"&lt;a href=&quot;https:{WORD_JOINER}//evil.example&quot;&gt;x&lt;/a&gt;"
    assert pyvis_text("con\u200btrol\u202eler\nname", 60) == "controller name"
    assert pyvis_text("x" * 100, 10) == "x" * 9 + "…"
