package console

import (
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/scenario"
)

// timelineWidth is a timeline drawing's width in its own units.
const timelineWidth = 1000

const minSegment = 8

// segment is one span of a rule's timeline.
type segment struct {
	X, W        float64
	State       string
	From, To    time.Time
	Value       string
	Evaluations int
}

// timeline is a rule's state over virtual time, up to now.
type timeline struct {
	Start, End time.Time
	Segments   []segment
	// Summary says the same in words (the drawing's accessible name).
	Summary   string
	Truncated bool
}

type alertRow struct {
	engine.AlertRuleStatus
	Scope    string
	Timeline timeline
}

type alertsPage struct {
	page
	Rules      []alertRow
	Active     []alertRow
	Endpoints  []engine.WebhookEndpoint
	Deliveries []engine.DeliveryAttempt
	Projects   []projectOption
	Error      string
}

// handleAlerts serves alert rules with their history, webhook endpoints
// and delivery attempts.
func (c *Console) handleAlerts(w http.ResponseWriter, r *http.Request) {
	sc := c.b.Scenario()
	p := alertsPage{page: c.newPage(r, "alerts", "Alerts and webhooks"), Projects: projectOptions(sc)}
	var problems []string
	rules, err := c.b.AlertRules()
	if err != nil {
		problems = append(problems, "alert rules: "+err.Error())
	}
	for _, rule := range rules {
		row := alertRow{AlertRuleStatus: rule, Scope: ruleScope(sc, rule), Timeline: newTimeline(rule, p.Now)}
		p.Rules = append(p.Rules, row)
		if rule.State == "alert" {
			p.Active = append(p.Active, row)
		}
	}
	slices.SortStableFunc(p.Active, func(x, y alertRow) int { return timeOf(x.Since).Compare(timeOf(y.Since)) })
	if p.Endpoints, err = c.b.WebhookEndpoints(); err != nil {
		problems = append(problems, "webhook endpoints: "+err.Error())
	}
	p.Deliveries = c.b.Deliveries()
	slices.Reverse(p.Deliveries)
	status := http.StatusOK
	if problems != nil {
		p.Error = "Could not read " + strings.Join(problems, "; ")
		status = http.StatusInternalServerError
	}
	c.render(w, r, "alerts", status, p)
}

func timeOf(t *time.Time) time.Time {
	if t == nil {
		return time.Time{}
	}
	return *t
}

func newTimeline(rule engine.AlertRuleStatus, now time.Time) timeline {
	t := timeline{End: now, Truncated: rule.Truncated}
	spans := rule.History
	if len(spans) == 0 {
		// Never evaluated: its state since it was created (or last moved).
		from := rule.CreatedAt
		if rule.Since != nil {
			from = *rule.Since
		}
		spans = []engine.AlertStateSpan{{State: rule.State, From: from, To: now}}
	}
	t.Start = spans[0].From
	total := float64(t.End.Sub(t.Start))
	var words []string
	sum := 0.0
	for i, s := range spans {
		to := t.End
		if i+1 < len(spans) {
			to = spans[i+1].From
		}
		seg := segment{State: s.State, From: s.From, To: to, Value: derefInt(s.Value), Evaluations: s.Evaluations}
		seg.W = timelineWidth / float64(len(spans))
		if total > 0 {
			seg.W = float64(to.Sub(s.From)) / total * timelineWidth
		}
		seg.W = max(seg.W, minSegment)
		sum += seg.W
		t.Segments = append(t.Segments, seg)
		words = append(words, fmt.Sprintf("%s from %s", s.State, fmtClock(s.From)))
	}
	x := 0.0
	for i := range t.Segments {
		t.Segments[i].W *= timelineWidth / sum
		t.Segments[i].X = x
		x += t.Segments[i].W
	}
	t.Summary = "State over time: " + strings.Join(words, ", then ") + ", until " + fmtClock(now) + "."
	return t
}

// ruleScope names what a rule watches: a project, or the whole account.
func ruleScope(sc *scenario.Scenario, rule engine.AlertRuleStatus) string {
	if sc == nil {
		return rule.AccountID
	}
	acct := sc.Account(rule.AccountID)
	if acct == nil {
		return rule.AccountID
	}
	if rule.ProjectID == nil {
		return acct.Slug + " (every project)"
	}
	if pr := acct.Project(*rule.ProjectID); pr != nil {
		return acct.Slug + " / " + pr.Slug
	}
	return acct.Slug + " / " + *rule.ProjectID
}
