"""``python -m regintel backup DIR`` and ``python -m regintel restore DIR`` (issue 22 item 4)."""

from __future__ import annotations

import argparse
from pathlib import Path


def cmd_backup(app, args: argparse.Namespace) -> int:
    from regintel.ops.backup import backup

    report = backup(app, Path(args.folder))
    app.audit.record("backup", actor="cli", target=str(args.folder)[:300], rows=sum(report.tables.values()))
    print(report.summary())
    return 1 if report.warnings else 0


def cmd_restore(app, args: argparse.Namespace) -> int:
    from regintel.ops.backup import restore

    report = restore(app, Path(args.folder), reindex=not args.no_index)
    print(report.summary())
    return 1 if report.differences else 0


def add_parser(sub) -> None:
    backup = sub.add_parser("backup", help="back up conversations, feedback, runs, users, the rules graph, notes and "
                                           "sources into a new folder (exit 1 when a part could not be backed up)")
    backup.add_argument("folder")
    backup.set_defaults(func=cmd_backup)
    restore = sub.add_parser("restore", help="restore a backup into an empty deployment (REGINTEL_DATA_DIR / "
                                             "REGINTEL_DATABASE_URL / graph settings) and re-index; compares counts")
    restore.add_argument("folder")
    restore.add_argument("--no-index", action="store_true", help="do not re-index after restoring (ingest later)")
    restore.set_defaults(func=cmd_restore)
