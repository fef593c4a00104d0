package mockplatform

// The real service's documents in this package's tests (internal/realapi,
// docs/parity.md): every exchange of a platform started under the real
// fidelity profile is also checked against the real document of its
// operation (as conformance_test.go checks every exchange against
// docs/openapi.json), and the suite records which routes it reached,
// which it checked against a real document and what contradicted one.
// TestMain compares that with internal/realapi/coverage.json after a
// whole run; go test . -update-parity writes it.

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/internal/oapicheck"
	"github.com/agentplatform/mockplatform/internal/realapi"
	"github.com/agentplatform/mockplatform/scenario"
)

var updateParity = flag.Bool("update-parity", false,
	"write internal/realapi/coverage.json from this run of the whole suite (then go generate ./internal/docgen)")

// realCheckers are the checkers of the real documents (on the mock's
// paths), by route key.
var realCheckers = sync.OnceValues(func() (map[string]*oapicheck.Checker, error) {
	facts, err := realapi.Load()
	if err != nil {
		return nil, err
	}
	docs, err := realapi.CheckDocuments(facts, mockRoutes())
	if err != nil {
		return nil, err
	}
	out := map[string]*oapicheck.Checker{}
	for _, d := range docs {
		chk, err := oapicheck.New(d.JSON)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", d.Name, err)
		}
		for _, r := range d.Routes {
			out[r.Key()] = chk
		}
	}
	return out, nil
})

// mockRoutes are the routes of the family table.
func mockRoutes() []realapi.Route {
	var out []realapi.Route
	for _, f := range handlers.Families() {
		for _, r := range handlers.FamilyRoutes(f) {
			out = append(out, realapi.Route{Method: r.Method, Path: r.Path})
		}
	}
	return out
}

// parity is what this run's exchanges did (one per test binary: every
// platform of the package's tests reports to it).
var parity = &parityRecord{exercised: map[string]bool{}, realChecked: map[string]bool{}, contradictions: map[string]map[string]bool{}}

type parityRecord struct {
	mu             sync.Mutex
	exercised      map[string]bool
	realChecked    map[string]bool
	contradictions map[string]map[string]bool
}

// envDependent are the tests whose exchanges depend on tools of the
// machine (go, curl, sh, python3) and skip without them: they do not count
// as exercising a route, so that the recorded coverage is the same
// everywhere.
const envDependent = "TestReadme"

// observeParity records an exchange and, under the real profile, checks
// it against the real document of its route.
func observeParity(tb TB, sc *Scenario, ex handlers.Exchange) {
	switch tb.(type) {
	case *benchTB, *testing.B:
		return
	}
	if ex.Route == "" {
		return
	}
	t, _ := tb.(testing.TB)
	if t != nil && strings.HasPrefix(t.Name(), envDependent) {
		return
	}
	route := realapi.Route{Method: ex.Request.Method, Path: ex.Route}
	parity.mu.Lock()
	parity.exercised[route.Key()] = true
	parity.mu.Unlock()
	if !realProfile(sc) || ex.Status == 0 || ex.Fault != "" {
		return // fault rules answer what they are told, not the real service
	}
	checkers, err := realCheckers()
	if err != nil {
		reportParity(t, err)
		return
	}
	chk := checkers[route.Key()]
	if chk == nil {
		return // the route serves no operation of a real document
	}
	err = chk.Check(oapicheck.Exchange{Request: ex.Request, Body: ex.Body, Route: ex.Route, Params: ex.Params,
		Status: ex.Status, Header: ex.Header, Response: ex.Response})
	found := contradictions(ex.Status, err)
	parity.mu.Lock()
	parity.realChecked[route.Key()] = true
	for _, c := range found {
		if parity.contradictions[route.Key()] == nil {
			parity.contradictions[route.Key()] = map[string]bool{}
		}
		parity.contradictions[route.Key()][c] = true
	}
	parity.mu.Unlock()
	var unknown []string
	for _, c := range found {
		if _, known := realapi.Known[route.Key()+" "+c]; !known {
			unknown = append(unknown, c)
		}
	}
	if len(unknown) > 0 {
		reportParity(t, fmt.Errorf("the real document contradicts %s %s (fix it, or record it in docs/fidelity.md and internal/realapi/known.go):\n  %s\n%w",
			route.Method, route.Path, strings.Join(unknown, "\n  "), err))
	}
}

