package handlers

// The coverage counts at the edge (docs/coverage.md), and the check that
// keeps the catalogue complete: every answer of this package's tests
// carries a status and a code its operation's catalogue lists, and every
// transition, clock event and preset recorded is one the catalogue names.

import (
	"encoding/json"
	"flag"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"
)

// catalogueGaps lists what an instance recorded outside its catalogue
// (coverage.Report.Outside): statuses, codes, transitions, clock events
// and presets.
func catalogueGaps(a *API) []string {
	return coverage.Build(a.Catalogue(), a.Coverage().Snapshot(), nil).Outside(nil)
}

// suiteCoverage sums the coverage of every instance of the family table
// this package's tests start (TestMain prints its totals).
var suiteCoverage = struct {
	mu   sync.Mutex
	snap coverage.Snapshot
}{snap: coverage.NewSnapshot()}

// checkCatalogue fails t on what its instance of the family table
// recorded outside the catalogue, and adds its counts to the suite's.
func checkCatalogue(t testing.TB, a *API) {
	if _, ok := t.(*testing.B); ok || a.tab != defaultTable() {
		return // a benchmark, or test families that declare what a test needs
	}
	for _, gap := range catalogueGaps(a) {
		t.Errorf("coverage catalogue: outside it: %s", gap)
	}
	s := a.Coverage().Snapshot()
	suiteCoverage.mu.Lock()
	suiteCoverage.snap.Add(s)
	suiteCoverage.mu.Unlock()
}

var coverageReport = flag.String("coverage-report", "", "write the API coverage report of this run of the tests (JSON) to this file")

// finishCoverage prints the suite's coverage for TestMain and writes its
// report when -coverage-report names a file; it returns the exit code.
func finishCoverage(code int) int {
	suiteCoverage.mu.Lock()
	r := coverage.Build(Catalogue(), suiteCoverage.snap, nil)
	suiteCoverage.mu.Unlock()
	t := r.Totals
	fmt.Printf("API coverage (handlers): operations %d/%d, statuses %d/%d, codes %d/%d, transitions %d/%d, clock events %d/%d\n",
		t.Operations.Covered, t.Operations.Total, t.Statuses.Covered, t.Statuses.Total, t.Codes.Covered, t.Codes.Total,
		t.Transitions.Covered, t.Transitions.Total, t.ClockEvents.Covered, t.ClockEvents.Total)
	if *coverageReport == "" {
		return code
	}
	data, err := json.MarshalIndent(r, "", "  ")
	if err == nil {
		err = os.WriteFile(*coverageReport, data, 0o644)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "coverage report: %v\n", err)
		return 1
	}
	return code
}

// famGadgets is a test family with a machine, a clock event and codes;
// its handler reports a transition as the engine would.
var famGadgets = &Family{
	Name: "gadgets", Base: "runtime", Shape: shapeEnvelope,
	Credential: "gadgets", Headers: []string{"X-Api-Key"},
	Doc:      "Gadgets, a family of the tests.",
	Schemes:  map[string]Scheme{"gadgetsKey": {Type: "apiKey", In: "header", Name: "x-api-key"}},
	Security: [][]string{{"gadgetsKey"}},
	Routes: []Route{
		route("POST /v1/:account/gadgets", (*API).handleGadgetAdd, &Op{ID: "gadgetAdd", Summary: "Add a gadget",
			Body: gadgetBody{}, BodyOptional: true, Responses: []Response{ok(201, nil)}, Errors: []int{409}}),
		route("GET /v1/:account/gadgets", (*API).handleGadgetAdd, &Op{ID: "gadgetList", Summary: "List gadgets",
			Responses: []Response{ok(200, nil)}}),
	},
	Codes:       []ErrorCode{{Status: 409, Code: "GADGET_EXISTS"}, {Status: 401, Code: "GADGET_KEY", Ops: []string{"gadgetList"}}},
	Machines:    []*Machine{{Name: "gadget", States: []string{"new", "broken"}, Transitions: []Transition{{To: "new"}, {From: "new", To: "broken", Clock: true}}}},
	ClockEvents: []ClockEvent{{Kind: "gadgets.wear"}},
	Presets:     []faults.Preset{{Name: "gadgets.mode", Family: "gadgets", Arg: faults.ArgOneOf, Values: []string{"jam", "melt"}}},
	ApplyPreset: markPreset,
}

