package handlers

import (
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

// An answered outbound call whose conversation ends early (the callee hangs
// up, or the agent ends or hands off) completes at that moment: status
// success, and the 2-hour retention counts from then.
func TestOutboundConversationEndsCall(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		end  func(h *harness, sid string)
	}{
		{"hangup", func(h *harness, sid string) {
			if err := h.api.Hangup(sid); err != nil {
				h.t.Fatal(err)
			}
		}},
		{"agent ends", func(h *harness, sid string) {
			r, err := h.api.Say(sid, "ok bye")
			if err != nil || !r.Ended {
				h.t.Fatalf("Say = %+v, %v", r, err)
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			sid := outCall(h, map[string]any{"to_number": "+14155552671"})
			h.advance(10 * time.Second) // queued 5s, ringing 5s: answered
			outStatus(h, sid, "calling", "")
			h.advance(3 * time.Second)
			tc.end(h, sid)
			outStatus(h, sid, "success", "")
			conv := h.conversation(sid)
			if conv.InProgress {
				t.Fatal("conversation still in progress")
			}
			// The planned end (25 s of talk) changes nothing any more.
			h.advance(30 * time.Second)
			outStatus(h, sid, "success", "")
			h.advance(2*time.Hour - 30*time.Second + engine.DefaultLatency)
			outGone(h, sid)
		})
	}
}
