"""Password hashing with bcrypt (a maintained library; salted, slow by design), and the password rules."""

from __future__ import annotations

import bcrypt

from regintel.errors import InputError

MIN_PASSWORD = 12
MAX_PASSWORD_BYTES = 72  # bcrypt reads at most 72 bytes: a longer password would be silently truncated


def check_password_rules(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise InputError(f"The password must have at least {MIN_PASSWORD} characters.")
    if len(password.encode("utf-8")) > MAX_PASSWORD_BYTES:
        raise InputError(f"The password must be at most {MAX_PASSWORD_BYTES} bytes (UTF-8).")
    return password


def hash_password(password: str, rounds: int = 12) -> str:
    check_password_rules(password)
    return bcrypt.hashpw(password.encode("utf-8"), bcrypt.gensalt(rounds)).decode("ascii")


def verify_password(password: str, hashed: str | None) -> bool:
    """Constant-time check; a missing hash (an SSO-only user) or an oversize password never matches."""
    data = password.encode("utf-8")
    if not hashed or len(data) > MAX_PASSWORD_BYTES:
        return False
    try:
        return bcrypt.checkpw(data, hashed.encode("ascii"))
    except ValueError:
        return False
