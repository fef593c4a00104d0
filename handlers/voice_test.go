package handlers

import (
	"errors"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"

	"github.com/google/go-cmp/cmp"
)

// voiceDial reserves a number with attrs and dials it: the new call's id.
func (h *harness) voiceDial(attrs map[string]any) string {
	h.t.Helper()
	r := h.reserve(map[string]any{"attributes": attrs}, "dni-key")
	mustStatus(h.t, r, 200)
	res, err := h.api.Dial(r.Map(h.t)["dni"].(string), "+447700900555")
	if err != nil {
		h.t.Fatal(err)
	}
	return res.ConversationID
}

func (h *harness) voiceSay(id, text string) *engine.SayResult {
	h.t.Helper()
	res, err := h.api.Say(id, text)
	if err != nil {
		h.t.Fatalf("say %q: %v", text, err)
	}
	return res
}

// TestVoiceSayRunsTheDialogue: a caller's utterance is a user turn of the
// dialled call: the agent's answer, the turn in the record, a silent turn,
// then a handoff whose data the Handoff API returns and which ends the call.
func TestVoiceSayRunsTheDialogue(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	id := h.voiceDial(map[string]any{"customer_id": "C-9", "customer": map[string]any{"name": "Ada"}})
	h.advance(20 * time.Second)

	res := h.voiceSay(id, "can I get a refund")
	if diff := cmp.Diff(&engine.SayResult{ConversationID: id, Response: "Refunds take five days."}, res); diff != "" {
		t.Errorf("say (-want +got):\n%s", diff)
	}
	c := h.conversation(id)
	if len(c.Turns) != 2 || c.Turns[0].AgentResponse != "Hello Ada" || c.Turns[1].UserInput != "can I get a refund" ||
		c.Turns[1].AgentResponse != "Refunds take five days." || !c.Turns[1].UserInputAt.Equal(h.clock.Now()) || !c.InProgress {
		t.Errorf("turns after say = %+v", c.Turns)
	}
	// Silence: an empty utterance is a silent turn.
	h.voiceSay(id, "")
	if c = h.conversation(id); len(c.Turns) != 3 || !c.Turns[2].IsSilence || c.NumSilences != 1 {
		t.Errorf("silent turn = %+v (num_silences %d)", c.Turns[2], c.NumSilences)
	}

	// "agent": the handoff rule (turn 3 of the caller).
	res = h.voiceSay(id, "put me through to an agent")
	want := &engine.SayResult{ConversationID: id, Response: "Transferring you.", Ended: true,
		Handoff: &engine.CallHandoff{Destination: "queue_a", Reason: "asked"}}
	if diff := cmp.Diff(want, res); diff != "" {
		t.Errorf("say agent (-want +got):\n%s", diff)
	}
	r := h.do("GET", "/runtime/us-1/v1/acme/support/handoff_state?id="+id, nil, "x-api-key", "handoff-key")
	mustStatus(t, r, 200)
	mustBody(t, r, engine.HandoffResponse{ID: id, SharedID: "ticket-3",
		Data: map[string]any{"customer_id": "C-9", "note": "put me through to an agent"}})
	r = h.do("GET", "/runtime/us-1/v1/acme/support/handoff_state?shared_id=ticket-3", nil, "x-api-key", "handoff-key")
	mustStatus(t, r, 200)
	c = h.conversation(id)
	if c.InProgress || !c.Handoff || c.HandoffDestination != "queue_a" || c.SharedID != "ticket-3" {
		t.Errorf("handed-off call = %+v", c)
	}

	// The call is over: further turns and a hangup are refused, unchanged.
	before := h.storeDump()
	if _, err := h.api.Say(id, "hello?"); !errors.Is(err, engine.ErrCallEnded) {
		t.Errorf("say after the handoff: %v, want ErrCallEnded", err)
	}
	if err := h.api.Hangup(id); !errors.Is(err, engine.ErrCallEnded) {
		t.Errorf("hangup after the handoff: %v, want ErrCallEnded", err)
	}
	if !before.Equal(h.storeDump()) {
		t.Error("a refused turn changed the store")
	}
}

