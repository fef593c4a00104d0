package timeline

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// voc is the vocabulary of these tests' scenarios (the platform's comes
// from its family table).
var voc = &scenario.Vocabulary{
	Kinds: []string{scenario.KindChat, scenario.KindConnector, scenario.KindBuilder, scenario.KindConversations,
		scenario.KindOutbound},
	ProjectKinds: []string{scenario.KindChat, scenario.KindConnector},
	Faults:       &faults.Vocabulary{Families: []string{"chat", "messaging", "agents", "webhooks", "outbound"}},
}

// t0 is the start of the schedules of these tests.
var t0 = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// base is a scenario with what every timeline kind refers to.
const base = `seed: 7
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        outbound: {enabled: true}
        dni: {numbers: ["+14155550100"]}
        connectors: [{id: C1, name: main, phone_numbers: ["+14155550150"]}]
credentials:
  - {kind: connector, key: k, account: acme, project: support, hosts: [localhost]}
timeline:
`

// schedule parses a timeline (its entries, one a line, as YAML list
// items) into a validated scenario and compiles it from t0.
func schedule(t testing.TB, entries ...string) *Schedule {
	t.Helper()
	sc := parse(t, entries...)
	s, err := New(sc.Timeline, t0, sc.Seed)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func parse(t testing.TB, entries ...string) *scenario.Scenario {
	t.Helper()
	doc := base
	for _, e := range entries {
		doc += "  - " + e + "\n"
	}
	sc, err := voc.Parse("t.yaml", []byte(doc))
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	return sc
}

// at is t0 plus a duration written as Go writes it ("1h30m").
func at(t testing.TB, d string) time.Time {
	t.Helper()
	x, err := time.ParseDuration(d)
	if err != nil {
		t.Fatal(err)
	}
	return t0.Add(x)
}

// brief describes firings one a line: offset, entry, step, occurrence and
// the step's detail.
func brief(fs []Firing) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.At.Sub(t0).String() + " #" + itoa(int64(f.Entry)) + " " + string(f.Step) + " " + itoa(f.Occurrence))
		switch f.Step {
		case StepCall:
			b.WriteString(" " + itoa(int64(f.Call)) + " " + f.Number)
		case StepTurn:
			b.WriteString(" " + itoa(int64(f.Turn)) + " " + f.Message())
		}
		b.WriteByte('\n')
	}
	return b.String()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
