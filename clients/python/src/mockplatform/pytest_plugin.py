"""The pytest plugin (entry point pytest11 "mockplatform"): the fixtures
mockd (one mockd for the session) and mock_world (a fresh world for each
test, deleted after it).

The session's mockd is, in order: --mockd-url (or MOCKD_URL), a mockd that
runs already; else one started from --mockd-bin (MOCKD_BIN, or mockd on
PATH) or --mockd-image (MOCKD_IMAGE), with the --mockd-scenario files,
stopped when the session ends. @pytest.mark.mock_world(scenario=...,
seed=..., clock=..., start=...) sets a test's world."""

from __future__ import annotations

import os
# typing only for the checkers: importing it would double the
# package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any, Iterator

import pytest

from .client import World
from .mockd import Mockd


def pytest_addoption(parser: Any) -> None:
    group = parser.getgroup("mockplatform", "mockd (the agent platform mock)")
    group.addoption("--mockd-url", default=None, help="use the mockd at this address (env MOCKD_URL) instead of starting one")
    group.addoption("--mockd-bin", default=None, help="the mockd binary to start (env MOCKD_BIN; default: mockd on PATH)")
    group.addoption("--mockd-image", default=None, help="the mockd image to run with docker (env MOCKD_IMAGE)")
    group.addoption("--mockd-scenario", action="append", default=[],
                    help="a scenario file for the started mockd; repeat to merge (default: the built-in scenario)")


def pytest_configure(config: Any) -> None:
    config.addinivalue_line("markers", "mock_world(scenario=None, seed=None, clock=None, start=None): "
                                       "the settings of the test's mock_world")


@pytest.fixture(scope="session")
def mockd(request: Any) -> Iterator[Mockd]:
    """One mockd for the test session."""
    opt = request.config.getoption
    url = opt("--mockd-url") or os.environ.get("MOCKD_URL")
    if url:
        yield Mockd.connect(url)
        return
    m = Mockd.start(binary=opt("--mockd-bin"), image=opt("--mockd-image"), scenario=opt("--mockd-scenario") or None)
    try:
        yield m
    finally:
        m.stop()


@pytest.fixture
def mock_world(mockd: Mockd, request: Any) -> Iterator[World]:
    """A fresh world of the session's mockd for this test, deleted after
    it; @pytest.mark.mock_world(...) sets its scenario, seed, clock or start."""
    marker = request.node.get_closest_marker("mock_world")
    kwargs = dict(marker.kwargs) if marker else {}
    with mockd.world(**kwargs) as world:
        yield world
