package handlers

// Fuzz targets of every decoder of request input: the strict JSON reader,
// each family's request bodies through their handlers, cursors, external
// event payloads in each content type and messaging WebSocket client
// events. Without -fuzz, go test runs their seeds. scripts/fuzz.sh runs
// each for a while (docs/security.md#fuzzing):
//
//	go test ./handlers -run '^$' -fuzz '^FuzzRequestBodies$' -fuzztime 5m

import (
	"bytes"
	"encoding/json"
	"errors"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/agentplatform/mockplatform/scenario"
)

// fuzzRoute is a route of the API that reads a body, its path filled with
// names of the default scenario, and the credentials it needs.
type fuzzRoute struct {
	method, path string
	headers      []string
	seed         []byte
}

// fuzzRoutes lists the routes that read a request body.
func fuzzRoutes(h *harness) []fuzzRoute {
	tok := msgToken(h)
	creds := map[string]string{}
	for _, c := range h.sc.Credentials {
		if _, ok := creds[c.Kind]; !ok && !c.Disabled && c.ClientEnv != "sandbox" {
			creds[c.Kind] = c.Key
		}
	}
	var out []fuzzRoute
	for _, r := range h.api.Routes() {
		if r.Op.Body == nil && len(r.Op.BodyTypes) == 0 {
			continue
		}
		fr := fuzzRoute{method: r.Method, path: fillPath(r.Path), headers: []string{"Content-Type", "application/json"}}
		switch {
		case r.fam.Name == "messaging":
			fr.headers = append(fr.headers, "X-Token", creds[scenario.KindConnector], "X-Host", "localhost", "Authorization", "bearer "+tok)
		case r.fam.Name == "chat":
			fr.headers = append(fr.headers, "X-API-KEY", creds[scenario.KindChat], "X-TOKEN", creds[scenario.KindConnector])
		case r.fam.Headers != nil:
			fr.headers = append(fr.headers, r.fam.Headers[0], creds[r.fam.Credential])
		}
		if r.Family == "external_events" {
			fr.path += "?event_id_location=payload&event_id_path=id&account_id=acme&project_id=support"
		}
		fr.seed = []byte("{}")
		if r.Op.Body != nil {
			if b, err := json.Marshal(r.Op.Body); err == nil {
				fr.seed = b
			}
		}
		out = append(out, fr)
	}
	slices.SortFunc(out, func(a, b fuzzRoute) int { return strings.Compare(a.method+a.path, b.method+b.path) })
	return out
}

// fillPath fills a route's parameters with names of the default scenario.
func fillPath(p string) string {
	segs := strings.Split(p, "/")
	group := ""
	if len(segs) > 1 {
		group = segs[1]
	}
	for i, s := range segs {
		if strings.HasPrefix(s, ":") || strings.HasPrefix(s, "*") {
			segs[i] = badInputParam(group, s[1:], false)
		}
	}
	return strings.Join(segs, "/")
}

// fuzzHarness is a harness whose exchanges are checked against the OpenAPI
// document as every test's are (conformance_test.go), the failures kept
// for the input being served: fuzzServe reports them to that input's t.
type fuzzHarness struct {
	*harness
	mu   sync.Mutex
	errs []error
}

func newFuzzHarness(f *testing.F) *fuzzHarness {
	f.Helper()
	chk, err := checker()
	if err != nil {
		f.Fatal(err)
	}
	fh := &fuzzHarness{}
	api, err := Open(engine.Config{}, func(ex Exchange) {
		if ex.Route != "" && !tableRoutes()[ex.Request.Method+" "+ex.Route] {
			return
		}
		if err := chk.Check(toCheck(ex)); err != nil {
			fh.mu.Lock()
			fh.errs = append(fh.errs, err)
			fh.mu.Unlock()
		}
	})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(api.Close)
	fh.harness = &harness{t: f, api: api, store: api.Store(), clock: api.Clock(), faults: api.Faults(),
		journal: api.Journal(), sc: api.Scenario()}
	fh.start = fh.clock.Now()
	return fh
}

// conformanceErr returns and forgets the conformance failures so far.
func (fh *fuzzHarness) conformanceErr() error {
	fh.mu.Lock()
	defer fh.mu.Unlock()
	err := errors.Join(fh.errs...)
	fh.errs = nil
	return err
}

// with is the harness reporting to t (a fuzz target's input must not
// report to the F that set the harness up).
func (h *harness) with(t testing.TB) *harness {
	cp := *h
	cp.t = t
	return &cp
}

