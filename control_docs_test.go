package mockplatform

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"reflect"
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

// The OpenAPI document is served with this instance as its server.
func TestControlOpenAPI(t *testing.T) {
	t.Parallel()
	p, ctl := controlClient(t)
	r := ctl("GET", "/openapi.json", nil)
	mustStatus(t, r, http.StatusOK)
	var doc struct {
		OpenAPI string              `json:"openapi"`
		Servers []map[string]string `json:"servers"`
		Paths   map[string]any      `json:"paths"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatal(err)
	}
	want := []map[string]string{{"url": p.URL(), "description": "This mock instance"}}
	if doc.OpenAPI != "3.1.0" || !reflect.DeepEqual(doc.Servers, want) || len(doc.Paths) < 40 {
		t.Errorf("openapi %q, servers %v, %d paths", doc.OpenAPI, doc.Servers, len(doc.Paths))
	}
}
