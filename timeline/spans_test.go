package timeline

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestSpans: the spans of each entry that meet a stretch of time, in
// timeline order: repeated windows from the first that still holds,
// windows without end running to the stretch's end, traffic, actions from
// their first step to their last (an instant when they are one), at most
// the limit of each.
func TestSpans(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		`{at: 10m, for: 10m, every: 1h, until: 3h, fault: {match: {family: chat}, action: {status: 502}}}`,
		`{at: 2h, fault: {match: {family: chat}, action: {status: 503}}}`,
		`{from: 30m, until: 90m, traffic: {project: support, chats_per_minute: 1}}`,
		`{at: 20m, do: {webhook_receiver: down, for: 5m}}`,
		`{at: 50m, do: {outbound_campaign: {project: support, numbers: ["+15550100001", "+15550100002", "+15550100003"], pace: 10s}}}`,
		`{at: 1h, every: 10m, do: {publish: {agent: support}}}`,
		`{at: 3h, do: {webhook_receiver: down}}`,
	)
	from, to := at(t, "15m"), at(t, "2h30m")
	span := func(entry int, occ int64, a, b string, open bool) Span {
		return Span{Entry: entry, Occurrence: occ, Start: at(t, a), End: at(t, b), Open: open}
	}
	want := []Span{
		span(0, 0, "10m", "20m", false), // holds at 15m
		span(0, 1, "1h10m", "1h20m", false),
		span(0, 2, "2h10m", "2h20m", false),
		span(1, 0, "2h", "2h30m", true),
		span(2, 0, "30m", "1h30m", false),
		span(3, 0, "20m", "25m", false),
		span(4, 0, "50m", "50m20s", false),
		span(5, 0, "1h", "1h", false), // publish: instants, at most 3
		span(5, 1, "1h10m", "1h10m", false),
		span(5, 2, "1h20m", "1h20m", false),
	}
	if diff := cmp.Diff(want, s.Spans(from, to, 3)); diff != "" {
		t.Fatalf("spans (-want +got):\n%s", diff)
	}
	if got := s.Spans(to, from, 3); got != nil {
		t.Errorf("a stretch that ends before it starts: %+v", got)
	}
	// Later: the open windows and the endless publish (a limit below 1
	// is 1).
	late := s.Spans(at(t, "10h"), at(t, "11h"), 0)
	want = []Span{span(1, 0, "2h", "11h", true), span(5, 54, "10h", "10h", false), span(6, 0, "3h", "11h", true)}
	if diff := cmp.Diff(want, late); diff != "" {
		t.Fatalf("late spans (-want +got):\n%s", diff)
	}
}