type gadgetBody struct {
	Name string `json:"name"`
}

func (gadgetBody) FieldRules() map[string]engine.FieldRule { return nil }

func (a *API) handleGadgetAdd(c *gin.Context) error {
	if c.Query("exists") != "" {
		return &engine.Error{Kind: engine.KindConflict, Code: "GADGET_EXISTS", Message: "Gadget exists."}
	}
	a.Coverage().Transition("gadget", "", "new")
	c.JSON(http.StatusCreated, map[string]any{})
	return nil
}

var gadgetsTable = sync.OnceValue(func() *table { return newTable(append(slices.Clone(families), famGadgets)) })

// TestCatalogueOfFamily: the catalogue of a family is its routes'
// operations with their statuses, the edge's codes where the route
// answers their status and the family's codes by status or by Ops, its
// machines, clock events and presets (one per value).
func TestCatalogueOfFamily(t *testing.T) {
	t.Parallel()
	cat := gadgetsTable().catalogue
	i := slices.IndexFunc(cat.Families, func(f coverage.Family) bool { return f.Name == "gadgets" })
	if i < 0 {
		t.Fatal("no gadgets in the catalogue")
	}
	want := coverage.Family{
		Name: "gadgets",
		Operations: []coverage.Operation{
			{ID: "gadgetAdd", Method: "POST", Path: "/runtime/:region/v1/:account/gadgets", Statuses: []int{201, 400, 401, 404, 409, 413},
				Codes: []coverage.Code{code(401, "UNAUTHORIZED"), code(404, "ACCOUNT_NOT_FOUND"), code(404, "REGION_REQUIRED"), code(409, "GADGET_EXISTS"), code(413, "PAYLOAD_TOO_LARGE")}},
			{ID: "gadgetList", Method: "GET", Path: "/runtime/:region/v1/:account/gadgets", Statuses: []int{200, 401, 404},
				Codes: []coverage.Code{code(401, "GADGET_KEY"), code(401, "UNAUTHORIZED"), code(404, "ACCOUNT_NOT_FOUND"), code(404, "REGION_REQUIRED")}},
		},
		Machines:    []coverage.Machine{*famGadgets.Machines[0]},
		ClockEvents: famGadgets.ClockEvents,
		Presets:     []string{"gadgets.mode:jam", "gadgets.mode:melt"},
	}
	if diff := cmp.Diff(want, cat.Families[i]); diff != "" {
		t.Errorf("gadgets' catalogue (-want +got):\n%s", diff)
	}
}

// code is a coverage.Code.
func code(status int, c string) coverage.Code { return coverage.Code{Status: status, Code: c} }

// TestCatalogueOfTable: every route's operation is in the catalogue once,
// with the statuses the OpenAPI document lists for it (the same rule).
func TestCatalogueOfTable(t *testing.T) {
	t.Parallel()
	cat := Catalogue()
	seen := map[string]bool{}
	for _, r := range defaultTable().routes {
		if seen[r.Op.ID] {
			continue
		}
		seen[r.Op.ID] = true
		i := cat.OperationIndex(r.Op.ID)
		if i < 0 {
			t.Errorf("%s is not in the catalogue", r.Op.ID)
		}
	}
	if cat.Operations() != len(seen) {
		t.Errorf("the catalogue has %d operations, the table %d", cat.Operations(), len(seen))
	}
	for _, f := range cat.Families {
		for _, op := range f.Operations {
			if op.ID == "chatCreate" {
				if diff := cmp.Diff([]int{200, 400, 401, 403, 404, 413}, op.Statuses); diff != "" {
					t.Errorf("chatCreate statuses (-want +got):\n%s", diff)
				}
				want := []coverage.Code{code(401, "UNAUTHORIZED"), code(403, "FORBIDDEN"), code(404, "ACCOUNT_NOT_FOUND"),
					code(404, "PROJECT_NOT_FOUND"), code(404, "REGION_REQUIRED"), code(413, "PAYLOAD_TOO_LARGE")}
				for _, c := range want {
					if !slices.Contains(op.Codes, c) {
						t.Errorf("chatCreate lacks the edge's code %v: %v", c, op.Codes)
					}
				}
			}
		}
	}
}

