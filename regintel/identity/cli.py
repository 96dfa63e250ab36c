"""``python -m regintel users add|list|disable|enable|set-role|set-password|token|revoke-token|audit``.

Passwords are never command-line arguments (they would land in shell history and ``ps``): they are asked twice
on a terminal, or read from the first line of stdin with ``--password-stdin`` for scripts.
"""

from __future__ import annotations

import argparse
import getpass
import sys
from typing import Any

from regintel.errors import InputError
from regintel.identity.roles import ROLES


def _password(args: argparse.Namespace) -> str:
    if args.password_stdin:
        return sys.stdin.readline().rstrip("\r\n")
    first = getpass.getpass("Password: ")
    if getpass.getpass("Again: ") != first:
        raise InputError("The two passwords differ.")
    return first


def cmd_add(app: Any, args: argparse.Namespace) -> int:
    password = None if args.sso else _password(args)
    user = app.accounts.add(args.tenant, args.login, password, args.role)
    kind = "single-sign-on account" if args.sso else "account"
    print(f"added {kind} {user.name} ({user.role}) to tenant {args.tenant}")
    return 0


def cmd_list(app: Any, args: argparse.Namespace) -> int:
    rows = app.accounts.users(args.tenant)
    for user, tenant in rows:
        if user.password_hash:
            kind = "local"
        else:
            kind = "sso" if user.external_id else "sso (not signed in yet)"
        state = "disabled" if user.disabled else "active"
        print(f"{tenant.name:<20} {user.name:<30} {user.role:<8} {kind:<24} {state}")
    if not rows:
        print("no users")
    return 0


def cmd_disable(app: Any, args: argparse.Namespace) -> int:
    user = app.accounts.set_disabled(args.login, args.command_name == "disable")
    print(f"{user.name}: {'disabled' if user.disabled else 'enabled'}")
    return 0


def cmd_set_role(app: Any, args: argparse.Namespace) -> int:
    user = app.accounts.set_role(args.login, args.role)
    print(f"{user.name}: role {user.role}")
    return 0


def cmd_set_password(app: Any, args: argparse.Namespace) -> int:
    user = app.accounts.set_password(args.login, _password(args))
    print(f"{user.name}: password changed, lock cleared")
    return 0


def cmd_token(app: Any, args: argparse.Namespace) -> int:
    user = app.accounts.user(args.login)
    token = app.api_tokens.create(user, args.label)
    print(token)
    print(f"API token for {user.name}: shown once, stored hashed; revoke with "
          f"`python -m regintel users revoke-token {user.name} {token[:10]}`", file=sys.stderr)
    return 0


def cmd_revoke_token(app: Any, args: argparse.Namespace) -> int:
    user = app.accounts.user(args.login)
    print(f"revoked {app.api_tokens.revoke(user, args.prefix)} token(s) of {user.name}")
    return 0


def cmd_audit(app: Any, args: argparse.Namespace) -> int:
    for event in reversed(app.audit.events(limit=args.limit)):
        print(f"{event.at:%Y-%m-%d %H:%M:%S} {event.action:<14} {event.outcome:<8} {event.actor:<24} {event.target}")
    return 0


def add_parser(sub: Any) -> None:
    users = sub.add_parser("users", help="local accounts, roles and API tokens")
    actions = users.add_subparsers(dest="users_command", required=True)

    add = actions.add_parser("add", help="add an account (asks for the password)")
    add.add_argument("login")
    add.add_argument("--tenant", required=True, help="tenant name (created when new)")
    add.add_argument("--role", choices=ROLES, default="analyst")
    add.add_argument("--sso", action="store_true", help="no password: bound to the single-sign-on identity of that e-mail at its first sign-in")
    add.add_argument("--password-stdin", action="store_true", help="read the password from stdin")
    add.set_defaults(func=cmd_add)

    listing = actions.add_parser("list", help="list users")
    listing.add_argument("--tenant")
    listing.set_defaults(func=cmd_list)

    for name in ("disable", "enable"):
        action = actions.add_parser(name, help=f"{name} an account (a disabled user cannot sign in or use tokens)")
        action.add_argument("login")
        action.set_defaults(func=cmd_disable, command_name=name)

    role = actions.add_parser("set-role", help="change a user's role")
    role.add_argument("login")
    role.add_argument("role", choices=ROLES)
    role.set_defaults(func=cmd_set_role)

    password = actions.add_parser("set-password", help="set a new password (clears a lock)")
    password.add_argument("login")
    password.add_argument("--password-stdin", action="store_true")
    password.set_defaults(func=cmd_set_password)

    token = actions.add_parser("token", help="create an API token (printed once) for the Gradio API")
    token.add_argument("login")
    token.add_argument("--label", default="")
    token.set_defaults(func=cmd_token)

    revoke = actions.add_parser("revoke-token", help="revoke a user's API tokens by prefix ('all': every one)")
    revoke.add_argument("login")
    revoke.add_argument("prefix")
    revoke.set_defaults(func=cmd_revoke_token)

    audit = actions.add_parser("audit", help="the audit trail, oldest first")
    audit.add_argument("--limit", type=int, default=100)
    audit.set_defaults(func=cmd_audit)
