"""Fixtures of the door-conformance suite (see ``tests/conformance/__init__.py``)."""

from __future__ import annotations

import pytest


@pytest.fixture
def spark_if_needed(request):
    """The Spark session for cells of a Spark door (skipped without pyspark or Java), else None."""
    if request.node.get_closest_marker("spark") is None:
        return None
    return request.getfixturevalue("spark")
