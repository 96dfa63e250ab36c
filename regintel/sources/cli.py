"""``python -m regintel sources add | list | edit | deprecate | remove | sync | export`` (issue 23 item 5).

The same ``SourceService`` as the Sources page; ``list --json`` prints one JSON array last (id, title, format,
articles, pages, version, deprecated …) for scripts.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from regintel.sources.registry import EDITABLE_FIELDS, manifest_entries

METADATA_OPTIONS = ("title", "short_title", "jurisdiction", "language", "authority_level", "version", "source_url",
                    "license", "celex", "valid_from", "valid_until", "last_verified", "supersedes")


def _metadata(args: argparse.Namespace) -> dict:
    return {name: getattr(args, name) for name in METADATA_OPTIONS if getattr(args, name, None) not in (None, "")}


def cmd_add(app, args: argparse.Namespace) -> int:
    from regintel.sources.service import files_in

    fields = _metadata(args)
    if args.deprecated:
        fields["deprecated"] = True
    path = Path(args.path)
    if path.is_dir():  # every PDF / HTML / DOCX / markdown file of the folder, indexed once at the end
        if args.id or fields.get("title"):
            print("error: --id and --title name one document; give them per file, not for a folder", file=sys.stderr)
            return 2
        batch = app.source_service.add_many(files_in(path), fields, actor="cli", progress=args.progress())
        print(batch.summary())
        return 1 if batch.refused else 0
    change = app.source_service.add(path, fields, source_id=args.id, actor="cli", progress=args.progress())
    print(change.summary())
    return 0


def cmd_list(app, args: argparse.Namespace) -> int:
    sources = app.sources.list(include_removed=args.all)
    if args.json:
        print(json.dumps([s.to_json() for s in sources], ensure_ascii=False))
        return 0
    for s in sources:
        flags = " deprecated" if s.deprecated else ""
        flags += " removed" if s.status == "removed" else ""
        pages = f" {s.pages}p" if s.pages else ""
        print(f"{s.id:<28} {s.format:<8} {s.articles:>4} art{pages:<6} {s.chunks:>5} passages  "
              f"{(s.version or '-')[:20]:<20}{flags}  {s.title[:70]}")
    return 0


def cmd_edit(app, args: argparse.Namespace) -> int:
    print(app.source_service.edit(args.id, _metadata(args), progress=args.progress()).summary())
    return 0


def cmd_deprecate(app, args: argparse.Namespace) -> int:
    print(app.source_service.deprecate(args.id, deprecated=not args.undo).summary())
    return 0


def cmd_remove(app, args: argparse.Namespace) -> int:
    print(app.source_service.remove(args.id, progress=args.progress()).summary())
    return 0


def cmd_export(app, args: argparse.Namespace) -> int:
    """The registry as a manifest.json (the import/export format of a corpus folder)."""
    print(json.dumps({"documents": manifest_entries(app.sources.list())}, ensure_ascii=False, indent=2))
    return 0


def _metadata_arguments(parser: argparse.ArgumentParser) -> None:
    for name in METADATA_OPTIONS:
        parser.add_argument(f"--{name.replace('_', '-')}", dest=name,
                            help="ISO date (2024-07-12)" if name.startswith(("valid", "last")) else None)


def add_parser(sub, progress_printer) -> None:
    """Register ``sources``; ``progress_printer()`` makes the progress callback of indexing (the ``ingest`` bars)."""
    sources = sub.add_parser("sources", help="bring your own regulations: add PDF/HTML/DOCX/markdown sources, list, "
                                             "edit, deprecate, remove")
    sources.set_defaults(progress=progress_printer)
    verbs = sources.add_subparsers(dest="verb", required=True)

    add = verbs.add_parser("add", help="parse a file (or every PDF/HTML/DOCX/markdown file of a folder), register it "
                                       "and index it (only new passages are embedded)")
    add.add_argument("path", help="a file, or a folder")
    add.add_argument("--id", help="the id to give it; an existing upload's id replaces its file with this new version")
    add.add_argument("--deprecated", action="store_true")
    _metadata_arguments(add)
    add.set_defaults(func=cmd_add)

    listing = verbs.add_parser("list", help="the registered sources (--json: one JSON array)")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("--all", action="store_true", help="include removed sources")
    listing.set_defaults(func=cmd_list)

    edit = verbs.add_parser("edit", help=f"change metadata ({', '.join(EDITABLE_FIELDS)})")
    edit.add_argument("id")
    _metadata_arguments(edit)
    edit.set_defaults(func=cmd_edit)

    deprecate = verbs.add_parser("deprecate", help="mark a source deprecated: answers citing it are QUALIFIED")
    deprecate.add_argument("id")
    deprecate.add_argument("--undo", action="store_true", help="mark it current again")
    deprecate.set_defaults(func=cmd_deprecate)

    remove = verbs.add_parser("remove", help="remove a source from search and the graph (old answers keep their text)")
    remove.add_argument("id")
    remove.set_defaults(func=cmd_remove)

    export = verbs.add_parser("export", help="print the registry as a corpus manifest.json")
    export.set_defaults(func=cmd_export)
