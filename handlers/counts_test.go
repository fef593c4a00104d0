package handlers

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestCounts counts the default scenario's resources, then what requests
// added.
func TestCounts(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	count := func() map[string]int {
		t.Helper()
		list, err := h.api.Counts()
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]int{}
		for _, c := range list {
			m[c.What] = c.N
		}
		return m
	}
	before := count()
	h.chatCreateN(2)
	h.alertCreate(alertVolumeRule(nil))
	h.webhookCreate(map[string]any{"name": "ops", "url": "http://127.0.0.1:1/hooks", "event_types": []string{"alerts.triggered"}})
	outCall(h, map[string]any{"to_number": "+14155552671"})
	debugChat(h, map[string]any{"clientEnv": "sandbox"})
	after := count()
	want := map[string]int{}
	for k, v := range before {
		want[k] = v
	}
	want["conversations"] += 2
	want["alert rules"]++
	want["webhook endpoints"]++
	want["outbound calls"]++
	want["debug chats"]++
	if diff := cmp.Diff(want, after); diff != "" {
		t.Fatalf("counts (-want +got):\n%s", diff)
	}
	if before["agents"] != 1 || before["test runs"] != 0 || len(before) != 11 {
		t.Fatalf("default scenario counts: %v", before)
	}
}
