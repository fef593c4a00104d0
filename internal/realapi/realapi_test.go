package realapi

import (
	"bytes"
	"os"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/internal/oapicheck"
)

// mockRoutes are the routes the mock serves.
func mockRoutes() []Route {
	var out []Route
	for _, f := range handlers.Families() {
		for _, r := range handlers.FamilyRoutes(f) {
			out = append(out, Route{Method: r.Method, Path: r.Path})
		}
	}
	return out
}

func mustLoad(t *testing.T) *Facts {
	t.Helper()
	f, err := Load()
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestFactsCurrent: the committed facts are what the real documents give
// now. It needs the documents ($REAL_OPENAPI_DIR) and skips without them.
func TestFactsCurrent(t *testing.T) {
	t.Parallel()
	dir := os.Getenv(DocsEnv)
	if dir == "" {
		t.Skipf("$%s is not set: the real documents are not here, the committed facts are used as they are", DocsEnv)
	}
	f, err := Extract(dir)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(FactsFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go run ./internal/realapi/gen -docs %s", FactsFile, dir)
	}
}

// TestFactsRoundTrip: the committed facts decode, and encode to the same
// bytes.
func TestFactsRoundTrip(t *testing.T) {
	t.Parallel()
	f := mustLoad(t)
	got, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, factsJSON) {
		t.Error("the facts do not encode back to the committed bytes")
	}
	if n := len(f.Operations()); n != 89 {
		t.Errorf("%d operations, want the 89 of the 11 real documents", n)
	}
}

func TestMatch(t *testing.T) {
	t.Parallel()
	builder := func(method, path string) *Operation { return &Operation{Method: method, Path: path, Host: "builder"} }
	runtime := func(method, path string) *Operation { return &Operation{Method: method, Path: path, Host: "runtime"} }
	for _, tc := range []struct {
		name  string
		op    *Operation
		route Route
		names map[string]string
	}{
		{"parameters by place", builder("GET", "/v1/agents/{agentId}/branches/{branchId}"),
			Route{"GET", "/builder/:region/v1/agents/:agent/branches/:branch"}, map[string]string{"agentId": "agent", "branchId": "branch"}},
		{"literal v1 against {version}", runtime("POST", "/v1/outbound-calling"),
			Route{"POST", "/runtime/:region/:version/outbound-calling"}, map[string]string{}},
		{"another method", builder("PUT", "/v1/alert-rules"), Route{"GET", "/builder/:region/v1/alert-rules"}, nil},
		{"another host", runtime("GET", "/v1/alert-rules"), Route{"GET", "/builder/:region/v1/alert-rules"}, nil},
		{"a real parameter against a literal", builder("GET", "/v1/agents/{agentId}/conversations/{conversationId}"),
			Route{"GET", "/builder/:region/v1/agents/:agent/conversations/concurrency"}, nil},
		{"a literal against a parameter", runtime("GET", "/v1/agents/{agentId}/conversations/{conversationId}"),
			Route{"GET", "/runtime/:region/v1/:account/:project/conversations/:id"}, nil},
		{"other length", builder("GET", "/v1/agents/{agentId}"), Route{"GET", "/builder/:region/v1/agents/:agent/branches"}, nil},
	} {
		names, ok := matches(tc.op, tc.route)
		if ok != (tc.names != nil) {
			t.Errorf("%s: matches = %v", tc.name, ok)
			continue
		}
		if diff := cmp.Diff(tc.names, names); ok && diff != "" {
			t.Errorf("%s: names (-want +got):\n%s", tc.name, diff)
		}
	}
}

// TestCheckDocuments: every real document with a served operation gives a
// valid OpenAPI document (internal/oapicheck loads and validates it), and
// each served operation is in one.
func TestCheckDocuments(t *testing.T) {
	t.Parallel()
	f := mustLoad(t)
	routes := mockRoutes()
	docs, err := CheckDocuments(f, routes)
	if err != nil {
		t.Fatal(err)
	}
	var covered []Route
	for _, d := range docs {
		if _, err := oapicheck.New(d.JSON); err != nil {
			t.Errorf("%s: %v", d.Name, err)
		}
		covered = append(covered, d.Routes...)
	}
	served := 0
	for _, m := range MatchAll(f.Documents, routes) {
		if !m.Served() {
			continue
		}
		served++
		if !slices.Contains(covered, m.Route) {
			t.Errorf("%s (%s) is in no check document", m.Op.Key(), m.Route.Key())
		}
	}
	if served != len(covered) {
		t.Errorf("%d served operations, %d routes in the check documents", served, len(covered))
	}
	t.Logf("%d of %d real operations served", served, len(f.Operations()))
}
