package handlers

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

func (h *harness) reserve(body any, key string) response {
	h.t.Helper()
	return h.do("POST", "/runtime/us-1/v1/conversations/dni-reservation", body, "x-api-key", key, "Content-Type", "application/json")
}

func TestDNIReserveAndDial(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	attrs := map[string]any{"shared_id": "1234", "customer": map[string]any{"name": "Ada", "age": 25.0}, "previous_calls": []any{"c1", "c2"}}
	r := h.reserve(map[string]any{"attributes": attrs}, "dni-key")
	mustStatus(t, r, 200)
	mustBody(t, r, engine.DniResponse{DNI: "+14155550100"})
	r = h.reserve(map[string]any{"attributes": map[string]any{}}, "dni-key")
	mustBody(t, r, engine.DniResponse{DNI: "+14155550101"})
	// Pool exhausted: the real 404 body.
	before := h.storeDump()
	r = h.reserve(map[string]any{"attributes": map[string]any{}}, "dni-key")
	mustStatus(t, r, 404)
	mustBody(t, r, dniError{Error: "Not Found", Message: engine.MsgDNINoRoute})
	if !reflect.DeepEqual(before, h.storeDump()) {
		t.Error("a refused reservation changed the store")
	}

	// A caller dials during the window: a VOICE-SIP conversation of the
	// agent whose first turn sees the attributes.
	h.advance(5 * time.Minute)
	res, err := h.api.Dial("+14155550100", "+447700900999")
	if err != nil {
		t.Fatal(err)
	}
	if res.Response != "Hello Ada" {
		t.Errorf("greeting = %q, want the attributes in the first turn", res.Response)
	}
	c := h.conversation(res.ConversationID)
	if c.Channel != "VOICE-SIP" || c.ToNumber != "+14155550100" || c.FromNumber != "+447700900999" || c.ProjectID != "2001" ||
		c.VariantID != "VARIANT-0000DEF0" || len(res.ConversationID) != 34 || res.ConversationID[:2] != "CA" {
		t.Errorf("dialled conversation = %+v", c)
	}
	if diff := cmp.Diff(attrs, c.State["integration_attributes"]); diff != "" {
		t.Errorf("state integration_attributes (-want +got):\n%s", diff)
	}
	if c.State["dni"] != "+14155550100" {
		t.Errorf("state dni = %v", c.State["dni"])
	}
	// The conversation appears in the Conversations API.
	ids := convIDs(t, h.convList("v3", "channel=VOICE-SIP&in_progress=true"))
	if !contains(ids, res.ConversationID) {
		t.Errorf("dialled conversation not listed: %v", ids)
	}

	// After the window (10m): not routed, and the number is free again.
	h.advance(5 * time.Minute)
	if _, err := h.api.Dial("+14155550100", ""); !errors.Is(err, engine.ErrNotRouted) {
		t.Errorf("dial after the window: %v, want ErrNotRouted", err)
	}
	if _, err := h.api.Dial("+19999999999", ""); !errors.Is(err, engine.ErrNotRouted) {
		t.Errorf("dial of an unknown number: %v, want ErrNotRouted", err)
	}
	r = h.reserve(map[string]any{"attributes": map[string]any{"x": 1}}, "dni-key")
	mustStatus(t, r, 200)
	mustBody(t, r, engine.DniResponse{DNI: "+14155550100"})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func TestDNIErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	for _, tc := range []struct {
		name   string
		body   any
		key    string
		status int
		want   dniError
	}{
		{"no attributes", map[string]any{}, "dni-key", 400, dniError{Error: "Bad Request", Message: engine.MsgDNIAttributes}},
		{"null attributes", `{"attributes":null}`, "dni-key", 400, dniError{Error: "Bad Request", Message: engine.MsgDNIAttributes}},
		{"array attributes", `{"attributes":[1,2]}`, "dni-key", 400, dniError{Error: "Bad Request", Message: engine.MsgDNIAttributes}},
		{"string attributes", `{"attributes":"x"}`, "dni-key", 400, dniError{Error: "Bad Request", Message: engine.MsgDNIAttributes}},
		{"not JSON", `{`, "dni-key", 400, dniError{Error: "Bad Request", Message: "Request body ends before its JSON value is complete (at byte 1)."}},
		{"no body", nil, "dni-key", 400, dniError{Error: "Bad Request", Message: "Request body is required."}},
		{"no key", map[string]any{"attributes": map[string]any{}}, "", 401, dniError{Error: "Unauthorized", Message: msgMissingKey}},
		{"other family key", map[string]any{"attributes": map[string]any{}}, "conv-key", 401, dniError{Error: "Unauthorized", Message: msgInvalidKey}},
		{"agent without pool", map[string]any{"attributes": map[string]any{}}, "dni-key-other", 404, dniError{Error: "Not Found", Message: engine.MsgDNINoRoute}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := h.storeLen()
			r := h.reserve(tc.body, tc.key)
			mustStatus(t, r, tc.status)
			mustBody(t, r, tc.want)
			if h.storeLen() != n {
				t.Error("a refused reservation changed the store")
			}
		})
	}
}

// TestReservations lists the stored reservations with their window, active
// until it closes.
func TestReservations(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	start := h.clock.Now()
	mustStatus(t, h.reserve(map[string]any{"attributes": map[string]any{}}, "dni-key"), 200)
	h.advance(time.Minute)
	mustStatus(t, h.reserve(map[string]any{"attributes": map[string]any{}}, "dni-key"), 200)
	h.advance(9 * time.Minute) // the first window (10m) closes
	got, err := h.api.Reservations()
	if err != nil {
		t.Fatal(err)
	}
	at := func(m int) time.Time { return start.Add(time.Duration(m) * time.Minute) }
	want := []engine.Reservation{
		{Number: "+14155550100", Region: "us", AccountID: "1001", ProjectID: "2001", ReservedAt: at(0), ExpiresAt: at(10)},
		{Number: "+14155550101", Region: "us", AccountID: "1001", ProjectID: "2001", ReservedAt: at(1), ExpiresAt: at(11), Active: true},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("reservations (-want +got):\n%s", diff)
	}
}
