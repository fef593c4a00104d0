package engine

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/scenario"
)

// openTimelineEngine opens an engine of the default scenario with a
// timeline (YAML from "timeline:" on) on the manual clock; act, when set,
// sees what the timeline runs.
func openTimelineEngine(t *testing.T, tl string, act func(Activity)) *Engine {
	t.Helper()
	sc, err := testVocabulary.Parse("t.yaml", append(scenario.DefaultYAML(), "\n"+tl...))
	if err != nil {
		t.Fatal(err)
	}
	e, err := OpenEngine(Config{Vocabulary: testVocabulary, Scenario: sc})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	if act != nil {
		e.OnActivity(act)
	}
	if err := e.Load(); err != nil {
		t.Fatal(err)
	}
	return e
}

// TestTimelineActivities: the subscribers see each step that stands for
// a request, in order, at its time, with its source, operation and
// outcome; a step that has nothing to run it (messaging sessions without
// an edge) fails and is counted, not reported.
func TestTimelineActivities(t *testing.T) {
	t.Parallel()
	var got []Activity
	e := openTimelineEngine(t, `timeline:
  - {at: 1m, every: 1m, until: 3m, do: {api_errors: {project: support}}}
  - {at: 90s, do: {evaluate_alerts: true}}
  - {until: 1s, sessions: {project: support, sessions_per_minute: 60, arrivals: even}}
`, func(a Activity) { got = append(got, a) })
	if _, err := e.clock.Advance(context.Background(), 5*time.Minute); err != nil {
		t.Fatal(err)
	}
	start := clockStart(e)
	type row struct {
		At                time.Duration
		Source, Op, Path  string
		Status, Entry     int
		Step, Error, Body string
	}
	var rows []row
	for _, a := range got {
		rows = append(rows, row{a.Time.Sub(start), a.Source, a.Step.Operation, a.Path, a.Status, a.Step.Entry, a.Step.Step, a.Step.Error, string(a.Request)})
	}
	body := `{"account":"acme","kind":"api_error","project":"support"}`
	want := []row{
		{time.Minute, SourceTimeline, "recordAlertInput", "/_mock/alerts/inputs", 200, 0, "do", "", body},
		{90 * time.Second, SourceTimeline, "evaluateAlerts", "/_mock/alerts/evaluate", 200, 1, "do", "", ""},
		{2 * time.Minute, SourceTimeline, "recordAlertInput", "/_mock/alerts/inputs", 200, 0, "do", "", body},
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Fatalf("activities (-want +got):\n%s", diff)
	}
	st := e.Timeline().Entries
	if st[2].Ran != 1 || st[2].Failed != 1 || st[2].LastError != ErrNoSessions.Error() {
		t.Errorf("the sessions' status %+v", st[2])
	}
}

// clockStart is the clock's start (the timeline's).
func clockStart(e *Engine) time.Time { return e.Timeline().Start }