// TestVoiceSayExternalEvent: a caller's turn registers an awaited event;
// the webhook binds it; the next turn matches the event rule and ends.
func TestVoiceSayExternalEvent(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	id := h.voiceDial(map[string]any{})
	if res := h.voiceSay(id, "I want to pay INV7"); res.Response != "Waiting for payment INV7." {
		t.Fatalf("say = %+v", res)
	}
	r := h.event("event_id_location=payload&event_id_path=ref&"+eeQuery, "application/json", `{"ref":"INV7","status":"ok"}`)
	mustStatus(t, r, 201)
	// The rule "paid_any" (any event, message contains "status").
	if res := h.voiceSay(id, "status please"); res.Response != "An update has arrived." || res.Ended {
		t.Errorf("say after the event = %+v", res)
	}
	if c := h.conversation(id); c.State["payment_ref"] != "INV7" || len(c.Events) != 1 {
		t.Errorf("state = %v, events = %+v", c.State, c.Events)
	}
}

// TestVoiceHangup: the caller hangs up; the call is over at that instant,
// which the Conversations API and the concurrency series show.
func TestVoiceHangup(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	id := h.voiceDial(map[string]any{}) // 12:00; seeded CONV-S4 is in progress since 11:50
	h.advance(7 * time.Minute)
	// While in progress it counts up to now.
	r := h.concurrency("start_time=2026-03-01T12:00:00Z&end_time=2026-03-01T12:10:00Z")
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []convquery.ConcurrencyInterval{
		{Time: "2026-03-01T12:00:00Z", Max: 2}, {Time: "2026-03-01T12:05:00Z", Max: 2},
	}})
	if err := h.api.Hangup(id); err != nil {
		t.Fatal(err)
	}
	c := h.conversation(id)
	if c.InProgress || !c.EndedAt.Equal(h.clock.Now()) || c.State["closed_by"] != "caller" {
		t.Errorf("after hangup: in_progress %v, ended_at %v, closed_by %v", c.InProgress, c.EndedAt, c.State["closed_by"])
	}
	h.advance(10 * time.Minute) // 12:17
	r = h.concurrency("start_time=2026-03-01T12:00:00Z&end_time=2026-03-01T12:20:00Z")
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []convquery.ConcurrencyInterval{
		{Time: "2026-03-01T12:00:00Z", Max: 2}, {Time: "2026-03-01T12:05:00Z", Max: 2}, // ended 12:07
		{Time: "2026-03-01T12:10:00Z", Max: 1}, {Time: "2026-03-01T12:15:00Z", Max: 1}, // CONV-S4 only
	}})
	if ids := convIDs(t, h.convList("v3", "in_progress=false&channel=VOICE-SIP")); !contains(ids, id) {
		t.Errorf("hung-up call not among the ended ones: %v", ids)
	}
	if ids := convIDs(t, h.convList("v3", "in_progress=true&channel=VOICE-SIP")); contains(ids, id) {
		t.Errorf("hung-up call still in progress: %v", ids)
	}
	// A seeded in-progress call can be spoken to and hung up too.
	if res := h.voiceSay("CONV-S4", "refund"); res.Response != "Refunds take five days." {
		t.Errorf("say to the seeded call = %+v", res)
	}
	if err := h.api.Hangup("CONV-S4"); err != nil {
		t.Errorf("hangup of the seeded call: %v", err)
	}
}

func TestVoiceErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	chat := h.dataCreate(nil) // an in-progress CHAT conversation
	for _, tc := range []struct {
		name, id string
		want     error
	}{
		{"unknown id", "CA-nope", engine.ErrCallNotFound},
		{"empty id", "", engine.ErrCallNotFound},
		{"chat conversation", chat, engine.ErrNotVoice},
		{"ended webchat", "CONV-S2", engine.ErrNotVoice},
		{"ended call", "CONV-S1", engine.ErrCallEnded},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := h.storeDump()
			if _, err := h.api.Say(tc.id, "hello"); !errors.Is(err, tc.want) {
				t.Errorf("say: %v, want %v", err, tc.want)
			}
			if err := h.api.Hangup(tc.id); !errors.Is(err, tc.want) {
				t.Errorf("hangup: %v, want %v", err, tc.want)
			}
			if !before.Equal(h.storeDump()) {
				t.Error("a refused call operation changed the store")
			}
		})
	}
}
