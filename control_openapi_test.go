package mockplatform

// The control plane's OpenAPI document (docs/control.openapi.json) is
// generated from its route table (control_routes.go) by
// internal/openapigen; this test keeps the committed file current, and
// every exchange of a control route in this package's tests is checked
// against it (conformance_test.go).

import (
	"bytes"
	"context"
	"flag"
	"net/http"
	"os"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/agentplatform/mockplatform/internal/apispec"
	"github.com/agentplatform/mockplatform/internal/openapigen"
)

var update = flag.Bool("update", false, "rewrite the generated documents (docs/control.openapi.json)")

// controlOpenAPIFile is the committed document.
const controlOpenAPIFile = "docs/control.openapi.json"

//go:generate go test -run ^TestControlOpenAPIInSync$ -update .

// controlDocument generates the document from the route table.
func controlDocument() ([]byte, error) {
	var routes []apispec.Route
	for _, rt := range controlTable() {
		routes = append(routes, apispec.Route{Method: rt.method, Path: controlPrefix + rt.path, Op: rt.op})
	}
	var tags []openapigen.Tag
	for _, t := range controlTags {
		tags = append(tags, openapigen.Tag{Name: t.name, Doc: t.doc})
	}
	return openapigen.Control(openapigen.ControlInfo{
		Title: "mockplatform control plane",
		Description: "The test author's side of mockplatform ({base}/_mock): clock, reset, scenario, journal, faults, " +
			"worlds and the families' simulated events, generated from the control plane's route table " +
			"(docs/clients.md). Paths start at an instance's base address: mockd's root, or a world's {base}/w/{id}. " +
			"The web console's pages (/_mock/ui) are not operations. Every call but GET /_mock/health passes the " +
			"control plane's guard (docs/security.md): a loopback or allowed Host, no cross-site Origin, " +
			"Content-Type application/json on a POST, and the control token when mockd has one.",
		Tags: tags, ErrorBody: controlErrorBody{},
	}, routes)
}

// TestControlOpenAPIInSync keeps docs/control.openapi.json equal to what
// the route table generates (go generate, or -update, rewrites it).
func TestControlOpenAPIInSync(t *testing.T) {
	t.Parallel()
	got, err := controlDocument()
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(controlOpenAPIFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, controlOpenAPIDocument) {
		t.Errorf("%s is out of date: run go generate . (or go test -run TestControlOpenAPIInSync -update .)", controlOpenAPIFile)
	}
}

// TestControlOpenAPIValid validates the committed document as OpenAPI 3.1
// and checks that it has every route of the table, and only those.
func TestControlOpenAPIValid(t *testing.T) {
	t.Parallel()
	doc, err := openapi3.NewLoader().LoadFromData(controlOpenAPIDocument)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("%s is not valid OpenAPI: %v", controlOpenAPIFile, err)
	}
	ops := 0
	for _, item := range doc.Paths.Map() {
		ops += len(item.Operations())
	}
	for _, rt := range controlTable() {
		path, _ := openapigen.Path(controlPrefix + rt.path)
		if item := doc.Paths.Find(path); item == nil || item.GetOperation(rt.method) == nil {
			t.Errorf("%s %s is not in the document", rt.method, path)
		}
	}
	if ops != len(controlTable()) {
		t.Errorf("the document has %d operations, the table %d routes", ops, len(controlTable()))
	}
}

// TestControlOpenAPIServed: the document is served with the instance (a
// world's address for a world) as its server.
func TestControlOpenAPIServed(t *testing.T) {
	t.Parallel()
	p := Start(t)
	w := p.World(t)
	for _, m := range []*Platform{p, w} {
		r := send(t, p.Client(), "GET", m.URL()+"/_mock/control.openapi.json", nil)
		mustStatus(t, r, http.StatusOK)
		doc, err := openapi3.NewLoader().LoadFromData(r.Body)
		if err != nil {
			t.Fatal(err)
		}
		if len(doc.Servers) != 1 || doc.Servers[0].URL != m.URL() || doc.Paths.Find("/_mock/clock") == nil {
			t.Errorf("servers %v, want %s", doc.Servers, m.URL())
		}
	}
}
