package dialogue

// A rule's regular expression with a literal prefilter. Most messages
// match none of a dialogue's rules; running each rule's regexp on each
// message was a tenth of a chat respond. Most rule expressions need one of
// a few literal strings in any match ((?i)agent|human needs "agent" or
// "human"; (?i)order\s+#?(\d+) needs "order"): when the message holds
// none of them, the expression cannot match and is not run. The
// prefilter only ever rules a match out; whenever it cannot, the
// regexp decides, so answers are the same (TestRulePrefilter).

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// ruleRegex is a compiled rule expression and the literals one of which
// every match holds (none: no prefilter).
type ruleRegex struct {
	re *regexp.Regexp
	// need: one of these appears in every match; fold: compare in lower
	// case (the expression ignores case); ASCII literals only.
	need []string
	fold bool
}

// compileRule compiles a rule expression with its prefilter.
func compileRule(expr string) (*ruleRegex, error) {
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	r := &ruleRegex{re: re}
	if p, err := syntax.Parse(expr, syntax.Perl); err == nil {
		if lits, fold, ok := required(p.Simplify()); ok && len(lits) > 0 {
			r.need, r.fold = lits, fold
			if fold {
				for i, l := range lits {
					r.need[i] = strings.ToLower(l)
				}
			}
		}
	}
	return r, nil
}

// ruledOut reports whether the message cannot match: it holds none of
// the needed literals. lower is the message in lower case. A message that
// is not ASCII is never ruled out (case folding there goes beyond ASCII:
// K matches the Kelvin sign).
func (r *ruleRegex) ruledOut(msg string, lower *lowerOnce) bool {
	if r.need == nil {
		return false
	}
	s := msg
	if r.fold {
		if !isASCII(msg) {
			return false
		}
		s = lower.get()
	}
	for _, l := range r.need {
		if strings.Contains(s, l) {
			return false
		}
	}
	return true
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// required returns literals one of which every match of re holds, and
// whether they are compared ignoring case; ok is false when re needs no
// literal this analysis can name. Every literal of one result has the
// same case rule, and is ASCII.
func required(re *syntax.Regexp) (lits []string, fold bool, ok bool) {
	switch re.Op {
	case syntax.OpLiteral:
		s := string(re.Rune)
		if s == "" || !isASCII(s) {
			return nil, false, false
		}
		return []string{s}, re.Flags&syntax.FoldCase != 0, true
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpConcat:
		// Any one part's literals will do: take the most selective.
		for _, sub := range re.Sub {
			if l, f, ok := required(sub); ok && (lits == nil || selectivity(l) > selectivity(lits)) {
				lits, fold = l, f
			}
		}
		return lits, fold, lits != nil
	case syntax.OpAlternate:
		for i, sub := range re.Sub {
			l, f, ok := required(sub)
			if !ok || i > 0 && f != fold {
				return nil, false, false
			}
			lits, fold = append(lits, l...), f
		}
		return lits, fold, true
	}
	return nil, false, false
}

// selectivity ranks literal sets: the longer the shortest literal, the
// fewer messages hold one.
func selectivity(lits []string) int {
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}
