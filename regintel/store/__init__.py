"""SQL store: SQLAlchemy 2.0 typed models and the Database gateway (SQLite by default, PostgreSQL by URL)."""

from regintel.store.db import Database
from regintel.store import models

__all__ = ["Database", "models"]
