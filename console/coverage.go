package console

import (
	"net/http"

	"github.com/agentplatform/mockplatform/coverage"
)

// coverageShown is how many never-exercised items the page lists.
const coverageShown = 40

// coverageRow is one family of the coverage page.
type coverageRow struct {
	Name    string
	All     coverage.Ratio
	Percent int // All's, whole
	Totals  coverage.Totals
}

type kindRow struct {
	Kind  string
	Ratio coverage.Ratio
}

type coveragePage struct {
	page
	Kinds    []kindRow
	Families []coverageRow
	Never    []coverage.Item
	More     int
	Outside  []string
	Unrouted uint64
}

// rankLabels say why an item ranks where it does (coverage.Item.Rank).
var rankLabels = map[int]string{
	1: "clock-driven", 2: "retry or conflict", 3: "error", 4: "failure mode", 5: "transition", 6: "operation", 7: "success",
}

// handleCoverage serves the coverage report.
func (c *Console) handleCoverage(w http.ResponseWriter, r *http.Request) {
	p := coveragePage{page: c.newPage(r, "coverage", "Coverage")}
	p.Live = "events"
	rep := c.b.Coverage()
	t := rep.Totals
	p.Kinds = []kindRow{{"operations", t.Operations}, {"statuses", t.Statuses}, {"error codes", t.Codes},
		{"transitions", t.Transitions}, {"clock events", t.ClockEvents}, {"presets", t.Presets}, {"fault rules", t.FaultRules}}
	for _, f := range rep.Families {
		row := coverageRow{Name: f.Name, Totals: f.Totals}
		for _, k := range []coverage.Ratio{f.Totals.Operations, f.Totals.Statuses, f.Totals.Codes, f.Totals.Transitions,
			f.Totals.ClockEvents, f.Totals.Presets} {
			row.All.Covered += k.Covered
			row.All.Total += k.Total
		}
		if row.All.Total > 0 {
			row.Percent = row.All.Covered * 100 / row.All.Total
		}
		p.Families = append(p.Families, row)
	}
	p.Never = rep.NeverExercised
	if n := len(p.Never); n > coverageShown {
		p.Never, p.More = p.Never[:coverageShown], n-coverageShown
	}
	p.Outside = rep.Outside(nil)
	p.Unrouted = rep.Unrouted
	c.render(w, r, "coverage", http.StatusOK, p)
}