// realProfile reports whether sc gives every fidelity switch its real
// value (profile real, no switch set otherwise).
func realProfile(sc *Scenario) bool {
	if sc.Profile() != scenario.ProfileReal {
		return false
	}
	for name, v := range scenario.RealValues {
		if sc.Switch(name) != v {
			return false
		}
	}
	return true
}

func reportParity(t testing.TB, err error) {
	if t != nil {
		t.Error(err)
		return
	}
	orphanMu.Lock()
	orphans = append(orphans, err.Error())
	orphanMu.Unlock()
}

// contradictions are the stable forms of a check's failure, one per
// cause: "409: status not declared", "200: at /activeDeployments/live:
// got null, want object" (array indexes as *).
func contradictions(status int, err error) []string {
	if err == nil {
		return nil
	}
	s := strconv.Itoa(status) + ": "
	var f *oapicheck.Failure
	if !errors.As(err, &f) {
		return []string{s + err.Error()}
	}
	var out []string
	switch f.Kind {
	case oapicheck.KindStatus:
		out = append(out, s+"status not declared")
	case oapicheck.KindRequest:
		for _, c := range f.Causes {
			out = append(out, s+"the document refuses the request: "+c)
		}
	default:
		for _, c := range f.Causes {
			out = append(out, s+arrayIndex.ReplaceAllString(c, "/*$1"))
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// arrayIndex is an array index in a cause's place ("at /a/0/b").
var arrayIndex = regexp.MustCompile(`/[0-9]+(/|:)`)

// finishParity compares this run's record with the committed coverage
// after a whole run of the suite (or writes it, with -update-parity), and
// says so when they differ. It returns the exit code.
func finishParity(code int) int {
	got := realapi.NewCoverage(parity.exercised, parity.realChecked, parity.contradictions)
	whole := flagValue("test.run") == "" && flagValue("test.skip") == "" && flagValue("test.list") == "" && !testing.Short()
	if *updateParity {
		if !whole || code != 0 {
			fmt.Fprintln(os.Stderr, "-update-parity: needs a whole, passing run of the package (no -run, -skip, -list or -short)")
			return 1
		}
		b, err := got.Marshal()
		if err == nil {
			err = os.WriteFile(filepath.Join("internal", "realapi", realapi.CoverageFile), b, 0o644)
		}
		if err != nil {
			fmt.Fprintf(os.Stderr, "-update-parity: %v\n", err)
			return 1
		}
		return code
	}
	if !whole || code != 0 {
		return code
	}
	want, err := realapi.LoadCoverage()
	if err == nil {
		err = coverageDiff(want, got)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "parity: %v\n(run go test . -update-parity, then go generate ./internal/docgen)\n", err)
		return 1
	}
	return code
}

func flagValue(name string) string {
	if f := flag.Lookup(name); f != nil {
		return f.Value.String()
	}
	return ""
}

// coverageDiff says how this run's coverage differs from the committed one.
func coverageDiff(want, got *realapi.Coverage) error {
	var errs []error
	diff := func(what string, w, g []string) {
		for _, k := range g {
			if !slices.Contains(w, k) {
				errs = append(errs, fmt.Errorf("%s: %s is new", what, k))
			}
		}
		for _, k := range w {
			if !slices.Contains(g, k) {
				errs = append(errs, fmt.Errorf("%s: %s is gone", what, k))
			}
		}
	}
	for k, id := range realapi.Known {
		route, c, _ := strings.Cut(k, " ")
		path, c, _ := strings.Cut(c, " ")
		if !slices.Contains(got.Contradictions[route+" "+path], c) {
			errs = append(errs, fmt.Errorf("internal/realapi/known.go: %s (%s) no longer occurs: remove it", k, id))
		}
	}
	diff("exercised", want.Exercised, got.Exercised)
	diff("checked against a real document", want.RealChecked, got.RealChecked)
	for _, r := range slices.Sorted(maps.Keys(merged(want.Contradictions, got.Contradictions))) {
		diff("contradictions of "+r, want.Contradictions[r], got.Contradictions[r])
	}
	if len(errs) > 0 {
		return fmt.Errorf("internal/realapi/coverage.json is stale:\n%w", errors.Join(errs...))
	}
	return nil
}

func merged(a, b map[string][]string) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}
