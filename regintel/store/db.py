"""The single SQL gateway: engine creation, schema creation and short-lived sessions.

SQLite runs in WAL mode with a busy timeout and foreign keys on, so several Streamlit sessions, the worker and
benchmarks can share one file without "database is locked" errors. PostgreSQL is chosen by URL alone.
"""

from __future__ import annotations

from contextlib import contextmanager
from pathlib import Path
from typing import Iterator

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import SQLAlchemyError
from sqlalchemy.orm import Session, sessionmaker

from regintel.errors import StoreError
from regintel.store.models import Base


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn, _record) -> None:  # pragma: no cover - exercised by every SQLite test
        cursor = dbapi_conn.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA busy_timeout=30000")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()


def make_engine(url: str) -> Engine:
    """Create an engine for a sqlite:// or postgresql:// URL (the psycopg 3 driver is used for PostgreSQL)."""
    parsed = make_url(url)
    if parsed.get_backend_name() == "sqlite":
        if parsed.database and parsed.database != ":memory:":
            Path(parsed.database).parent.mkdir(parents=True, exist_ok=True)
        engine = create_engine(url, connect_args={"timeout": 30, "check_same_thread": False})
        _configure_sqlite(engine)
        return engine
    if parsed.get_backend_name() == "postgresql" and parsed.drivername == "postgresql":
        parsed = parsed.set(drivername="postgresql+psycopg")
    return create_engine(parsed, pool_pre_ping=True)


class Database:
    """Owns the engine and hands out sessions that commit on success and roll back on error."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.engine = make_engine(url)
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    def create_schema(self) -> None:
        """Create missing tables; a database that cannot be reached raises StoreError naming the setting."""
        try:
            Base.metadata.create_all(self.engine)
            self._add_missing_columns()
        except SQLAlchemyError as exc:
            safe_url = make_url(self.url).render_as_string(hide_password=True)
            raise StoreError(
                f"Cannot open the SQL store at {safe_url} (REGINTEL_DATABASE_URL): {exc.__class__.__name__}: "
                f"{str(exc.orig if hasattr(exc, 'orig') else exc).splitlines()[0]}"
            ) from exc

    def _add_missing_columns(self) -> None:
        """Columns added to a model after its table was created (a data directory from an older version) are
        added in place, nullable, with the model's scalar default, so upgrading keeps every stored row."""
        inspector = inspect(self.engine)
        with self.engine.begin() as conn:
            for table in Base.metadata.sorted_tables:
                if not inspector.has_table(table.name):
                    continue
                present = {c["name"] for c in inspector.get_columns(table.name)}
                for column in table.columns:
                    if column.name in present:
                        continue
                    kind = column.type.compile(dialect=self.engine.dialect)
                    default = column.default.arg if column.default is not None and column.default.is_scalar else None
                    clause = f" DEFAULT {_literal(default)}" if default is not None else ""
                    # names come from our own models, never from input
                    conn.execute(text(f'ALTER TABLE {table.name} ADD COLUMN {column.name} {kind}{clause}'))

    @contextmanager
    def session(self) -> Iterator[Session]:
        session = self._sessions()
        try:
            yield session
            session.commit()
        except Exception:
            session.rollback()
            raise
        finally:
            session.close()

    def journal_mode(self) -> str:
        with self.engine.connect() as conn:
            if self.engine.dialect.name != "sqlite":
                return "n/a"
            return str(conn.execute(text("PRAGMA journal_mode")).scalar())

    def dispose(self) -> None:
        self.engine.dispose()


def _literal(value: object) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return str(value)
    return "'" + str(value).replace("'", "''") + "'"
