package timeline

import (
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/faults"
)

// recipe loads a fixture of docs/timeline.md's recipes and
// compiles its timeline from the scenario's start.
func recipe(t *testing.T, file string) *Schedule {
	t.Helper()
	sc, err := voc.Load("../fixtures/" + file)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(sc.Timeline, sc.Clock.Start, sc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRecipeOutage: chat answers 502 from 10m to 20m, and not before or
// after.
func TestRecipeOutage(t *testing.T) {
	t.Parallel()
	s := recipe(t, "timeline-outage.yaml")
	set := faults.NewSet(voc.Faults, 1)
	if err := set.ReplaceWindowed(s.FaultRules(), nil, 1); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		at     time.Duration
		status int
	}{{9*time.Minute + 59*time.Second, 0}, {10 * time.Minute, 502}, {19 * time.Minute, 502}, {20 * time.Minute, 0}} {
		r, _ := set.Match(faults.Request{Family: "chat", Method: "POST", Path: "/v1/acme/support/chat/respond", Time: s.Start().Add(tc.at)})
		if r.Action.Status != tc.status {
			t.Errorf("chat at %s: status %d, want %d", tc.at, r.Action.Status, tc.status)
		}
	}
	// Background chats arrive throughout: one every 20 seconds.
	if n := starts(s, s.Start().Add(-time.Nanosecond), s.Start().Add(time.Hour)); n != 180 {
		t.Errorf("%d chats in the hour, want 180", n)
	}
}

// TestRecipeAlertStorm: the traffic crosses the alert's threshold (100
// started in 5 minutes) while the receiver is down.
func TestRecipeAlertStorm(t *testing.T) {
	t.Parallel()
	s := recipe(t, "timeline-alert-storm.yaml")
	all := s.Between(s.Start().Add(-time.Nanosecond), s.Start().Add(2*time.Hour))
	var startsAt []time.Duration
	for _, f := range all {
		if f.Step == StepStart {
			startsAt = append(startsAt, f.At.Sub(s.Start()))
		}
	}
	if n := len(startsAt); n < 1200 || n > 1500 {
		t.Errorf("%d conversations, want about 1350", n)
	}
	// The first evaluation (every minute) whose 5-minute window holds
	// 100 starts.
	var fires time.Duration
	for m := time.Minute; m <= time.Hour && fires == 0; m += time.Minute {
		n := 0
		for _, at := range startsAt {
			if at > m-5*time.Minute && at <= m {
				n++
			}
		}
		if n >= 100 {
			fires = m
		}
	}
	if fires < 20*time.Minute || fires >= 40*time.Minute {
		t.Fatalf("the alert would fire at %s, want inside the receiver's outage", fires)
	}
	for _, at := range []time.Duration{fires, fires + time.Minute, fires + 6*time.Minute, fires + 21*time.Minute} {
		if status, down := s.Receiver(s.Start().Add(at), "whe_ops", "ops"); !down || status != 503 {
			t.Errorf("attempt at %s: receiver %d, %v; want down with 503", at, status, down)
		}
	}
	if _, down := s.Receiver(s.Start().Add(fires+81*time.Minute), "whe_ops", "ops"); down {
		t.Errorf("the receiver is still down an hour after the fourth attempt")
	}
}

// TestRecipeCampaign: twenty calls, one every 5 seconds, every hour of
// an eight-hour day.
func TestRecipeCampaign(t *testing.T) {
	t.Parallel()
	s := recipe(t, "timeline-campaign.yaml")
	fs := s.Between(s.Start().Add(-time.Nanosecond), s.Start().Add(24*time.Hour))
	if len(fs) != 160 {
		t.Fatalf("%d calls, want 8 runs of 20", len(fs))
	}
	for i, f := range fs {
		run, call := i/20, i%20
		want := time.Duration(run)*time.Hour + time.Duration(call)*5*time.Second
		if f.Step != StepCall || f.Occurrence != int64(run) || f.Call != call || f.At.Sub(s.Start()) != want {
			t.Fatalf("call %d: %+v, want run %d call %d at %s", i, f, run, call, want)
		}
	}
	if fs[19].Number != "+15550100019" {
		t.Errorf("the 20th number is %s", fs[19].Number)
	}
}
