"""The citations block under a Gradio answer, as Markdown: grade, cited passages with their links, concepts.

Kept apart from :mod:`regintel.ui.gradio_app` so that rendering it (and testing that it escapes hostile titles)
does not import Gradio."""

from __future__ import annotations

from regintel.chat.response import ChatResponse
from regintel.ui.chat_view import chip_label
from regintel.ui.untrusted import markdown_label


def citations_markdown(response: ChatResponse) -> str:
    """The block appended under an answer: grade, then one line per cited passage with its link."""
    lines = [f"**{response.response_mode}**" + (f" ({markdown_label(response.abstention_reason)})" if response.abstention_reason else "")
             + f" · confidence {response.confidence.get('level')} · authority {response.authority.get('level')}"]
    for source in response.cited:
        link = f" — [source]({source.url})" if source.url.startswith(("http://", "https://")) else ""
        lines.append(f"- {chip_label(source)}{link}")
        if source.currency_warning:
            lines.append(f"  - ⚠ {markdown_label(source.currency_warning)}")
    if response.concept_nodes:
        lines.append("Concepts: " + ", ".join(markdown_label(n.get("label") or n["key"]) for n in response.concept_nodes))
    return "\n".join(lines)
