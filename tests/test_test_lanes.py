"""The test suite's own rules (pytest.ini, tests/conftest.py): a deprecation attributed to our code is an error,
a third-party one is not, and the suite runs on a temporary data directory, never the default ``.regintel``."""

from __future__ import annotations

import warnings

import pytest

from regintel.config import REPO_ROOT, get_settings


def _warn_from(module: str, category: type[Warning]) -> None:
    """Raise a warning attributed to ``module`` (the warnings filters match on the caller's ``__name__``)."""
    code = compile(f"import warnings\nwarnings.warn('old API', {category.__name__})", f"<{module}>", "exec")
    exec(code, {"__name__": module})


@pytest.mark.parametrize("category", [DeprecationWarning, PendingDeprecationWarning])
def test_a_deprecation_from_our_code_is_an_error(category: type[Warning]) -> None:
    with pytest.raises(category):
        _warn_from("regintel.chat.engine", category)


def test_a_third_party_deprecation_is_ignored() -> None:
    with warnings.catch_warnings(record=True) as caught:
        _warn_from("somelibrary.module", DeprecationWarning)
    assert caught == []


def test_the_suite_never_uses_the_default_data_directory() -> None:
    data_dir = get_settings().data_dir.resolve()
    assert data_dir != (REPO_ROOT / ".regintel").resolve()
    assert REPO_ROOT not in data_dir.parents
