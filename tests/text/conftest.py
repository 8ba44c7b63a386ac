"""Fixtures of tests/text: the shared sample as one batch (multilingual lines, hard strings, invalid UTF-8)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def sample(multilingual, hard_strings, invalid_utf8) -> list[bytes]:
    """The first 3,000 multilingual lines (every script, quick), the hard strings, invalid UTF-8."""
    return [s.encode("utf-8") for s in hard_strings + multilingual[:3000]] + list(invalid_utf8)
