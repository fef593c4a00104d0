package mockplatform

import (
	"crypto/hmac"
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

// Webhook delivery headers (docs/fidelity.md G16).
const (
	WebhookTimestampHeader = engine.HeaderWebhookTimestamp
	WebhookSignatureHeader = engine.HeaderWebhookSignature
	WebhookEventIDHeader   = engine.HeaderWebhookEventID
)

// Errors of VerifyWebhook.
var (
	ErrWebhookMissingHeaders = errors.New("mockplatform: webhook: missing X-PolyAI-Timestamp or X-PolyAI-Signature")
	ErrWebhookBadTimestamp   = errors.New("mockplatform: webhook: X-PolyAI-Timestamp is not unix seconds")
	ErrWebhookBadSignature   = errors.New("mockplatform: webhook: signature mismatch")
)

// VerifyWebhook checks an alert notification's signature: X-PolyAI-Signature
// is the hex HMAC-SHA256, keyed with the signing secret, of
// "{X-PolyAI-Timestamp}.{body}" (the raw body). It does not check the
// timestamp's age, which the mock signs on its virtual clock: read it with
// WebhookTimestamp and compare with that clock (the real service advises
// rejecting deliveries older than 300 s).
func VerifyWebhook(secret string, header http.Header, body []byte) error {
	ts, sig := header.Get(WebhookTimestampHeader), header.Get(WebhookSignatureHeader)
	if ts == "" || sig == "" {
		return ErrWebhookMissingHeaders
	}
	if _, err := strconv.ParseInt(ts, 10, 64); err != nil {
		return ErrWebhookBadTimestamp
	}
	want := engine.Sign(secret, ts, body) // the one signer, the deliveries' own
	if !hmac.Equal([]byte(want), []byte(sig)) {
		return ErrWebhookBadSignature
	}
	return nil
}

// WebhookTimestamp reads the X-PolyAI-Timestamp of a delivery.
func WebhookTimestamp(header http.Header) (time.Time, error) {
	n, err := strconv.ParseInt(header.Get(WebhookTimestampHeader), 10, 64)
	if err != nil {
		return time.Time{}, ErrWebhookBadTimestamp
	}
	return time.Unix(n, 0).UTC(), nil
}
