package handlers

// Redaction of stored data for the surfaces that look at it
// (docs/security.md#secrets). The emulated API answers a conversation's
// state, its external events' payloads and a handoff state's data as they
// were stored: they are the test's own data, opaque to the service (the
// spec: "the payload is stored as opaque data"), and a test may read back
// what its third party sent. The web console shows the same data to
// whoever looks at the mock, so it shows them through the journal's
// rules: the values of the secret fields (secretFields), every value of a
// "headers" object and the password of a "url", in JSON values and in
// form fields.

import (
	"mime"
	"slices"

	"github.com/agentplatform/mockplatform/engine"
)

// RedactConversation redacts, in place, what the web console shows of a
// conversation record: its state, custom metrics and the payloads of its
// external events (JSON, and form data; XML and text payloads are shown
// as they came). c must be the caller's own copy (the store's getters
// return one).
func RedactConversation(c *engine.Conversation) {
	redactValue(c.State)
	redactValue(c.Metrics)
	c.Events = slices.Clone(c.Events)
	for i := range c.Events {
		c.Events[i].Payload = []byte(redactPayload(c.Events[i].ContentType, c.Events[i].Payload))
	}
}

// RedactData redacts, in place, a JSON value decoded into Go values (a
// handoff state's data), as RedactConversation does.
func RedactData(v any) { redactValue(v) }

// redactPayload is a request body of a content type, redacted as the
// journal redacts one.
func redactPayload(contentType string, body []byte) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" {
		return redactQuery(string(body))
	}
	return redactBody(body)
}
