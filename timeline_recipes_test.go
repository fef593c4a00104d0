package mockplatform

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

// The three timeline recipes of docs/timeline.md#timeline-recipes, each
// loaded from its fixture, advanced and checked on a real platform.

// recipeStart is the fixtures' clock start.
var recipeStart = time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)

// alertState is the state of an alert rule now, and its history.
func alertState(t *testing.T, p *Platform, id string) engine.AlertRuleStatus {
	t.Helper()
	rules, err := p.api.AlertRules()
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rules {
		if r.ID == id {
			return r
		}
	}
	t.Fatalf("no alert rule %s", id)
	return engine.AlertRuleStatus{}
}

// TestRecipeOutageWithRecovery: chat answers 502 for ten minutes, from
// 10m, then recovers; the background chats meet the outage too, so the
// api_errors rule fires during it without a client, and resolves after.
func TestRecipeOutageWithRecovery(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioFile("fixtures/timeline-outage.yaml"))
	create := func() int {
		t.Helper()
		return send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...).Status
	}
	for _, step := range []struct {
		advance time.Duration
		status  int
	}{{9 * time.Minute, 200}, {time.Minute, 502}, {5 * time.Minute, 502}, {5 * time.Minute, 200}} {
		p.Advance(step.advance)
		if got := create(); got != step.status {
			t.Fatalf("a client's chat at %s: %d, want %d", p.Now().Sub(recipeStart), got, step.status)
		}
	}
	if st := alertState(t, p, "ar_chaterrors"); st.State != "alert" {
		t.Fatalf("at 20m the api_errors rule is %s, want alert", st.State)
	}
	p.Advance(40 * time.Minute)

	// The background chats: 502 exactly inside the window, 200 elsewhere.
	var in, out, failedIn int
	for _, e := range p.Requests(RequestFilter{Source: "timeline"}) {
		at := e.Time.Sub(recipeStart)
		inside := at >= 10*time.Minute && at < 20*time.Minute
		switch {
		case inside && e.Status == 502 && e.Fault == "chat-outage":
			in++
		case !inside && e.Status == 200 && e.Fault == "":
			out++
		default:
			t.Errorf("%s %s at %s: %d (fault %q)", e.Method, e.Path, at, e.Status, e.Fault)
		}
		if inside && e.Timeline.Step == "start" {
			failedIn++
		}
	}
	if failedIn != 30 || out < 300 {
		t.Errorf("%d creates failed in the window (want 30, one every 20s), %d steps answered 200 outside", failedIn, out)
	}
	// The rule fired during the outage and resolved after it.
	st := alertState(t, p, "ar_chaterrors")
	var alertFrom, alertTo time.Duration
	for _, h := range st.History {
		if h.State == "alert" {
			alertFrom, alertTo = h.From.Sub(recipeStart), h.To.Sub(recipeStart)
		}
	}
	if st.State != "ok" || alertFrom < 10*time.Minute || alertFrom > 12*time.Minute || alertTo < 20*time.Minute || alertTo > 26*time.Minute {
		t.Errorf("api_errors rule: now %s, alert from %s to %s", st.State, alertFrom, alertTo)
	}
}

