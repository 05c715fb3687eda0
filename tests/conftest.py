"""Shared fixtures: ``name`` runs a test once for every registered frontier."""

from __future__ import annotations

import pytest

from tests.helpers import ALL


@pytest.fixture(params=ALL)
def name(request) -> str:
    return request.param
