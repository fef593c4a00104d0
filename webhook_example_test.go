package mockplatform_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"testing"

	"github.com/agentplatform/mockplatform"
)

// A receiver checks each delivery with the endpoint's signing secret (the
// one returned when the endpoint was created or its secret last rotated).
func ExampleVerifyWebhook() {
	secret := "whsec_example"
	body := []byte(`{"event_type":"alerts.triggered","alert":{"id":"ar_1"}}`)

	// What the platform sends: hex HMAC-SHA256 of "{timestamp}.{body}".
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte("1767225600." + string(body)))
	header := http.Header{}
	header.Set("X-PolyAI-Timestamp", "1767225600")
	header.Set("X-PolyAI-Signature", hex.EncodeToString(mac.Sum(nil)))

	fmt.Println(mockplatform.VerifyWebhook(secret, header, body))
	fmt.Println(mockplatform.VerifyWebhook("whsec_old", header, body))
	// Output:
	// <nil>
	// mockplatform: webhook: signature mismatch
}

// TestWebhookVector: the signed delivery the Python and TypeScript
// clients' tests verify (clients/testdata/webhook.json) is one the Go
// helper accepts, so that the three verify the same scheme.
func TestWebhookVector(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("clients/testdata/webhook.json")
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ Secret, Timestamp, Body, Signature string }
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	h := http.Header{}
	h.Set(mockplatform.WebhookTimestampHeader, v.Timestamp)
	h.Set(mockplatform.WebhookSignatureHeader, v.Signature)
	if err := mockplatform.VerifyWebhook(v.Secret, h, []byte(v.Body)); err != nil {
		t.Fatalf("VerifyWebhook: %v", err)
	}
	if err := mockplatform.VerifyWebhook(v.Secret+"x", h, []byte(v.Body)); !errors.Is(err, mockplatform.ErrWebhookBadSignature) {
		t.Fatalf("VerifyWebhook with another secret: %v", err)
	}
}
