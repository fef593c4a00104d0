"""The package's errors."""

from __future__ import annotations

# typing only for the checkers: importing it would double the
# package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any


class MockdError(Exception):
    """A control call that failed: status is the HTTP status (0 when no
    answer came), body the decoded answer ({"error": ...} for mockd's
    errors)."""

    def __init__(self, status: int, message: str, body: Any = None) -> None:
        super().__init__(message)
        self.status = status
        self.body = body


class CoverageUnavailable(MockdError):
    """The mockd answering has no coverage report (GET /_mock/coverage):
    an older version. Skip the check, or upgrade mockd."""


class WebhookError(ValueError):
    """A webhook delivery that does not verify."""
