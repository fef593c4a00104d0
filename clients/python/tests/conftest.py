"""The client's tests run against a real mockd: MOCKD_BIN (a binary built
from the repository: scripts/test-clients.sh builds one) or MOCKD_URL. The
plugin (mockplatform.pytest_plugin) gives them the mockd and mock_world
fixtures; pytester runs inner sessions."""

import json
import os
import pathlib

import pytest

pytest_plugins = ["pytester"]

REPO = pathlib.Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def webhook_vector():
    """The signed delivery the Go, Python and TypeScript tests share."""
    return json.loads((REPO / "clients" / "testdata" / "webhook.json").read_text())


@pytest.fixture
def chat(mock_world):
    """chat(op, body) sends one chat call to the test's world with the
    default scenario's keys and returns (status, answer)."""
    from mockplatform import _http

    def send(op, body):
        status, _, payload = _http.request(
            "POST", mock_world.runtime_url("us-1") + "/v1/acme/support/chat/" + op, body,
            headers={"X-API-KEY": "test-chat-key", "X-TOKEN": "test-connector-token"})
        return status, json.loads(payload)

    return send


def pytest_report_header(config):
    return "mockd: " + (os.environ.get("MOCKD_URL") or os.environ.get("MOCKD_BIN") or "mockd on PATH")
