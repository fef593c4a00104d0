package handlers

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/store"
)

func (h *harness) concurrency(query string) response {
	h.t.Helper()
	return h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?"+query, nil, "x-api-key", "conv-key")
}

// putSpan stores a finished conversation of the test project.
func (h *harness) putSpan(id string, start time.Time, d time.Duration, mutate ...func(*store.Conversation)) {
	h.t.Helper()
	c := &store.Conversation{ID: id, Region: "us", AccountID: "1001", ProjectID: "2001", Environment: "live",
		Channel: "VOICE-SIP", StartedAt: start, EndedAt: start.Add(d)}
	for _, m := range mutate {
		m(c)
	}
	if err := h.store.PutConversation(c); err != nil {
		h.t.Fatal(err)
	}
}

var concBase = time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC)

func TestConcurrencyPeak(t *testing.T) {
	h := newHarness(t, dataScenario)
	// Interval 09:00: A [09:00,09:02) and B [09:03,09:04) never overlap
	// (peak 1, though two touch it); C [09:01,09:09) overlaps A.
	h.putSpan("A", concBase, 2*time.Minute)
	h.putSpan("B", concBase.Add(3*time.Minute), time.Minute)
	h.putSpan("C", concBase.Add(time.Minute), 8*time.Minute)
	// D ends exactly at 09:10 and E starts exactly there: no overlap.
	h.putSpan("D", concBase.Add(6*time.Minute), 4*time.Minute)
	h.putSpan("E", concBase.Add(10*time.Minute), time.Minute)
	// Other environment and project: not counted.
	h.putSpan("F", concBase, time.Hour, func(c *store.Conversation) { c.Environment = "sandbox" })
	h.putSpan("G", concBase, time.Hour, func(c *store.Conversation) { c.ProjectID = "2002" })
	r := h.concurrency("start_time=2026-02-10T09:02:30Z&end_time=2026-02-10T09:12:01Z")
	mustStatus(t, r, 200)
	mustBody(t, r, concurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []concurrencyInterval{
		{Time: "2026-02-10T09:00:00Z", Max: 2}, // rounded down
		{Time: "2026-02-10T09:05:00Z", Max: 2}, // C and D
		{Time: "2026-02-10T09:10:00Z", Max: 1}, // E only; rounded up to 09:15
	}})
	r = h.concurrency("start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T09:05:00Z&client_env=sandbox")
	mustBody(t, r, concurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001",
		Intervals: []concurrencyInterval{{Time: "2026-02-10T09:00:00Z", Max: 1}}})
}

// TestConcurrencyProperty compares the sweep with a brute force over
// every nanosecond boundary of random data.
func TestConcurrencyProperty(t *testing.T) {
	h := newHarness(t, dataScenario)
	r := rand.New(rand.NewPCG(3, 4))
	type iv struct{ s, e time.Time }
	var spans []iv
	for i := range 300 {
		s := concBase.Add(time.Duration(r.IntN(3600)) * time.Second)
		d := time.Duration(1+r.IntN(900)) * time.Second
		h.putSpan(fmt.Sprintf("P%03d", i), s, d)
		spans = append(spans, iv{s, s.Add(d)})
	}
	resp := h.concurrency("start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T10:00:00Z")
	mustStatus(t, resp, 200)
	got := resp.Map(t)["intervals"].([]any)
	for k := range 12 {
		lo := concBase.Add(time.Duration(k) * 5 * time.Minute)
		hi := lo.Add(5 * time.Minute)
		// The peak is reached at lo or at some start inside the interval.
		want := 0
		points := []time.Time{lo}
		for _, s := range spans {
			if !s.s.Before(lo) && s.s.Before(hi) {
				points = append(points, s.s)
			}
		}
		for _, p := range points {
			n := 0
			for _, s := range spans {
				if !p.Before(s.s) && p.Before(s.e) {
					n++
				}
			}
			want = max(want, n)
		}
		if g := int(got[k].(map[string]any)["max_concurrent_conversations"].(float64)); g != want {
			t.Errorf("interval %s: peak %d, want %d", lo.Format(time.RFC3339), g, want)
		}
	}
}

func TestConcurrencyInProgressCountsToNow(t *testing.T) {
	h := newHarness(t, dataScenario)
	// Seed CONV-S4 started 11:50 and is in progress; now is 12:00.
	r := h.concurrency("start_time=2026-03-01T11:45:00Z&end_time=2026-03-01T12:05:00Z")
	mustBody(t, r, concurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []concurrencyInterval{
		{Time: "2026-03-01T11:45:00Z", Max: 0}, {Time: "2026-03-01T11:50:00Z", Max: 1},
		{Time: "2026-03-01T11:55:00Z", Max: 1}, {Time: "2026-03-01T12:00:00Z", Max: 0},
	}})
	h.clock.Advance(time.Minute)
	r = h.concurrency("start_time=2026-03-01T12:00:00Z&end_time=2026-03-01T12:05:00Z")
	mustBody(t, r, concurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001",
		Intervals: []concurrencyInterval{{Time: "2026-03-01T12:00:00Z", Max: 1}}})
}

