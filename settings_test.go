package mockplatform

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/handlers"
)

// TestSettingsOf: what an option list asks for, as other runners read it.
func TestSettingsOf(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "a.yaml")
	if err := os.WriteFile(file, []byte("name: a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	seed, worlds, idle := int64(9), 3, time.Minute
	start := time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC)
	got, err := SettingsOf(WithScenarioFile(file), WithScenarioYAML([]byte("name: b\n")), WithClock(ClockReal),
		WithSeed(seed), WithStartTime(start), WithDataFile("x.db"), WithPublicURL("http://mock.test/"),
		WithoutListener(), WithMaxWorlds(worlds), WithWorldIdleTimeout(idle), WithExtension("x"))
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Scenarios: []ScenarioSource{{Name: file, YAML: []byte("name: a\n")}, {Name: "<scenario>", YAML: []byte("name: b\n")}},
		Clock:     ClockReal, Start: start, Seed: &seed, DataFile: "x.db", PublicURL: "http://mock.test",
		NoListener: true, MaxWorlds: &worlds, WorldIdleTimeout: &idle, Extensions: []any{"x"},
	}
	if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(Settings{}, "Logger")); diff != "" {
		t.Errorf("settings (-want +got):\n%s", diff)
	}

	none, err := SettingsOf()
	if err != nil || !cmp.Equal(none, Settings{}) {
		t.Errorf("no options: %+v, %v; want the zero Settings", none, err)
	}
	parsed, err := SettingsOf(WithScenario(engine.DefaultScenario(handlers.Vocabulary())))
	if err != nil || !parsed.Parsed || parsed.Scenarios != nil {
		t.Errorf("WithScenario: %+v, %v; want Parsed and no source", parsed, err)
	}
	if _, err := SettingsOf(WithScenarioYAML([]byte("bogus: 1\n"))); err == nil {
		t.Error("a bad scenario gave no error")
	}
	var pathErr *os.PathError
	if _, err := SettingsOf(WithScenarioFile(filepath.Join(dir, "none.yaml"))); !errors.As(err, &pathErr) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestScenarioOptionsMerge: several scenario options merge in order, as
// mockd merges repeated --scenario files.
func TestScenarioOptionsMerge(t *testing.T) {
	t.Parallel()
	p := newPlatform(t, WithScenarioFile("fixtures/support-bot.yaml"), WithScenarioYAML([]byte("name: merged\nclock: {start: 2029-01-01T00:00:00Z}\n")))
	if p.Scenario().Name != "merged" || !p.Now().Equal(time.Date(2029, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("scenario %q at %v, want merged at the second's start", p.Scenario().Name, p.Now())
	}
	if _, err := p.Conversation("CONV-SEED-0001"); err != nil {
		t.Errorf("the first scenario's seeded conversation: %v", err)
	}
	if p.Err() != nil {
		t.Errorf("Err() = %v", p.Err())
	}
}
