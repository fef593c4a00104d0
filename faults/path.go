package faults

import (
	"fmt"
	"path"
	"strings"
)

// A pattern is a compiled Match.Path: one token per segment.
//
// A token is "**" (zero or more segments), "*" (exactly one segment), a glob
// within one segment ("CONV-*", path.Match semantics) or a literal
// (case-sensitive). A trailing slash on the pattern or the request path does
// not matter.
type pattern struct {
	toks []token
	any  bool // the pattern is empty: every path matches
}

type tokenKind uint8

const (
	tokLiteral tokenKind = iota
	tokOne               // "*": any one segment
	tokGlob              // a path.Match pattern for one segment
	tokMany              // "**": zero or more segments
)

type token struct {
	kind tokenKind
	text string
}

// compilePattern compiles a path pattern; an empty one matches every path.
func compilePattern(p string) (pattern, error) {
	if p == "" {
		return pattern{any: true}, nil
	}
	if !strings.HasPrefix(p, "/") {
		return pattern{}, fmt.Errorf("%q must start with \"/\"", p)
	}
	segs := splitPath(p)
	toks := make([]token, 0, len(segs))
	for i, s := range segs {
		switch {
		case s == "":
			return pattern{}, fmt.Errorf("%q has an empty segment (at %d)", p, i+1)
		case s == "**":
			// Consecutive "**" mean the same as one.
			if n := len(toks); n > 0 && toks[n-1].kind == tokMany {
				continue
			}
			toks = append(toks, token{kind: tokMany})
		case s == "*":
			toks = append(toks, token{kind: tokOne})
		case strings.Contains(s, "**"):
			return pattern{}, fmt.Errorf("%q: \"**\" must be a whole segment (in %q)", p, s)
		case strings.ContainsAny(s, `*?[\`):
			if _, err := path.Match(s, ""); err != nil {
				return pattern{}, fmt.Errorf("%q: bad glob segment %q", p, s)
			}
			toks = append(toks, token{kind: tokGlob, text: s})
		default:
			toks = append(toks, token{kind: tokLiteral, text: s})
		}
	}
	return pattern{toks: toks}, nil
}

// splitPath splits a path into segments, ignoring outer slashes.
func splitPath(p string) []string {
	p = strings.TrimPrefix(p, "/")
	p = strings.TrimSuffix(p, "/")
	if p == "" {
		return nil
	}
	return strings.Split(p, "/")
}

func (pt pattern) match(p string) bool {
	if pt.any {
		return true
	}
	segs := splitPath(p)
	toks := pt.toks
	// Greedy with backtracking to the last "**": exact and
	// O(len(toks)*len(segs)).
	ti, si := 0, 0
	starTi, starSi := -1, 0
	for si < len(segs) {
		if ti < len(toks) {
			t := toks[ti]
			if t.kind == tokMany {
				starTi, starSi = ti, si
				ti++
				continue
			}
			if t.matchSeg(segs[si]) {
				ti++
				si++
				continue
			}
		}
		if starTi < 0 {
			return false
		}
		// Let the last "**" take one more segment and retry.
		starSi++
		ti, si = starTi+1, starSi
	}
	for ti < len(toks) && toks[ti].kind == tokMany {
		ti++
	}
	return ti == len(toks)
}

func (t token) matchSeg(s string) bool {
	switch t.kind {
	case tokOne:
		return true
	case tokGlob:
		ok, _ := path.Match(t.text, s)
		return ok
	default:
		return t.text == s
	}
}
