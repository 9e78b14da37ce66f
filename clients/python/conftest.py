"""Fixtures shared by the clients' tests: each server kind started once per session."""

from __future__ import annotations

import pytest

from servers import KINDS, Server


@pytest.fixture(scope="session", params=KINDS)
def server(request):
    """A running server of each kind in turn (the tests run once against each)."""
    srv = Server(request.param)
    try:
        yield srv.start()
    finally:
        srv.stop()  # also removes its directory when it did not start


@pytest.fixture
def r(server):
    """A client of `server`, on an empty server: every test starts from FLUSHALL."""
    client = server.client()
    client.flushall()
    yield client
    client.close()

