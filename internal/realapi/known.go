package realapi

// Known maps the mock's answers under the real profile that a real
// document does not describe, as "ROUTE_KEY CONTRADICTION" (as in
// coverage.json), to the docs/fidelity.md entry that records them, or
// "open". The root package's real-profile check fails on any other.
var Known = map[string]string{
	// 409 DEPLOYMENTS_ALREADY_PUBLISHED, in the real error-code list.
	"POST /builder/:region/v1/agents/:agent/deployments/publish 409: status not declared": "D22",
	// Writes to main: 422, live-verified; the document declares only 200.
	"PATCH /builder/:region/v1/agents/:agent/branches/:branch/behavior 422: status not declared": "D4",
	// Environments without a deployment are null (the real quickstart).
	"GET /builder/:region/v1/agents/:agent/deployments/active 200: at /activeDeployments/live: got null, want object":        "D26",
	"GET /builder/:region/v1/agents/:agent/deployments/active 200: at /activeDeployments/pre-release: got null, want object": "D26",
	// A config page never written has no schema and no time yet.
	"GET /builder/:region/v1/agents/:agent/real-time-configs 200: at /configPages/*/lastUpdated: got null, want string": "open",
	"GET /builder/:region/v1/agents/:agent/real-time-configs 200: at /configPages/*/schema: got null, want object":      "open",
	// Turn entities are the spec's mapping.
	"GET /runtime/:region/v3/:account/:project/conversations 200: at /conversations/*/turns/*/entities: got object, want array": "D25",
	"GET /runtime/:region/v1/:account/:project/conversations 200: at /conversations/*/turns/*/entities: got object, want array": "D25",
	// v1 has null where v3 has "" (the spec and the real documentation).
	"GET /runtime/:region/v1/:account/:project/conversations 200: at /conversations/*/from_number: got null, want string":         "D27",
	"GET /runtime/:region/v1/:account/:project/conversations 200: at /conversations/*/to_number: got null, want string":           "D27",
	"GET /runtime/:region/v1/:account/:project/conversations 200: at /conversations/*/handoff_reason: got null, want string":      "D27",
	"GET /runtime/:region/v1/:account/:project/conversations 200: at /conversations/*/handoff_destination: got null, want string": "D27",
	"GET /runtime/:region/v1/:account/:project/conversations 200: at /conversations/*/turns/*/user_input: got null, want string":  "D27",
	// slice_by language and phone_number: 501 (spec, real documentation).
	"GET /runtime/:region/v1/:account/:project/conversations/concurrency 501: status not declared": "M11.7",
	// As the real service's recorded answers: nulls, a latency object.
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /audioUrl: got null, want string":           "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /deploymentId: got null, want string":       "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /finishedAt: got null, want string":         "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /fromNumber: got null, want string":         "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /handoffDestination: got null, want string": "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /handoffReason: got null, want string":      "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /note: got null, want string":               "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /polyScore: got null, want number":          "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /shortSummary: got null, want string":       "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /toNumber: got null, want string":           "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /turns/*/entities: got null, want array":    "D29",
	"GET /builder/:region/v1/agents/:agent/conversations/:conversation 200: at /turns/*/latency: got object, want number":  "D29",
	// An unknown call: 404, as the legacy outbound API answers.
	"GET /builder/:region/v1/agents/:agent/telephony/outbound-calls/:call_sid/status 404: status not declared": "G26",
}
