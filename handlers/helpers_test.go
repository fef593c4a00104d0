package handlers

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/journal"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

func init() { gin.SetMode(gin.ReleaseMode) }

// harness is one API over a fresh store, manual clock, fault set and
// journal, served in memory: the unit under test of this package.
type harness struct {
	t       testing.TB
	api     *API
	store   *store.Store
	clock   *clock.Clock
	faults  *faults.Set
	journal *journal.Journal
	sc      *scenario.Scenario
	start   time.Time // the clock's start
}

// newHarness starts an API on the default scenario, or on the scenario
// YAML given, wired as mockplatform.New wires it (Open).
func newHarness(t testing.TB, scenarioYAML ...string) *harness {
	t.Helper()
	yml := ""
	if len(scenarioYAML) > 0 {
		yml = scenarioYAML[0]
	}
	return newHarnessConfig(t, yml, engine.Config{})
}

// newHarnessFamilies is newHarness on the default scenario with test
// families served besides the table's (a table of their own).
func newHarnessFamilies(t testing.TB, fams ...*Family) *harness {
	t.Helper()
	return newHarnessTable(t, "", engine.Config{}, newTable(append(slices.Clone(families), fams...)))
}

// newHarnessConfig is newHarness with a Config (its scenario and Observe
// are the harness's).
func newHarnessConfig(t testing.TB, scenarioYAML string, cfg engine.Config) *harness {
	t.Helper()
	return newHarnessTable(t, scenarioYAML, cfg, defaultTable())
}

// newHarnessTable is newHarnessConfig serving a family table.
func newHarnessTable(t testing.TB, scenarioYAML string, cfg engine.Config, tab *table) *harness {
	t.Helper()
	var sc *scenario.Scenario
	if scenarioYAML != "" {
		var err error
		sc, err = tab.scenario.Parse(t.Name()+".yaml", []byte(scenarioYAML))
		if err != nil {
			t.Fatalf("scenario: %v", err)
		}
	}
	cfg.Scenario = sc
	api, err := openTable(cfg, conformance(t), tab)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(api.Close)
	t.Cleanup(func() { checkCatalogue(t, api) }) // before Close (cleanups run last first)
	h := &harness{t: t, api: api, store: api.Store(), clock: api.Clock(), faults: api.Faults(),
		journal: api.Journal(), sc: api.Scenario()}
	h.start = h.clock.Now()
	return h
}

// advance moves the harness's clock forward, firing what falls due.
func (h *harness) advance(d time.Duration) time.Time {
	h.t.Helper()
	now, err := h.clock.Advance(context.Background(), d)
	if err != nil {
		h.t.Fatalf("advance %v: %v", d, err)
	}
	return now
}

// evaluate runs one alert evaluation pass now, with its webhook attempts.
func (h *harness) evaluate() {
	h.t.Helper()
	if err := h.api.EvaluateAlerts(context.Background()); err != nil {
		h.t.Fatalf("evaluate alerts: %v", err)
	}
}

// response is a recorded answer.
type response struct {
	Status int
	Header http.Header
	Body   []byte
}

// JSON decodes the body into a generic value.
func (r response) JSON(t testing.TB) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(r.Body, &v); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, r.Body)
	}
	return v
}

// Map decodes a JSON object body.
func (r response) Map(t testing.TB) map[string]any {
	t.Helper()
	m, ok := r.JSON(t).(map[string]any)
	if !ok {
		t.Fatalf("body is not a JSON object: %s", r.Body)
	}
	return m
}

// do sends a request with headers (name, value pairs) and a body (a
// string, []byte or a value to encode as JSON; nil for none).
func (h *harness) do(method, path string, body any, headers ...string) response {
	h.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = bytes.NewBufferString(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			h.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req := httptest.NewRequest(method, path, rd)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.handler().ServeHTTP(rec, req)
	return response{Status: rec.Code, Header: rec.Header(), Body: rec.Body.Bytes()}
}

// chatHeaders are the default scenario's chat credentials.
var chatHeaders = []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", "application/json"}

const chatBase = "/runtime/us-1/v1/acme/support/chat"

// mustStatus fails unless the response has the status.
func mustStatus(t testing.TB, r response, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
}

// mustBody compares a JSON body with want (a value marshalled to JSON).
func mustBody(t testing.TB, r response, want any, opts ...cmp.Option) {
	t.Helper()
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var w any
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(w, r.JSON(t), opts...); diff != "" {
		t.Fatalf("body mismatch (-want +got):\n%s", diff)
	}
}

// envelopeBody is the chat and v3 error envelope with a correlation id.
func envelopeBody(r response, code, msg string) map[string]any {
	return map[string]any{"success": false, "error": msg, "error_id": r.Header.Get(CorrelationHeader),
		"error_code": code, "error_message": msg, "data": nil}
}

// snapshotCount returns the number of stored items, to check that a
// rejected request changed nothing.
func (h *harness) storeLen() int {
	h.t.Helper()
	n, err := h.store.Len()
	if err != nil {
		h.t.Fatal(err)
	}
	return n
}

// storeDump returns every stored item, for before/after comparisons.
func (h *harness) storeDump() *store.Snapshot {
	h.t.Helper()
	s, err := h.store.Snapshot()
	if err != nil {
		h.t.Fatal(err)
	}
	return s
}

func scenarioDefaultYAML() []byte { return scenario.DefaultYAML() }

// unchanged runs fn and fails t if it changed any stored data.
func (h *harness) unchanged(t testing.TB, fn func()) {
	t.Helper()
	before := h.storeDump()
	fn()
	if after := h.storeDump(); !before.Equal(after) {
		t.Fatalf("the store changed:\nbefore %v\nafter  %v", before.Keys(), after.Keys())
	}
}

// handler serves the harness's API.
func (h *harness) handler() http.Handler { return h.api }
