package mockplatform

import (
	"bytes"
	"net/http"
	"os"
	"testing"
)

// The scenario schema is served as committed (the scenario package's
// tests keep the file in sync with the types).
func TestControlScenarioSchema(t *testing.T) {
	t.Parallel()
	_, ctl := controlClient(t)
	r := ctl("GET", "/scenario.schema.json", nil)
	mustStatus(t, r, http.StatusOK)
	if ct := r.Header.Get("Content-Type"); ct != "application/schema+json" {
		t.Errorf("Content-Type %q", ct)
	}
	want, err := os.ReadFile("docs/scenario.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(r.Body, want) {
		t.Errorf("served schema differs from docs/scenario.schema.json")
	}
}
