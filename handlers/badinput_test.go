package handlers

import (
	"net/url"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform/scenario"
)

// badInputParam is the value a path parameter gets in TestBadInputNever500:
// one that names something of the default scenario (so that requests reach
// past the lookups), or a malformed one.
func badInputParam(group, name string, malformed bool) string {
	switch {
	case name == "region" && group == "runtime":
		return "us-1"
	case name == "region":
		return "us"
	case name == "version":
		return "v1"
	case name == "account" && !malformed:
		return "acme"
	case (name == "project" || name == "agent") && !malformed:
		return "support"
	case malformed:
		return url.PathEscape("\x00 ~%{}\"'é") + strings.Repeat("z", 300)
	}
	return "x1"
}

// TestBadInputNever500 sends malformed bodies and path parameters to every
// route, authenticated with each credential of the default scenario: no
// answer may be a 5xx (common context: "Bad input never panics and never
// answers 500").
func TestBadInputNever500(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	bodies := []string{"", "null", "{}", "[]", "1", `"x"`, "{{", "\x00\xff",
		`{"name":null,"variables":[],"schema":"x","updates":[null,{}],"phoneNumbers":[1],"connectorIds":{}}`,
		strings.Repeat("[", 5000)}
	var creds [][]string
	for _, cr := range h.sc.Credentials {
		header := "X-Api-Key"
		switch cr.Kind {
		case scenario.KindConnector:
			header = "X-Token"
		case scenario.KindOutbound:
			header = "X-Service-Auth-Token"
		}
		creds = append(creds, []string{header, cr.Key})
	}
	routes := h.api.Routes()
	if len(routes) < 50 {
		t.Fatalf("only %d routes registered", len(routes))
	}
	for _, rt := range routes {
		for _, malformed := range []bool{false, true} {
			path := badInputPath(rt, malformed)
			for _, cr := range creds {
				for _, b := range bodies {
					r := h.do(rt.Method, path, b, cr[0], cr[1], "Content-Type", "application/json")
					if r.Status >= 500 && r.Status != 502 && r.Status != 503 {
						t.Errorf("%s %s (%s) body %.40q -> %d %s", rt.Method, path, cr[0], b, r.Status, r.Body)
					}
				}
			}
		}
	}
}

// badInputPath fills a route's parameters.
func badInputPath(rt Route, malformed bool) string {
	segs := strings.Split(rt.Path, "/")
	group := ""
	if len(segs) > 1 {
		group = segs[1]
	}
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = badInputParam(group, s[1:], malformed)
		}
	}
	return strings.Join(segs, "/")
}