// TestRecipeAlertStorm: the ramping traffic fires the call_volume alert
// while the receiver is down: alerts.triggered fails as if answered 503,
// and is retried until an attempt lands after the receiver is back;
// alerts.resolved, once the storm ends, lands at once.
func TestRecipeAlertStorm(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got []string // the event types the receiver got
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var ev struct {
			EventType string `json:"event_type"`
		}
		if err := json.NewDecoder(r.Body).Decode(&ev); err != nil {
			t.Errorf("delivery body: %v", err)
		}
		mu.Lock()
		got = append(got, ev.EventType)
		mu.Unlock()
	}))
	t.Cleanup(srv.Close)
	p := Start(t, WithoutListener(), WithScenarioFile("fixtures/timeline-alert-storm.yaml"))
	mustStatus(t, send(t, p.Client(), "PATCH", p.BuilderURL("us")+"/v1/webhook-endpoints/whe_ops",
		map[string]any{"url": srv.URL + "/hooks"}, "x-api-key", "test-builder-key", "Content-Type", "application/json"), 200)

	p.Advance(time.Hour)
	st := alertState(t, p, "ar_busy")
	if st.State != "alert" || st.Since == nil || st.Since.Sub(recipeStart) < 20*time.Minute || st.Since.Sub(recipeStart) > 40*time.Minute {
		t.Fatalf("at 1h the call_volume rule is %s since %v, want alert since the outage (20m to 60m)", st.State, st.Since)
	}
	mu.Lock()
	if len(got) != 0 {
		t.Fatalf("the receiver got %v while it was down", got)
	}
	mu.Unlock()
	p.Advance(2 * time.Hour)

	type attempt struct {
		Type      string
		Status    int
		Delivered bool
		Down      bool
	}
	var log []attempt
	for _, d := range p.Deliveries() {
		at := d.Time.Sub(recipeStart)
		log = append(log, attempt{d.EventType, d.Status, d.Delivered, strings.HasSuffix(d.Error, "(receiver down: timeline)")})
		if down := at >= 20*time.Minute && at < time.Hour; down != strings.HasSuffix(d.Error, "(receiver down: timeline)") {
			t.Errorf("attempt at %s: %+v", at, d)
		}
	}
	want := []attempt{
		{"alerts.triggered", 503, false, true}, // when it fires
		{"alerts.triggered", 503, false, true}, // 1m later
		{"alerts.triggered", 503, false, true}, // 5m later
		{"alerts.triggered", 503, false, true}, // 15m later
		{"alerts.triggered", 200, true, false}, // 1h later: the receiver is back
		{"alerts.resolved", 200, true, false},  // the storm is over
	}
	if len(log) != len(want) {
		t.Fatalf("deliveries %+v, want %+v", log, want)
	}
	// The resolution comes after the storm, maybe before the last retry.
	slices.SortStableFunc(log, func(a, b attempt) int { return strings.Compare(a.Type, b.Type) })
	slices.SortStableFunc(want, func(a, b attempt) int { return strings.Compare(a.Type, b.Type) })
	if !slices.Equal(log, want) {
		t.Errorf("deliveries %+v, want %+v", log, want)
	}
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	if !slices.Equal(got, []string{"alerts.resolved", "alerts.triggered"}) {
		t.Errorf("the receiver got %v, want alerts.triggered and alerts.resolved once each", got)
	}
}

// TestRecipeHourlyCampaign: every hour for eight hours the campaign
// calls its twenty numbers, one every 5 seconds: the rate limit (10 a
// minute) turns two of each run away with 429, the others are placed, and
// every call placed ends, busy, unanswered or answered as its destination
// says.
func TestRecipeHourlyCampaign(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioFile("fixtures/timeline-campaign.yaml"))
	for run := range 8 {
		p.Advance(time.Hour) // the run at run·1h and its calls' ends
		from, to := time.Duration(run)*time.Hour, time.Duration(run+1)*time.Hour
		inRun := func(t time.Time) bool { return t.Sub(recipeStart) >= from && t.Sub(recipeStart) < to }
		var placed, limited int
		for _, e := range p.Requests(RequestFilter{Source: "timeline"}) {
			if !inRun(e.Time) || e.Timeline.Operation != "outboundCallCreate" {
				continue
			}
			switch e.Status {
			case 200:
				placed++
			case 429:
				limited++
			default:
				t.Errorf("run %d: %s answered %d", run, e.Path, e.Status)
			}
		}
		if placed != 18 || limited != 2 {
			t.Errorf("run %d: %d calls placed, %d turned away; want 18 and 2", run, placed, limited)
		}
		calls, err := p.api.OutboundCalls()
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, c := range calls {
			if !inRun(c.CreatedAt) {
				continue
			}
			n++
			want := "answered"
			switch c.ToNumber[len(c.ToNumber)-1] {
			case '3':
				want = "busy"
			case '7':
				want = "no_answer"
			}
			if c.Outcome != want || c.Status != "success" && c.Status != "failure" || c.EndAt.IsZero() || c.EndAt.After(p.Now()) {
				t.Errorf("run %d: call to %s: outcome %s (want %s), status %s, ended %v", run, c.ToNumber, c.Outcome, want, c.Status, c.EndAt)
			}
		}
		if n != 18 {
			t.Errorf("run %d: %d calls listed, want 18", run, n)
		}
	}
	if e := p.Timeline().Entries[0]; e.Occurrences != 8 || !e.Next.IsZero() || e.Ran != 160 || e.Failed != 16 {
		t.Errorf("the campaign's status %+v", e)
	}
}
