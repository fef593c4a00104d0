package mockplatform

import (
	"fmt"
	"testing"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/handlers"
)

// fillCoverage counts, on p's own paths, every item of the catalogue
// (each operation with each of its statuses and codes, every transition,
// clock event and preset) and as much outside it as the bounds keep: the
// largest report a run can leave, more than a full behaviour-suite run.
func fillCoverage(p *Platform) {
	cov, cat := p.api.Coverage(), handlers.Catalogue()
	for _, f := range cat.Families {
		for _, op := range f.Operations {
			i := cat.OperationIndex(op.ID)
			for _, st := range op.Statuses {
				cov.Request(i, st, "", "", "", coverage.SourceClient)
			}
			for _, c := range op.Codes {
				cov.Request(i, c.Status, c.Code, "", "", coverage.SourceClient)
			}
			for n := range 64 {
				cov.Request(i, 500+n, fmt.Sprintf("FAULT_%d", n), fmt.Sprintf("rule-%d", n), "", coverage.SourceClient)
			}
		}
		for _, m := range f.Machines {
			for _, t := range m.Transitions {
				cov.Transition(m.Name, t.From, t.To)
			}
		}
		for _, e := range f.ClockEvents {
			cov.ClockEvent(e.Kind)
		}
		for _, name := range f.Presets {
			cov.Request(-1, 200, "", "", name, coverage.SourceClient)
		}
	}
}

// BenchmarkCoverageReport measures GET /_mock/coverage (in memory) after
// every item of the catalogue was counted, and with the counts of 100
// worlds to add up (the target is at most 50 ms).
func BenchmarkCoverageReport(b *testing.B) {
	for _, bc := range []struct {
		name   string
		worlds int
		format string
	}{
		{"json", 0, ""},
		{"markdown", 0, "?format=markdown"},
		{"junit", 0, "?format=junit"},
		{"json-100-worlds", 100, ""},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p, done := benchStart(b, WithoutListener())
			defer done()
			fillCoverage(p)
			for range bc.worlds {
				w, err := p.NewWorld()
				if err != nil {
					b.Fatal(err)
				}
				fillCoverage(w)
			}
			c := p.Client()
			b.ReportAllocs()
			for b.Loop() {
				benchSend(b, c, "GET", p.URL()+"/_mock/coverage"+bc.format, nil, 200)
			}
		})
	}
}