// TestMachinesWellFormed: the machines and clock events of engine/machines.go
// make a valid catalogue (states hold every move's ends, no move twice,
// names unique), with the states and moves the issue names.
func TestMachinesWellFormed(t *testing.T) {
	t.Parallel()
	all := []*Machine{engine.MachineChatConversation, engine.MachineMessagingSession, engine.MachineBranch, engine.MachineDeployment, engine.MachineAlertRule,
		engine.MachineWebhookEndpoint, engine.MachineWebhookDelivery, engine.MachineOutboundCall, engine.MachineDNIReservation, engine.MachineExternalEvent}
	clocks := []ClockEvent{engine.ClockAlertsEvaluation, engine.ClockWebhooksAttempt, engine.ClockWebhooksRetry, engine.ClockOutboundProgress,
		engine.ClockOutboundRetention, engine.ClockMessagingIdleExpiry, engine.ClockConversationsRetention}
	fam := &Family{Name: "machines", Base: "runtime", Shape: shapeErrorMessage, Machines: all, ClockEvents: clocks}
	cat := newTable([]*Family{fam}).catalogue
	r := coverage.Build(cat, coverage.NewSnapshot(), nil)
	if got := r.Totals.Transitions.Total; got < 60 {
		t.Errorf("%d transitions in all, want the machines' moves", got)
	}
	for _, k := range []coverage.TransitionKey{
		{Machine: "chat_conversation", From: "responded", To: "handoff"},
		{Machine: "messaging_session", From: "connected", To: "idle_expired"},
		{Machine: "branch", From: "created", To: "conflicted"},
		{Machine: "deployment", From: "live", To: "rolled_back"},
		{Machine: "alert_rule", From: "alert", To: "ok"},
		{Machine: "webhook_delivery", From: "retried", To: "given_up"},
		{Machine: "outbound_call", From: "calling", To: "busy"},
		{Machine: "outbound_call", From: "busy", To: "expired"},
		{Machine: "dni_reservation", From: "used", To: "expired"},
		{Machine: "external_event", From: "unbound", To: "bound"},
	} {
		if m := cat.Machine(k.Machine); m == nil || !slices.ContainsFunc(m.Transitions, func(tr Transition) bool { return tr.From == k.From && tr.To == k.To }) {
			t.Errorf("no transition %+v", k)
		}
	}
	for _, bad := range []*Family{
		{Name: "b1", Machines: []*Machine{{Name: "m", States: []string{"a"}, Transitions: []Transition{{From: "a", To: "z"}}}}},
		{Name: "b2", Machines: []*Machine{{Name: "m", States: []string{"a"}, Transitions: []Transition{{To: "a"}, {To: "a"}}}}},
		{Name: "b3", Machines: []*Machine{engine.MachineBranch, engine.MachineBranch}},
		{Name: "b4", ClockEvents: []ClockEvent{engine.ClockWebhooksRetry, engine.ClockWebhooksRetry}},
		{Name: "b5", Codes: []ErrorCode{{Status: 200, Code: "OK"}}},
		{Name: "b6", Codes: []ErrorCode{{Status: 409, Code: "X", Ops: []string{"nope"}}}},
	} {
		t.Run(bad.Name, func(t *testing.T) {
			t.Parallel()
			defer func() {
				if recover() == nil {
					t.Errorf("a table of family %s did not panic", bad.Name)
				}
			}()
			bad.Base, bad.Shape = "runtime", shapeErrorMessage
			newTable([]*Family{bad})
		})
	}
}

