package handlers

// The definitions of the alert metrics (docs/fidelity.md M12.6), computed
// the slow way: read the conversations of the rule's scope that started
// up to MetricsLookback before the window, and the request journal. The
// evaluator reads the store's aggregates instead; this is their oracle.

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/store"
)

// apiErrorMark is one runtime API error recorded from Go or the control
// plane (the test keeps its own list: the oracle reads no aggregate).
type apiErrorMark struct {
	At                       time.Time
	Region, Account, Project string
}

// slowRuleValue is ruleValue by the definitions.
func (a *API) slowRuleValue(t *testing.T, region string, r *engine.AlertRule, now time.Time, recorded []apiErrorMark) (int64, bool) {
	t.Helper()
	from := now.Add(-engine.WindowOf(r.WindowDuration))
	in := func(x time.Time) bool { return !x.Before(from) && !x.After(now) }
	var projects []string
	if r.ProjectID != nil {
		projects = []string{*r.ProjectID}
	} else if acct := a.View().Account(r.AccountID); acct != nil {
		for i := range acct.Projects {
			projects = append(projects, acct.Projects[i].ID)
		}
	}
	var starts, funcErrs, crashes int64
	var lat []int64
	for _, p := range projects {
		list, _, err := a.Store().ListConversations(store.ConversationQuery{Region: region, AccountID: r.AccountID, ProjectID: p,
			From: from.Add(-store.MetricsLookback), To: now.Add(time.Nanosecond)})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range list {
			if in(c.StartedAt) {
				starts++
			}
			for i, tr := range c.Turns {
				if i == 0 && tr.UserInput == "" && !tr.IsSilence && !tr.IsOOD && tr.Latency == 0 {
					continue // the greeting: no user turn, no latency
				}
				if in(tr.UserInputAt) {
					lat = append(lat, tr.Latency.Milliseconds())
				}
			}
			for _, x := range c.FunctionErrors {
				if in(x) {
					funcErrs++
				}
			}
			for _, x := range c.Crashes {
				if in(x) {
					crashes++
				}
			}
		}
	}
	activity := starts > 0 || len(lat) > 0 || funcErrs > 0 || crashes > 0
	switch r.Metric {
	case "call_volume":
		return starts, activity
	case "function_errors":
		return funcErrs, activity
	case "call_crashes":
		return crashes, activity
	case "turn_latency_p50":
		return percentile(lat, 50), len(lat) > 0
	case "turn_latency_p95":
		return percentile(lat, 95), len(lat) > 0
	case "api_errors":
		var n int64
		for _, m := range append(a.journalAPIErrors(region), recorded...) {
			if m.Region == region && m.Account == r.AccountID && slices.Contains(projects, m.Project) && in(m.At) {
				n++
			}
		}
		return n, activity || n > 0
	}
	return 0, false
}

// journalAPIErrors reads the runtime API errors of a region from the
// journal: 5xx entries of runtime families whose path names the account
// and project (the journal must be large enough to hold them all).
func (a *API) journalAPIErrors(region string) []apiErrorMark {
	w := a.View()
	var out []apiErrorMark
	for _, e := range a.journal.List(Filter{}) {
		if f := a.tab.family(e.Family); e.Status < 500 || f == nil || !f.isRuntime() {
			continue
		}
		if pair, _ := engine.RegionPair("runtime", e.Region); pair != region {
			continue
		}
		segs := strings.Split(strings.Trim(engine.SubPath(e.Path), "/"), "/")
		if len(segs) < 3 {
			continue
		}
		acct := w.Account(segs[1])
		if acct == nil || acct.Region != region {
			continue
		}
		proj := acct.Project(segs[2])
		if proj == nil {
			continue
		}
		out = append(out, apiErrorMark{At: e.Time, Region: region, Account: acct.ID, Project: proj.ID})
	}
	return out
}

// percentile is the nearest-rank percentile of values (0 for none).
func percentile(values []int64, p int) int64 {
	if len(values) == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	if rank < 1 {
		rank = 1
	}
	return s[rank-1]
}

// oracleScenario has two accounts (three projects) and a journal large
// enough to hold every request of the test.
const oracleScenario = alertsTwoAccounts + `
  journal_size: 100000
`

// TestAlertMetricsMatchDefinitions: over randomised data (bulk records of
// every project, chat traffic with failures answered 500, recorded API
// errors, function errors and crashes, clock steps of random lengths),
// every metric of every kind of rule, at every step, equals the
// definitions computed from the records and the journal.
func TestAlertMetricsMatchDefinitions(t *testing.T) {
	t.Parallel()
	for seed := range uint64(4) {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			checkAlertMetricsAgainstOracle(t, seed)
		})
	}
}

