package console

import (
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/journal"
)

const recentErrors = 10

// familyRow is one family of the overview.
type familyRow struct {
	Family   string
	Holds    []handlers.Count
	Requests int
	Errors   int
}

type overviewPage struct {
	page
	Families       []familyRow
	Errors         []journal.Entry
	FailedDelivery []engine.DeliveryAttempt
	Faults         int
	CountsErr      string
	Timeline       *upcoming
}

// handleOverview serves the overview: clock, counts per family, timeline
// and recent errors.
func (c *Console) handleOverview(w http.ResponseWriter, r *http.Request) {
	p := overviewPage{page: c.newPage(r, "overview", "Overview")}
	p.Live = "events"
	families := c.b.Vocabulary().Families
	rows := make([]familyRow, len(families))
	index := map[string]int{}
	for i, f := range families {
		rows[i].Family = f
		index[f] = i
	}
	counts, err := c.b.Counts()
	if err != nil {
		p.CountsErr = err.Error()
	}
	for _, n := range counts {
		if i, ok := index[n.Family]; ok {
			rows[i].Holds = append(rows[i].Holds, n)
		}
	}
	for _, e := range c.b.Requests(journal.Filter{}) {
		i, ok := index[e.Family]
		if !ok {
			continue
		}
		rows[i].Requests++
		if isError(e.Status) {
			rows[i].Errors++
			p.Errors = append(p.Errors, e)
		}
	}
	p.Families = rows
	if n := len(p.Errors); n > recentErrors {
		p.Errors = p.Errors[n-recentErrors:]
	}
	slices.Reverse(p.Errors)
	for _, d := range c.b.Deliveries() {
		if !d.Delivered {
			p.FailedDelivery = append(p.FailedDelivery, d)
		}
	}
	if n := len(p.FailedDelivery); n > recentErrors {
		p.FailedDelivery = p.FailedDelivery[n-recentErrors:]
	}
	slices.Reverse(p.FailedDelivery)
	p.Faults = len(c.b.FaultRules())
	p.Timeline = newUpcoming(c.b, c.b.Scenario())
	c.render(w, r, "overview", http.StatusOK, p)
}

// isError reports an error answer (0: a dropped connection).
func isError(status int) bool { return status == 0 || status >= 400 }
