package dialogue

// A rule's regular expression with a literal prefilter: most messages
// match no rule, so when a message holds none of the literals every match
// needs, the regexp is not run. The prefilter only rules matches out
// (TestRulePrefilter).

import (
	"regexp"
	"regexp/syntax"
	"strings"
	"unicode/utf8"
)

// ruleRegex is a compiled rule expression and the literals, one of which
// every match holds (none: no prefilter).
type ruleRegex struct {
	re *regexp.Regexp
	// need are ASCII literals; fold compares them in lower case.
	need []string
	fold bool
}

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

// ruledOut reports whether the message holds none of the needed literals.
// Non-ASCII messages are never ruled out (K matches the Kelvin sign).
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

// required returns ASCII literals one of which every match of re holds,
// and whether case is ignored; ok is false when none can be named.
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

// selectivity ranks literal sets by their shortest literal.
func selectivity(lits []string) int {
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}
