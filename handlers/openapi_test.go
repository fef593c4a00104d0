package handlers

import (
	"bytes"
	"context"
	"flag"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
)

var update = flag.Bool("update", false, "rewrite the generated documents (docs/openapi.json)")

// openAPIFile is the committed document, relative to this package.
const openAPIFile = "../docs/openapi.json"

//go:generate go test -run ^TestOpenAPIInSync$ -update .

// TestOpenAPIInSync keeps docs/openapi.json equal to what the route table
// generates (-update, or go generate ./handlers, rewrites it).
func TestOpenAPIInSync(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	got, err := openAPIDocument(h.api.Routes())
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile(openAPIFile, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatalf("%v (run go generate ./handlers)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s is out of date: run go generate ./handlers (or go test ./handlers -run TestOpenAPIInSync -update)", openAPIFile)
	}
}

// TestOpenAPIValid loads the committed document with kin-openapi and
// validates it as OpenAPI 3.1, and checks that it has every route.
func TestOpenAPIValid(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(openAPIFile)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("docs/openapi.json is not valid OpenAPI: %v", err)
	}
	routes := newHarness(t).api.Routes()
	n := 0
	for _, rt := range routes {
		path, _ := openAPIPath(rt.Path)
		item := doc.Paths.Find(path)
		if item == nil || item.GetOperation(rt.Method) == nil {
			t.Errorf("%s %s is not in the document", rt.Method, path)
			continue
		}
		n++
	}
	ops := 0
	for _, item := range doc.Paths.Map() {
		ops += len(item.Operations())
	}
	if ops != len(routes) || n != len(routes) {
		t.Errorf("the document has %d operations, the route table %d routes", ops, len(routes))
	}
	if !strings.Contains(string(data), `"x-mock-fidelity"`) {
		t.Error("no x-mock-fidelity marks")
	}
}
