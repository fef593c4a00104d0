package realapi

// The official agent development kit's calls that no real document lists,
// from its client code; docs/fidelity.md records the answer shapes.

// KitSource names where the kit's operations come from.
const KitSource = "The official agent development kit (public repository polyai/adk, src/poly/handlers/platform_api.py): " +
	"the public calls it makes that no real document lists."

// Kit is the kit's operations as a document without answers or schemas.
func Kit() *Document {
	q := func(names ...string) []byte {
		out := `[{"in":"path","name":"agentId","required":true,"schema":{"type":"string"}}`
		for _, n := range names {
			out += `,{"in":"query","name":"` + n + `","schema":{}}`
		}
		return []byte(out + "]")
	}
	op := func(method, path string, params []byte) *Operation {
		return &Operation{Method: method, Path: path, Host: "builder", Parameters: params}
	}
	return &Document{Name: "kit", Title: "Agent development kit calls", Operations: []*Operation{
		op("GET", "/v1/agents/{agentId}/conversations", q("limit", "offset")),
		op("GET", "/v1/agents/{agentId}/testing/test-runs", q("limit", "offset", "testSetId", "branchId")),
		op("GET", "/v1/agents/{agentId}/testing/test-runs/{testRunId}",
			[]byte(`[{"in":"path","name":"agentId","required":true,"schema":{"type":"string"}},{"in":"path","name":"testRunId","required":true,"schema":{"type":"string"}}]`)),
		op("POST", "/v1/agents/{agentId}/testing/test-runs/trigger", q()),
		op("GET", "/v1/agents/{agentId}/testing/test-history", q("limit", "offset", "testCaseId", "branchId")),
	}}
}
