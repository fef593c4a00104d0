package dialogue

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRulePrefilter: the literals a rule expression needs, and that the
// prefilter never rules out a message the expression matches.
func TestRulePrefilter(t *testing.T) {
	t.Parallel()
	needs := []struct {
		expr string
		need []string
		fold bool
	}{
		{`(?i)agent|human`, []string{"agent", "human"}, true},
		{`(?i)order\s+#?(\d+)`, []string{"order"}, true},
		{`refund`, []string{"refund"}, false},
		{`^(?:cancel|stop) (my )?order$`, []string{"order"}, false},
		{`(?i)x+yz`, []string{"yz"}, true},
		{`(?i)ab|CD`, []string{"ab", "cd"}, true},
		{`ab|(?i)cd`, nil, false}, // mixed case rules: no prefilter
		{`a*`, nil, false},
		{`\d+`, nil, false},
		{`(?i)café`, nil, false}, // not ASCII: no prefilter
		{`a?b?`, nil, false},
		{`(foo){2,}`, []string{"foo"}, false},
		{`(foo){0,3}bar`, []string{"bar"}, false},
		{``, nil, false},
	}
	for _, c := range needs {
		r, err := compileRule(c.expr)
		if err != nil {
			t.Fatalf("%q: %v", c.expr, err)
		}
		if diff := cmp.Diff(c.need, r.need); diff != "" || r.fold != c.fold {
			t.Errorf("%q: need (-want +got):\n%s fold %v, want %v", c.expr, diff, r.fold, c.fold)
		}
	}

	exprs := []string{`(?i)agent|human`, `(?i)order\s+#?(\d+)`, `refund`, `(?i)kelvin|sos`, `(?i)ab+c`,
		`^(?:cancel|stop) (my )?order$`, `(?i)x+yz`, `(?s)a.b`, `(?i)talk to (an? )?(agent|person)`}
	// Messages: fixed awkward ones (the Kelvin sign folds to k, the long
	// s to s), and random ones over an alphabet of the literals' pieces.
	msgs := []string{"", "AGENT please", "I want a Human", "order #42", "ORDER   7", "\u212aelvin", "ſos", "SOS",
		"refund", "Refund", "abbbc", "ABC", "cancel order", "stop my order", "xxYZ", "a\nb", "talk to a person", "Talk To An AGENT"}
	pieces := []string{"a", "g", "e", "n", "t", "h", "u", "m", "o", "r", "d", "#", "4", "2", " ", "K", "\u212a", "ſ", "s",
		"S", "x", "y", "z", "B", "c", "agent", "HUMAN", "order", "refund", "\n", "é"}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 4000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		msgs = append(msgs, b.String())
	}
	for _, expr := range exprs {
		r, err := compileRule(expr)
		if err != nil {
			t.Fatalf("%q: %v", expr, err)
		}
		if r.need == nil && expr != `(?s)a.b` {
			t.Errorf("%q has no prefilter", expr)
		}
		ruled := 0
		for _, m := range msgs {
			lower := lowerOnce{s: m}
			if r.ruledOut(m, &lower) {
				ruled++
				if r.re.MatchString(m) {
					t.Errorf("%q: message %q ruled out, but it matches", expr, m)
				}
			}
		}
		if r.need != nil && ruled == 0 {
			t.Errorf("%q: no message ruled out", expr)
		}
	}
}
