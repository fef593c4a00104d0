package mockplatform

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"
)

// TestControlScenarioValidate: every problem at its line and column, the
// same checks as the upload, and nothing changes.
func TestControlScenarioValidate(t *testing.T) {
	t.Parallel()
	p, _ := controlClient(t)
	id := chatCreate(t, p, nil)
	p.Advance(time.Minute)
	before, now := p.Scenario(), p.Now()
	validate := func(yaml string) reply {
		t.Helper()
		r := send(t, p.Client(), "POST", p.URL()+"/_mock/scenario/validate", yaml, "Content-Type", "application/yaml")
		mustStatus(t, r, http.StatusOK)
		return r
	}
	mustJSON(t, validate("name: fine\n"), map[string]any{"valid": true, "name": "fine"})
	mustJSON(t, validate("name: broken\nbogus: 1\naccounts:\n  - slug: a\n    id: \"1\"\n    region: mars\n"), map[string]any{
		"valid": false, "problems": []any{
			map[string]any{"line": 2, "column": 1, "message": "bogus: unknown field " + topLevelKeys(t)},
			map[string]any{"line": 6, "column": 13, "message": `accounts[0].region: unknown region "mars" (want us, uk or eu)`},
		}})
	mustJSON(t, validate(""), map[string]any{"valid": false, "problems": []any{
		map[string]any{"line": 1, "column": 1, "message": "empty scenario"}}})
	r := validate("name: [unclosed\n")
	if m := r.object(t); m["valid"] != false || m["problems"].([]any)[0].(map[string]any)["line"] != 1.0 {
		t.Fatalf("syntax error: %s", r.Body)
	}
	if p.Scenario() != before || !p.Now().Equal(now) {
		t.Fatal("validation changed the scenario or the clock")
	}
	if _, err := p.Conversation(id); err != nil {
		t.Fatalf("validation reset the data: %v", err)
	}
	r = send(t, p.Client(), "POST", p.URL()+"/_mock/scenario/validate", strings.Repeat("#", maxControlBody+1), "Content-Type", "application/yaml")
	mustStatus(t, r, http.StatusRequestEntityTooLarge)
}

// TestConsoleDocuments: the console links to the control plane's
// documents that exist, found in its routes.
func TestConsoleDocuments(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	b := consoleBackend{api: p.api, p: p, engine: p.control()}
	if diff := cmp.Diff(consoleDocuments, b.Documents()); diff != "" {
		t.Fatalf("documents (-want +got):\n%s", diff)
	}
	bare := consoleBackend{api: p.api, p: p, engine: gin.New()}
	bare.engine.GET("/_mock/scenario", func(*gin.Context) {})
	if diff := cmp.Diff(consoleDocuments[:1], bare.Documents()); diff != "" {
		t.Fatalf("documents of a control plane without the others (-want +got):\n%s", diff)
	}
}

// TestConsoleMounted: the console answers at {base}/_mock/ui under the
// control plane; a path that only begins like it is not the console.
func TestConsoleMounted(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	r := send(t, p.Client(), "GET", p.URL()+"/_mock/ui/", nil)
	mustStatus(t, r, http.StatusOK)
	if !strings.Contains(string(r.Body), "<h1>Overview</h1>") {
		t.Fatalf("overview: %s", r.Body)
	}
	r = send(t, p.Client(), "GET", p.URL()+"/_mock/uix", nil)
	mustStatus(t, r, http.StatusNotFound)
}