// TestCoverageRecording: the edge counts each request by operation,
// status, code, fault rule and preset; unrouted requests apart; a
// handler's transition; a reset keeps the counts.
func TestCoverageRecording(t *testing.T) {
	t.Parallel()
	yml := string(scenarioDefaultYAML()) + `
  - {kind: gadgets, key: test-gadgets-key, account: acme}
`
	h := newHarnessTable(t, yml, engine.Config{}, gadgetsTable())
	key := []string{"X-Api-Key", "test-gadgets-key"}
	mustStatus(t, h.do("POST", "/runtime/us-1/v1/acme/gadgets", nil, key...), 201)
	mustStatus(t, h.do("POST", "/runtime/us-1/v1/acme/gadgets?exists=1", nil, key...), 409)
	mustStatus(t, h.do("POST", "/runtime/xx-9/v1/acme/gadgets", nil, key...), 404)
	mustStatus(t, h.do("POST", "/runtime/us-1/v1/acme/gadgets", nil), 401)
	mustStatus(t, h.do("GET", "/runtime/us-1/v1/acme/nothing-here", nil), 404)
	rule, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "gadgets", Method: "GET"}, Action: faults.Action{Status: 503, Code: "DOWN"}, Times: 1})
	if err != nil {
		t.Fatal(err)
	}
	mustStatus(t, h.do("GET", "/runtime/us-1/v1/acme/gadgets", nil, key...), 503)
	jam, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "gadgets", Method: "POST"}, Action: faults.Action{Preset: "gadgets.mode:jam"}, Times: 1})
	if err != nil {
		t.Fatal(err)
	}
	mustStatus(t, h.do("POST", "/runtime/us-1/v1/acme/gadgets", nil, key...), 201)
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, h.do("POST", "/runtime/us-1/v1/acme/chat/create", nil), 404) // not a gadgets route: chat's, of account acme without project

	want := coverage.NewSnapshot()
	want.Operations["gadgetAdd"] = coverage.OperationCount{Calls: 5, Answers: map[coverage.Answer]uint64{
		{Status: 201}: 1, {Status: 201, Fault: true}: 1, {Status: 409, Code: "GADGET_EXISTS"}: 1,
		{Status: 404, Code: "REGION_REQUIRED"}: 1, {Status: 401, Code: "UNAUTHORIZED"}: 1,
	}}
	want.Operations["gadgetList"] = coverage.OperationCount{Calls: 1, Answers: map[coverage.Answer]uint64{{Status: 503, Code: "DOWN", Fault: true}: 1}}
	want.Transitions[coverage.TransitionKey{Machine: "gadget", To: "new"}] = coverage.Count{N: 2}
	want.Presets["gadgets.mode:jam"] = 1
	want.FaultRules[rule.ID], want.FaultRules[jam.ID] = 1, 1
	want.Unrouted = 2
	if diff := cmp.Diff(want, h.api.Coverage().Snapshot()); diff != "" {
		t.Errorf("coverage (-want +got):\n%s", diff)
	}
	h.api.Coverage().Clear()
	if diff := cmp.Diff(coverage.NewSnapshot(), h.api.Coverage().Snapshot()); diff != "" {
		t.Errorf("after Clear (-want +got):\n%s", diff)
	}
}

// TestCatalogueGaps: an answer outside its operation's catalogue, not a
// fault rule's, is a gap: a status or a code it lacks; so is an
// uncatalogued transition.
func TestCatalogueGaps(t *testing.T) {
	t.Parallel()
	h := newHarnessTable(t, "", engine.Config{}, gadgetsTable())
	cov, cat := h.api.Coverage(), h.api.Catalogue()
	cov.Request(cat.OperationIndex("gadgetAdd"), 418, "", "", "", coverage.SourceClient)
	cov.Request(cat.OperationIndex("gadgetAdd"), 409, "OTHER", "", "", coverage.SourceClient)
	cov.Request(cat.OperationIndex("gadgetAdd"), 502, "", "rule-1", "", coverage.SourceClient)
	cov.Request(cat.OperationIndex("chatCreate"), 400, "CHAT_SOMETHING", "", "", coverage.SourceClient)
	cov.Transition("gadget", "broken", "new")
	got := catalogueGaps(h.api)
	want := []string{
		"chatCreate answered 400 CHAT_SOMETHING (×1)",
		"gadgetAdd answered 409 OTHER (×1)",
		"gadgetAdd answered 418 (×1)",
		"transition gadget broken → new (×1)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gaps (-want +got):\n%s", diff)
	}
	cov.Clear() // the harness's own check would report them
}

// BenchmarkCover measures what the edge adds to a request for the
// coverage counts (the target is at most 1 µs).
func BenchmarkCover(b *testing.B) {
	h := newHarness(b)
	st := &reqState{op: h.api.Catalogue().OperationIndex("chatRespond") + 1, code: engine.CodeChatEnded}
	b.ReportAllocs()
	for b.Loop() {
		h.api.cover(st, http.StatusGone)
	}
}