func TestConcurrencyFiltersAndSlices(t *testing.T) {
	h := newHarness(t, dataScenario)
	set := func(v, vn, lang, from string) func(*store.Conversation) {
		return func(c *store.Conversation) { c.VariantID, c.VariantName, c.Language, c.FromNumber = v, vn, lang, from }
	}
	h.putSpan("V1", concBase, 4*time.Minute, set("VARIANT-0000DEF0", "Default", "en-GB", "+441"))
	h.putSpan("V2", concBase, 4*time.Minute, set("VARIANT-00000B2B", "Spring Promo", "en-US", "+442"))
	h.putSpan("V3", concBase.Add(time.Minute), 5*time.Minute, set("VARIANT-00000B2B", "Spring Promo", "en-US", "+443"))
	q := "start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T09:10:00Z"
	peak := func(query string) []int {
		t.Helper()
		r := h.concurrency(q + "&" + query)
		mustStatus(t, r, 200)
		var out []int
		for _, iv := range r.Map(t)["intervals"].([]any) {
			out = append(out, int(iv.(map[string]any)["max_concurrent_conversations"].(float64)))
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []int
	}{
		{"", []int{3, 1}},
		{"variant_id=VARIANT-00000B2B", []int{2, 1}},
		{"variant_name=Spring%20Promo", []int{2, 1}},
		{"variant_name=Default", []int{1, 0}},
		{"language=en-GB", []int{1, 0}},
		{"phone_number=%2B443", []int{1, 1}},
		{"variant_id=nope", []int{0, 0}},
	} {
		if diff := cmp.Diff(tc.want, peak(tc.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.query, diff)
		}
	}
	r := h.concurrency(q + "&slice_by=variant")
	s := func(x string) *string { return &x }
	mustBody(t, r, concurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []concurrencyInterval{
		{Time: "2026-02-10T09:00:00Z", Max: 2, VariantID: s("VARIANT-00000B2B"), VariantName: s("Spring Promo")},
		{Time: "2026-02-10T09:00:00Z", Max: 1, VariantID: s("VARIANT-0000DEF0"), VariantName: s("Default")},
		{Time: "2026-02-10T09:05:00Z", Max: 1, VariantID: s("VARIANT-00000B2B"), VariantName: s("Spring Promo")},
		{Time: "2026-02-10T09:05:00Z", Max: 0, VariantID: s("VARIANT-0000DEF0"), VariantName: s("Default")},
	}})
}

func TestConcurrencyErrors(t *testing.T) {
	h := newHarness(t, dataScenario)
	ok := "start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T10:00:00Z"
	for _, tc := range []struct {
		query  string
		status int
		msg    string
	}{
		{"end_time=2026-02-10T10:00:00Z", 400, MsgConcStartRequired},
		{"start_time=2026-02-10T10:00:00Z", 400, MsgConcEndRequired},
		{"start_time=x&end_time=2026-02-10T10:00:00Z", 400, "start_time must be an ISO 8601 date-time such as 2026-03-01T14:15:00Z."},
		{"start_time=2026-02-10T10:00:00Z&end_time=2026-02-10T09:00:00Z", 400, MsgConcRange},
		{"start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:01Z", 400, MsgConcRange},
		{ok + "&variant_id=a&variant_name=b", 400, MsgConcVariantBoth},
		{ok + "&client_env=prod", 400, MsgConcEnvInvalid},
		{ok + "&slice_by=language", 501, "slice_by=language is not implemented."},
		{ok + "&slice_by=phone_number", 501, "slice_by=phone_number is not implemented."},
		{ok + "&slice_by=colour", 400, MsgConcSliceInvalid},
	} {
		r := h.concurrency(tc.query)
		mustStatus(t, r, tc.status)
		mustBody(t, r, map[string]any{"error_message": tc.msg})
	}
	r := h.do("GET", "/runtime/us-1/v1/acme/nope/conversations/concurrency?"+ok, nil, "x-api-key", "conv-key")
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"error_message": "Project ID does not exist."})
	r = h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?"+ok, nil, "x-api-key", "conv-key-other")
	mustStatus(t, r, 403)
	r = h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?"+ok, nil)
	mustStatus(t, r, 401)
	mustBody(t, r, map[string]any{"error_message": msgMissingKey})
	// Exactly one week is allowed.
	r = h.concurrency("start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:00Z")
	mustStatus(t, r, 200)
	if n := len(r.Map(t)["intervals"].([]any)); n != 7*24*12 {
		t.Errorf("one week gives %d intervals, want %d", n, 7*24*12)
	}
}