// fuzzServe sends one request and checks the rules every answer keeps: no
// 5xx, an answer the OpenAPI document describes, and a 4xx changes no
// stored data and is journaled once. State a
// request did change is reset, so that inputs do not pile up data.
func fuzzServe(t *testing.T, fh *fuzzHarness, method, path string, body []byte, headers ...string) response {
	t.Helper()
	h := fh.with(t)
	defer func() {
		if err := fh.conformanceErr(); err != nil {
			t.Fatalf("%s %s %q: OpenAPI conformance: %v", method, path, body, err)
		}
	}()
	before := h.storeDump()
	n := len(h.journal.List(Filter{}))
	r := h.do(method, path, body, headers...)
	if r.Status >= 500 {
		t.Fatalf("%s %s %q -> %d %s", method, path, body, r.Status, r.Body)
	}
	after := h.storeDump()
	if r.Status >= 400 {
		if !before.Equal(after) {
			t.Fatalf("%s %s %q -> %d changed the store", method, path, body, r.Status)
		}
		if m := len(h.journal.List(Filter{})); m != min(n+1, DefaultJournalSize) {
			t.Fatalf("%s %s -> %d: %d journal entries, want %d", method, path, r.Status, m, n+1)
		}
	}
	if !before.Equal(after) || n > DefaultJournalSize/2 {
		if err := h.api.Reset(); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

// FuzzRequestBodies sends bodies to every route that reads one, through
// its handler, with the route's credentials.
func FuzzRequestBodies(f *testing.F) {
	h := newFuzzHarness(f)
	routes := fuzzRoutes(h.harness)
	if len(routes) < 30 {
		f.Fatalf("only %d routes with a body", len(routes))
	}
	for i, r := range routes {
		for _, b := range [][]byte{r.seed, []byte(`{"name":"a","name":"b"}`), []byte(`{}}`), []byte(`[]`), []byte(`null`), []byte(" "),
			[]byte(`{"url":"http://169.254.169.254/"}`)} {
			f.Add(uint16(i), b)
		}
	}
	f.Fuzz(func(t *testing.T, n uint16, body []byte) {
		r := routes[int(n)%len(routes)]
		fuzzServe(t, h, r.method, r.path, body, r.headers...)
	})
}

// FuzzExternalEventPayloads sends payloads in each content type the
// external events webhook reads (and one it does not), the event id in
// the payload at a path the input chooses.
func FuzzExternalEventPayloads(f *testing.F) {
	h := newFuzzHarness(f)
	types := []string{"application/json", "application/x-www-form-urlencoded", "application/xml", "text/xml", "text/plain", "application/octet-stream"}
	for i, s := range []string{`{"id":"E1"}`, `id=E1&x=2`, `<e><id>E1</id></e>`, `<e><id>E1</id></e>`, "id=E1\nx: 2", "x", `{"id":"E1"}}}}`, `<a><b></a>`} {
		f.Add(uint8(i), "id", []byte(s))
	}
	f.Add(uint8(2), "e.id", []byte(`<!DOCTYPE e [<!ENTITY x "y">]><e><id>&x;</id></e>`))
	f.Fuzz(func(t *testing.T, ct uint8, idPath string, body []byte) {
		q := url.Values{"event_id_location": {"payload"}, "event_id_path": {idPath}, "account_id": {"acme"}, "project_id": {"support"}}
		fuzzServe(t, h, "POST", "/runtime/us-1/v1/external-events/webhook?"+q.Encode(), body,
			"X-Api-Key", "test-external-events-key", "Content-Type", types[int(ct)%len(types)])
	})
}

// FuzzConversationCursors sends cursors to the conversations lists.
func FuzzConversationCursors(f *testing.F) {
	h := newFuzzHarness(f)
	first := h.do("GET", "/runtime/us-1/v3/acme/support/conversations?limit=1", nil, "x-api-key", "test-conversations-key")
	if c, _ := first.Map(f)["cursor"].(string); c != "" {
		f.Add(uint8(3), c)
	}
	for _, s := range []string{"", "x", "YzF8fGs", "c1||k", "Yzl8YWJjfGsx", strings.Repeat("A", 300)} {
		f.Add(uint8(3), s)
		f.Add(uint8(1), s)
	}
	f.Fuzz(func(t *testing.T, version uint8, cursor string) {
		v := []string{"v1", "v2", "v3"}[int(version)%3]
		fuzzServe(t, h, "GET", "/runtime/us-1/"+v+"/acme/support/conversations?"+url.Values{"cursor": {cursor}, "limit": {"2"}}.Encode(),
			nil, "x-api-key", "test-conversations-key")
	})
}

// FuzzSocketEvents hands client messages to a messaging session's event
// handler, as its socket's reader does: no message may panic, and the
// socket stays usable (a heartbeat after it is answered).
func FuzzSocketEvents(f *testing.F) {
	h := newHarness(f)
	tok := msgToken(h)
	sid := msgSession(h, tok, true)
	s := h.api.session(sid)
	conn := &rtConn{s: s, wake: make(chan struct{}, 1), bound: queueSize{items: 1 << 20, bytes: 1 << 40}}
	s.mu.Lock()
	s.conns[conn] = struct{}{}
	s.connected = true // as an accepted socket leaves it
	s.mu.Unlock()
	for _, m := range []string{`{"type":"EVENT_TYPE_REQUEST_POLY_AGENT_JOIN","payload":{}}`,
		`{"type":"EVENT_TYPE_USER_MESSAGE","payload":{"text":"hello"},"metadata":{"custom":{"a":1}}}`,
		`{"type":"EVENT_TYPE_USER_TYPING","payload":{"state":"TYPING_STATE_STARTED"}}`,
		`{"type":"EVENT_TYPE_HEARTBEAT","payload":{}}`, `{"type":"EVENT_TYPE_USER_END_SESSION","payload":{}}`,
		`{"type":"EVENT_TYPE_HEARTBEAT"}}}`, `{"type":1}`, `not json`, `{"type":"EVENT_TYPE_USER_MESSAGE","payload":{"text":null}}`} {
		f.Add([]byte(m))
	}
	heartbeat := []byte(`{"type":"EVENT_TYPE_HEARTBEAT","payload":{}}`)
	f.Fuzz(func(t *testing.T, data []byte) {
		h.api.handleEvent(conn, data)
		conn.mu.Lock()
		conn.queue, conn.held = nil, queueSize{}
		conn.mu.Unlock()
		s.mu.Lock()
		ended := s.ended
		s.mu.Unlock()
		if ended {
			return // the message ended the session
		}
		h.api.handleEvent(conn, heartbeat)
		conn.mu.Lock()
		defer conn.mu.Unlock()
		if len(conn.queue) != 1 || !bytes.Contains(conn.queue[0].data, []byte(evHeartbeat)) {
			t.Fatalf("after %q the heartbeat got %d events", data, len(conn.queue))
		}
		conn.queue, conn.held = nil, queueSize{}
	})
}
