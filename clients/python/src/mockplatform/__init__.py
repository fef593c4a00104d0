"""mockplatform: the Python client of mockd, the agent platform mock.

    from mockplatform import Mockd

    with Mockd.start() as mockd:          # MOCKD_BIN, mockd on PATH, or MOCKD_IMAGE
        with mockd.world(seed=7) as w:    # an isolated world, deleted after
            w.advance("10m")
            print(w.requests(family="chat"))

In pytest, the plugin's fixtures mockd and mock_world do the same. The
manual: docs/clients.md of the repository."""

from .client import PRESETS, Control, Host, World
from .errors import CoverageUnavailable, MockdError, WebhookError
from .mockd import CONTAINER_LABEL, Mockd
from .webhook import (
    EVENT_ID_HEADER,
    SIGNATURE_HEADER,
    TIMESTAMP_HEADER,
    sign_webhook,
    verify_webhook,
    webhook_timestamp,
)

__version__ = "0.1.0"

__all__ = [
    "CONTAINER_LABEL",
    "EVENT_ID_HEADER",
    "PRESETS",
    "SIGNATURE_HEADER",
    "TIMESTAMP_HEADER",
    "Control",
    "CoverageUnavailable",
    "Host",
    "Mockd",
    "MockdError",
    "WebhookError",
    "World",
    "sign_webhook",
    "verify_webhook",
    "webhook_timestamp",
]
