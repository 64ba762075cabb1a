"""Shared fixtures for the gradlib tests (keep this small: one fixture per shared need)."""

from __future__ import annotations

import pytest

SEED_TEXT = "[x0*x1*x2, x0*x1*x2*x0]"
SEED_INPUTS = {"x0": 3.0, "x1": 4.0, "x2": 5.0}


@pytest.fixture
def seed():
    """The seed question's function and inputs: y = [x0*x1*x2, x0*x1*x2*x0] at x = (3, 4, 5)."""
    return SEED_TEXT, dict(SEED_INPUTS)
