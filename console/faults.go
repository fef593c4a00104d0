package console

import (
	"fmt"
	"net/http"
	"sort"
	"strings"

	"github.com/agentplatform/mockplatform/faults"
)

// presetOption is a preset of the add form, with what its argument takes.
type presetOption struct {
	Name, Family, Arg string
}

type faultRow struct {
	faults.Status
	Match, Action, Limits string
}

type faultsPage struct {
	page
	Rules    []faultRow
	Presets  []presetOption
	Families []string
	Methods  []string
}

// handleFaults serves the fault rules with their counters and the forms
// that add and remove them.
func (c *Console) handleFaults(w http.ResponseWriter, r *http.Request) {
	p := faultsPage{page: c.newPage(r, "faults", "Faults"), Families: c.b.Vocabulary().Families, Methods: methods}
	for _, st := range c.b.FaultRules() {
		p.Rules = append(p.Rules, faultRow{Status: st, Match: matchText(st.Match), Action: actionText(st.Action),
			Limits: limitsText(st.Rule)})
	}
	for _, pr := range c.b.Vocabulary().Presets {
		o := presetOption{Name: pr.Name, Family: pr.Family}
		switch pr.Arg {
		case faults.ArgCount:
			o.Arg = "a count, e.g. 3"
		case faults.ArgDuration:
			o.Arg = "a duration, e.g. 200ms"
		case faults.ArgOneOf:
			o.Arg = "one of " + strings.Join(pr.Values, ", ")
		}
		p.Presets = append(p.Presets, o)
	}
	c.render(w, r, "faults", http.StatusOK, p)
}

func matchText(m faults.Match) string {
	var parts []string
	if m.Family != "" {
		parts = append(parts, m.Family)
	} else {
		parts = append(parts, "every family")
	}
	if m.Method != "" {
		parts = append(parts, strings.ToUpper(m.Method))
	}
	if m.Path != "" {
		parts = append(parts, m.Path)
	}
	if m.Region != "" {
		parts = append(parts, "region "+m.Region)
	}
	for _, kv := range sortedPairs(m.Headers) {
		parts = append(parts, "header "+kv)
	}
	for _, kv := range sortedPairs(m.Query) {
		parts = append(parts, "query "+kv)
	}
	return strings.Join(parts, " · ")
}

func actionText(a faults.Action) string {
	var parts []string
	if a.Preset != "" {
		parts = append(parts, "preset "+a.Preset)
	}
	if a.Status != 0 {
		s := fmt.Sprintf("answer %d", a.Status)
		if a.Code != "" {
			s += " " + a.Code
		}
		if a.Message != "" {
			s += fmt.Sprintf(" %q", a.Message)
		}
		parts = append(parts, s)
	}
	if a.Body != "" {
		parts = append(parts, "body "+truncate(a.Body, 60))
	}
	if a.Delay.D() > 0 {
		clock := "wall time"
		if a.DelayClock == "virtual" {
			clock = "virtual time"
		}
		parts = append(parts, "delay "+fmtDuration(a.Delay.D())+" ("+clock+")")
	}
	if a.Drop {
		parts = append(parts, "drop the connection")
	}
	for _, kv := range sortedPairs(a.Headers) {
		parts = append(parts, "header "+kv)
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, " · ")
}

func limitsText(r faults.Rule) string {
	var parts []string
	if r.After > 0 {
		parts = append(parts, fmt.Sprintf("after %d", r.After))
	}
	if r.Times > 0 {
		parts = append(parts, fmt.Sprintf("%d time%s", r.Times, plural(r.Times)))
	} else {
		parts = append(parts, "every time")
	}
	if r.Probability > 0 {
		parts = append(parts, fmt.Sprintf("probability %g", r.Probability))
	}
	return strings.Join(parts, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func sortedPairs(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
