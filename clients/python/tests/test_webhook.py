"""Webhook verification: the vector the Go helper accepts
(clients/testdata/webhook.json, TestWebhookVector)."""

from datetime import datetime, timezone

import pytest

from mockplatform import WebhookError, sign_webhook, verify_webhook, webhook_timestamp


def headers(v, **over):
    h = {"X-PolyAI-Timestamp": v["timestamp"], "x-polyai-signature": v["signature"]}
    h.update(over)
    return h


def test_verifies_the_shared_vector(webhook_vector):
    v = webhook_vector
    verify_webhook(v["secret"], headers(v), v["body"].encode())
    verify_webhook(v["secret"], headers(v), v["body"])
    assert sign_webhook(v["secret"], v["timestamp"], v["body"]) == v["signature"]
    assert webhook_timestamp(headers(v)) == datetime(2026, 1, 1, tzinfo=timezone.utc)


@pytest.mark.parametrize("secret,hdrs,body,message", [
    ("other", None, None, "signature mismatch"),
    (None, {"X-PolyAI-Timestamp": ""}, None, "missing"),
    (None, {"X-PolyAI-Timestamp": "soon"}, None, "unix seconds"),
    (None, None, '{"event_type":"alert.resolved"}', "signature mismatch"),
])
def test_refuses(webhook_vector, secret, hdrs, body, message):
    v = webhook_vector
    h = headers(v)
    h.update(hdrs or {})
    with pytest.raises(WebhookError, match=message):
        verify_webhook(secret or v["secret"], h, body or v["body"])
