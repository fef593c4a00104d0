package realapi

// Matching the real operations to the mock's routes: same method, host
// base and path segments, parameters matching whatever their names; a
// real literal "v1" matches the mock's {version}.

import "strings"

// Match is a real operation with the route that serves it, if any.
type Match struct {
	Doc   *Document
	Op    *Operation
	Route Route
	// Names maps the real path parameters to the route's.
	Names map[string]string
}

// Served reports whether a route serves the operation.
func (m Match) Served() bool { return m.Route.Path != "" }

// MatchAll matches every operation of docs to routes.
func MatchAll(docs []*Document, routes []Route) []Match {
	var out []Match
	for _, d := range docs {
		for _, o := range d.Operations {
			m := Match{Doc: d, Op: o}
			for _, r := range routes {
				if names, ok := matches(o, r); ok {
					m.Route, m.Names = r, names
					break
				}
			}
			out = append(out, m)
		}
	}
	return out
}

// matches reports whether route r serves operation o, with the names of
// its parameters for the real ones.
func matches(o *Operation, r Route) (map[string]string, bool) {
	if o.Method != r.Method {
		return nil, false
	}
	rest, ok := strings.CutPrefix(r.Path, "/"+o.Host+"/:region")
	if !ok {
		return nil, false
	}
	real, mock := segments(o.Path), segments(rest)
	if len(real) != len(mock) {
		return nil, false
	}
	names := map[string]string{}
	for i, s := range real {
		m := mock[i]
		mockParam, isMockParam := strings.CutPrefix(m, ":")
		switch {
		case strings.HasPrefix(s, "{") && strings.HasSuffix(s, "}"):
			if !isMockParam {
				return nil, false
			}
			names[s[1:len(s)-1]] = mockParam
		case isMockParam && mockParam == "version" && s == "v1":
		case s != m:
			return nil, false
		}
	}
	return names, true
}

func segments(p string) []string { return strings.Split(strings.Trim(p, "/"), "/") }
