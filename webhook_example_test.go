package mockplatform_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"

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
