package timeline

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/scenario"
)

// TestStatus: each entry's last and next firing, occurrences and
// activity at a time.
func TestStatus(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		"{id: outage, at: 10m, for: 10m, fault: {match: {family: chat}, action: {status: 502}}}",
		"{id: chats, from: 1h, until: 2h, traffic: {project: support, chats_per_minute: 6, arrivals: even, turns: 1, think: 20s}}",
		"{id: hooks, at: 30m, do: {webhook_receiver: down}}",
		"{id: back, at: 50m, do: {webhook_receiver: up}}",
		"{id: hourly, every: 1h, until: 3h, do: {outbound_campaign: {project: support, first: \"+15550100000\", count: 3, pace: 1m}}}",
	)
	type row struct {
		Last, Next  string
		Occurrences int64
		Active      bool
	}
	off := func(x time.Time) string {
		if x.IsZero() {
			return "-"
		}
		return x.Sub(t0).String()
	}
	for _, tc := range []struct {
		at   string
		want []row
	}{
		{"0s", []row{
			{"-", "10m0s", 0, false},
			{"-", "1h0m0s", 0, false},
			{"-", "30m0s", 0, false},
			{"-", "50m0s", 0, false},
			{"0s", "1m0s", 1, true},
		}},
		{"15m", []row{
			{"10m0s", "20m0s", 1, true},
			{"-", "1h0m0s", 0, false},
			{"-", "30m0s", 0, false},
			{"-", "50m0s", 0, false},
			{"2m0s", "1h0m0s", 1, false},
		}},
		{"40m", []row{
			{"20m0s", "-", 1, false},
			{"-", "1h0m0s", 0, false},
			{"30m0s", "-", 1, true},
			{"-", "50m0s", 0, false},
			{"2m0s", "1h0m0s", 1, false},
		}},
		{"1h5m", []row{
			{"20m0s", "-", 1, false},
			// Even arrivals every 10s from 1h.
			{"1h5m0s", "1h5m10s", 31, true},
			{"30m0s", "-", 1, false},
			{"50m0s", "-", 1, false},
			{"1h2m0s", "2h0m0s", 2, false},
		}},
		{"5h", []row{
			{"20m0s", "-", 1, false},
			{"1h59m50s", "-", 360, false},
			{"30m0s", "-", 1, false},
			{"50m0s", "-", 1, false},
			{"2h2m0s", "-", 3, false},
		}},
	} {
		var got []row
		for _, st := range s.Status(at(t, tc.at)) {
			got = append(got, row{off(st.Last), off(st.Next), st.Occurrences, st.Active})
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Status at %s (-want +got):\n%s", tc.at, diff)
		}
	}
	st := s.Status(at(t, "15m"))[0]
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"entry":0,"id":"outage","kind":"fault","last":"2026-01-01T00:10:00Z","next":"2026-01-01T00:20:00Z","occurrences":1,"active":true}`; string(b) != want {
		t.Errorf("JSON %s, want %s", b, want)
	}
}

// TestStatusPoisson: with Poisson arrivals the status agrees with the
// conversation starts among the firings.
func TestStatusPoisson(t *testing.T) {
	t.Parallel()
	s := schedule(t, "{until: 3h, calls: {number: \"+14155550150\", calls_per_minute: 0.2, ramp_to: 3, think: 1m-5m, turns: 1-3}}")
	all := s.Between(t0.Add(-time.Nanosecond), at(t, "4h"))
	for _, now := range []string{"0s", "7m", "31m17s", "1h", "2h59m59s", "3h", "3h30m"} {
		x := at(t, now)
		var want EntryStatus
		want.Kind = scenario.EntryCalls
		want.Active = x.Before(at(t, "3h"))
		for _, f := range all {
			if f.Step != StepStart {
				continue
			}
			if !f.At.After(x) {
				want.Last = f.At
				want.Occurrences++
			} else if want.Next.IsZero() {
				want.Next = f.At
			}
		}
		if diff := cmp.Diff(want, s.Status(x)[0]); diff != "" {
			t.Errorf("Status at %s (-from the firings +got):\n%s", now, diff)
		}
	}
}

// TestReceiver: down windows, ups and endpoints decide whether a
// receiver is down.
func TestReceiver(t *testing.T) {
	t.Parallel()
	s := schedule(t,
		"{at: 10m, do: {webhook_receiver: down, for: 10m}}",
		"{at: 30m, do: {webhook_receiver: down, status: 500, endpoint: whe_ops}}",
		"{at: 40m, do: {webhook_receiver: up, endpoint: whe_ops}}",
		"{at: 1h, every: 1h, until: 3h, do: {webhook_receiver: down, for: 5m, status: 429}}",
		"{at: 4h, do: {webhook_receiver: down, for: 1m, endpoint: ops-hook}}",
	)
	for _, tc := range []struct {
		at     string
		names  []string
		status int
		down   bool
	}{
		{"9m", nil, 0, false},
		{"10m", nil, 503, true},
		{"19m59s", []string{"whe_x", "x"}, 503, true},
		{"20m", nil, 0, false},
		{"35m", []string{"whe_ops", "ops-hook"}, 500, true},
		{"35m", []string{"whe_other", "other"}, 0, false},
		{"45m", []string{"whe_ops", "ops-hook"}, 0, false},
		{"1h2m", []string{"whe_other", "other"}, 429, true},
		{"1h6m", []string{"whe_other", "other"}, 0, false},
		{"2h3m", nil, 429, true},
		{"3h3m", nil, 0, false},
		{"4h", []string{"whe_ops", "ops-hook"}, 503, true},
		{"4h", []string{"whe_other", "other"}, 0, false},
	} {
		status, down := s.Receiver(at(t, tc.at), tc.names...)
		if status != tc.status || down != tc.down {
			t.Errorf("Receiver at %s for %v = %d, %v; want %d, %v", tc.at, tc.names, status, down, tc.status, tc.down)
		}
	}
	var active []bool
	for _, st := range s.Status(at(t, "35m")) {
		active = append(active, st.Active)
	}
	if want := []bool{false, true, false, false, false}; !cmp.Equal(active, want) {
		t.Errorf("active at 35m %v, want %v", active, want)
	}
	for _, st := range s.Status(at(t, "45m")) {
		if st.Active && st.Entry == 1 {
			t.Errorf("the down without for of whe_ops is active after its up: %+v", st)
		}
	}
}

// TestConcurrentUse: a schedule answers from several goroutines at once
// (the clock's path and control requests).
func TestConcurrentUse(t *testing.T) {
	t.Parallel()
	s := schedule(t, "{until: 12h, traffic: {project: support, chats_per_minute: 3}}")
	from, to, now := at(t, "6h"), at(t, "7h"), at(t, "11h")
	want := s.Between(from, to)
	done := make(chan []Firing)
	for range 4 {
		go func() {
			s.Status(now)
			done <- s.Between(from, to)
		}()
	}
	for range 4 {
		if got := <-done; len(got) != len(want) || brief(got) != brief(want) {
			t.Error("concurrent Between differs")
		}
	}
}
