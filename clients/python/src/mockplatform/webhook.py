"""Webhook signature verification: the scheme of the Go helper
mockplatform.VerifyWebhook (docs/fidelity.md G16). X-PolyAI-Signature is
the lower-case hex HMAC-SHA256, keyed with the endpoint's signing secret,
of "{X-PolyAI-Timestamp}.{raw body}"."""

from __future__ import annotations

import hashlib
import hmac
from datetime import datetime, timezone
# typing only for the checkers: importing it would double the
# package's import time.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Mapping, Union

from .errors import WebhookError

TIMESTAMP_HEADER = "X-PolyAI-Timestamp"
SIGNATURE_HEADER = "X-PolyAI-Signature"
EVENT_ID_HEADER = "X-PolyAI-Event-ID"


def _header(headers: Mapping[str, str], name: str) -> str:
    for key, value in headers.items():
        if key.lower() == name.lower():
            return value
    return ""


def sign_webhook(secret: str, timestamp: str, body: Union[bytes, str]) -> str:
    """The signature mockd (and the real service) sends with a delivery."""
    raw = body.encode() if isinstance(body, str) else body
    return hmac.new(secret.encode(), timestamp.encode() + b"." + raw, hashlib.sha256).hexdigest()


def verify_webhook(secret: str, headers: Mapping[str, str], body: Union[bytes, str]) -> None:
    """Checks a delivery your receiver got; body must be the raw request
    body. Raises WebhookError when a header is missing, the timestamp is
    not unix seconds or the signature does not match. The timestamp's age
    is not checked (mockd signs with its virtual clock): compare
    webhook_timestamp(headers) with your clock (the real service advises
    refusing deliveries older than 300 s)."""
    ts, sig = _header(headers, TIMESTAMP_HEADER), _header(headers, SIGNATURE_HEADER)
    if not ts or not sig:
        raise WebhookError(f"missing {TIMESTAMP_HEADER} or {SIGNATURE_HEADER}")
    if not ts.isdigit():
        raise WebhookError(f"{TIMESTAMP_HEADER} is not unix seconds")
    if not hmac.compare_digest(sign_webhook(secret, ts, body), sig):
        raise WebhookError("signature mismatch")


def webhook_timestamp(headers: Mapping[str, str]) -> datetime:
    """The X-PolyAI-Timestamp of a delivery, in UTC."""
    ts = _header(headers, TIMESTAMP_HEADER)
    if not ts.isdigit():
        raise WebhookError(f"{TIMESTAMP_HEADER} is not unix seconds")
    return datetime.fromtimestamp(int(ts), tz=timezone.utc)
