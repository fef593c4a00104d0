package docgen

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/internal/realapi"
)

// TestParityTable: each operation's row says whether a route serves it,
// whether the suite reached that route and checked it under the real
// profile, and its fidelity ids (the route's marks and its recorded
// contradictions'); the totals count them.
func TestParityTable(t *testing.T) {
	t.Parallel()
	op := func(method, path string) *realapi.Operation {
		return &realapi.Operation{Method: method, Path: path, Host: "builder", Responses: map[string]json.RawMessage{}}
	}
	doc := &realapi.Document{Name: "things", Title: "Things API", Version: "1.0", Operations: []*realapi.Operation{
		op("GET", "/v1/things"), op("POST", "/v1/things"), op("GET", "/v1/things/{thingId}"), op("DELETE", "/v1/things/{thingId}"),
	}}
	list := realapi.Route{Method: "GET", Path: "/builder/:region/v1/things"}
	create := realapi.Route{Method: "POST", Path: "/builder/:region/v1/things"}
	get := realapi.Route{Method: "GET", Path: "/builder/:region/v1/things/:thing"}
	in := ParityInputs{
		Facts:  &realapi.Facts{Source: "Test facts.", Documents: []*realapi.Document{doc}},
		Kit:    &realapi.Document{Name: "kit", Title: "Kit calls", Operations: []*realapi.Operation{op("GET", "/v1/things/{thingId}/parts")}},
		Routes: []realapi.Route{list, create, get},
		Coverage: &realapi.Coverage{Exercised: []string{list.Key(), create.Key()}, RealChecked: []string{list.Key(), create.Key()},
			Contradictions: map[string][]string{create.Key(): {"201: at /id: got null, want string", "409: status not declared"}}},
		Known: map[string]string{create.Key() + " 409: status not declared": "D22"},
		Marks: map[string][]string{create.Key(): {"M12.4", "D10", "D2"}},
	}
	b, err := ParityTable(in)
	if err != nil {
		t.Fatal(err)
	}
	var rows []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| `") || strings.HasPrefix(l, "| Real") || strings.HasPrefix(l, "| Agent") || (strings.HasPrefix(l, "- `") && !strings.HasPrefix(l, "- `internal")) {
			rows = append(rows, l)
		}
	}
	want := []string{
		"| Real documents | 4 | 3 | 2 | 2 | 1 |",
		"| Agent development kit | 1 | 0 | 0 | — | — |",
		"| `GET /v1/things` | ✓ | ✓ | ✓ |  |",
		"| `POST /v1/things` | ✓ | ✓ | ✓\\* | D2, D10, D22, M12.4, not recorded |",
		"| `GET /v1/things/{thingId}` | ✓ | — | — |  |",
		"| `DELETE /v1/things/{thingId}` | — | — | — |  |",
		"- `POST /v1/things`: 201: at /id: got null, want string (not recorded)",
		"- `POST /v1/things`: 409: status not declared (D22)",
		"| `GET /v1/things/{thingId}/parts` | — | — | — |  |",
	}
	if diff := cmp.Diff(want, rows); diff != "" {
		t.Errorf("rows (-want +got):\n%s", diff)
	}
}