func checkAlertMetricsAgainstOracle(t *testing.T, seed uint64) {
	h := newHarness(t, oracleScenario)
	r := rand.New(rand.NewPCG(seed, 9))
	start := h.clock.Now()
	accounts := map[string][]string{"1001": {"2001", "2002"}, "3001": {"4001"}}
	var bulk []*store.Conversation
	for i := range 300 {
		acct := []string{"1001", "3001"}[r.IntN(2)]
		proj := accounts[acct][r.IntN(len(accounts[acct]))]
		at := start.Add(time.Duration(r.Int64N(int64(3*time.Hour))) - 2*time.Hour)
		c := &store.Conversation{ID: fmt.Sprintf("BULK-%d", i), Region: "us", AccountID: acct, ProjectID: proj, StartedAt: at}
		for k := range r.IntN(5) {
			off := time.Duration(r.Int64N(int64(90 * time.Minute)))
			tr := store.Turn{UserInput: "q", UserInputAt: at.Add(off), Latency: time.Duration(300+r.IntN(30)*50) * time.Millisecond}
			if k == 0 && r.IntN(2) == 0 {
				tr = store.Turn{UserInputAt: at}
			}
			c.Turns = append(c.Turns, tr)
		}
		if r.IntN(4) == 0 {
			c.FunctionErrors = append(c.FunctionErrors, at.Add(time.Duration(r.IntN(4000))*time.Second))
		}
		if r.IntN(6) == 0 {
			c.Crashes = append(c.Crashes, at.Add(time.Duration(r.IntN(4000))*time.Second))
		}
		bulk = append(bulk, c)
	}
	if err := h.store.PutConversations(bulk); err != nil {
		t.Fatal(err)
	}
	if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "chat", Path: "/v1/*/*/chat/respond"},
		Action: faults.Action{Status: 500}, Probability: 0.3}); err != nil {
		t.Fatal(err)
	}
	var rules []*engine.AlertRule
	for _, metric := range []string{"call_volume", "function_errors", "call_crashes", "turn_latency_p50", "turn_latency_p95", "api_errors"} {
		for _, win := range []string{"5m", "10m", "60m"} {
			support, help := "2001", "4001"
			rules = append(rules,
				&engine.AlertRule{ID: metric + win + "-acct", AccountID: "1001", Metric: metric, WindowDuration: win},
				&engine.AlertRule{ID: metric + win + "-support", AccountID: "1001", ProjectID: &support, Metric: metric, WindowDuration: win},
				&engine.AlertRule{ID: metric + win + "-help", AccountID: "3001", ProjectID: &help, Metric: metric, WindowDuration: win})
		}
	}
	var recorded []apiErrorMark
	var live []string
	for step := range 40 {
		switch r.IntN(6) {
		case 0, 1:
			id := h.create(nil)
			live = append(live, id)
		case 2:
			if len(live) > 0 {
				h.respond(live[r.IntN(len(live))], "hello") // 200 or a 500 fault
			}
		case 3:
			proj := []string{"support", "sales"}[r.IntN(2)]
			if err := h.api.RecordAPIError("acme", proj); err != nil {
				t.Fatal(err)
			}
			recorded = append(recorded, apiErrorMark{At: h.clock.Now(), Region: "us", Account: "1001", Project: map[string]string{"support": "2001", "sales": "2002"}[proj]})
		case 4:
			if len(live) > 0 {
				kind := []string{"function_error", "crash"}[r.IntN(2)]
				if err := h.api.RecordConversationEvent(live[r.IntN(len(live))], kind); err != nil {
					t.Fatal(err)
				}
			}
		case 5:
			bc := bulk[r.IntN(len(bulk))]
			if _, err := h.store.UpdateConversation("us", bc.ID, func(c *store.Conversation) error {
				c.Turns = append(c.Turns, store.Turn{UserInput: "late", UserInputAt: h.clock.Now(), Latency: 700 * time.Millisecond})
				return nil
			}); err != nil {
				t.Fatal(err)
			}
		}
		// Steps of random length: on and off the minute grid.
		h.advance(time.Duration(r.IntN(180)) * time.Second)
		now := h.clock.Now()
		for _, rule := range rules {
			wantV, wantData := h.api.slowRuleValue(t, "us", rule, now, recorded)
			gotV, gotData := h.api.RuleValue("us", rule, now)
			if gotV != wantV || gotData != wantData {
				t.Fatalf("step %d at %v: rule %s: aggregates %d (data %v), definitions %d (data %v)",
					step, now.Sub(start), rule.ID, gotV, gotData, wantV, wantData)
			}
		}
	}
}
