package docgen

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/internal/openapigen"

	"github.com/getkin/kin-openapi/openapi3"
)

// The generated documents are current: what the code generates now is
// what is committed.
func TestDocumentsInSync(t *testing.T) {
	t.Parallel()
	for _, d := range Documents("../..") {
		got, err := d.Generate()
		if err != nil {
			t.Fatalf("%s: %v", d.File, err)
		}
		want, err := os.ReadFile(filepath.Join("../..", d.File))
		if err != nil {
			t.Fatalf("%v (run go generate ./internal/docgen)", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s is out of date: run go generate ./internal/docgen", d.File)
		}
	}
}

// TestOpenAPIValid loads the committed document with kin-openapi and
// validates it as OpenAPI 3.1, and checks that it has every route.
func TestOpenAPIValid(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../docs/openapi.json")
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
	var routes []handlers.Route
	for _, f := range handlers.Families() {
		routes = append(routes, handlers.FamilyRoutes(f)...)
	}
	n := 0
	for _, rt := range routes {
		path, _ := openapigen.Path(rt.Path)
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

// TestOpenAPIOfANewFamily: a family added to the table is in the document,
// with its tag, its credential and its error shape, and nothing else
// changes for the others.
func TestOpenAPIOfANewFamily(t *testing.T) {
	t.Parallel()
	fams := handlers.Families()
	gadgets := *fams[len(fams)-1] // the shape and credentials of handoff, renamed
	gadgets.Name, gadgets.Doc = "gadgets", "Gadgets, a family of the tests."
	gadgets.Routes = []handlers.Route{{Method: "GET", Path: "/v1/:account/:project/gadgets",
		Op: &handlers.Op{ID: "gadgetList", Summary: "List gadgets", Responses: []handlers.Response{{Status: 200}}}}}
	before, err := OpenAPI(fams)
	if err != nil {
		t.Fatal(err)
	}
	after, err := OpenAPI(append(fams, &gadgets))
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Tags  []struct{ Name string }
		Paths map[string]map[string]struct {
			OperationID string `json:"operationId"`
			Tags        []string
		}
	}
	if err := json.Unmarshal(after, &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Paths["/runtime/{region}/v1/{account}/{project}/gadgets"]["get"]
	if op.OperationID != "gadgetList" || !slices.Equal(op.Tags, []string{"gadgets"}) {
		t.Errorf("operation = %+v", op)
	}
	if n := len(doc.Tags); doc.Tags[n-1].Name != "gadgets" {
		t.Errorf("tags = %+v", doc.Tags)
	}
	if len(after) <= len(before) {
		t.Error("the document did not grow")
	}
}
