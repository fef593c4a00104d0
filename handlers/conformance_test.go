package handlers

// Every exchange of this package's tests is checked against the OpenAPI
// document (docs/openapi.json): an answer the document does not describe
// fails the test that caused it.

import (
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/agentplatform/mockplatform/internal/oapicheck"
)

// openAPIFile is the committed document, relative to this package.
const openAPIFile = "../docs/openapi.json"

// checker is the document's checker, loaded once.
var checker = sync.OnceValues(func() (*oapicheck.Checker, error) {
	data, err := os.ReadFile(openAPIFile)
	if err != nil {
		return nil, err
	}
	return oapicheck.New(data)
})

// conformance returns the observer of a test's API: it fails the test on
// an exchange that does not conform. Benchmarks are not observed (the
// check would be what they measure).
func conformance(t testing.TB) func(Exchange) {
	if _, ok := t.(*testing.B); ok {
		return nil
	}
	chk, err := checker()
	if err != nil {
		t.Fatalf("load %s: %v", openAPIFile, err)
	}
	return func(ex Exchange) {
		if ex.Route != "" && !tableRoutes()[ex.Request.Method+" "+ex.Route] {
			return // a route of a test family
		}
		if err := chk.Check(toCheck(ex)); err != nil {
			t.Errorf("OpenAPI conformance: %v", err)
		}
	}
}

// tableRoutes are the routes of the route table, "METHOD /path".
var tableRoutes = sync.OnceValue(func() map[string]bool {
	out := map[string]bool{}
	for _, rt := range defaultTable().routes {
		out[rt.Method+" "+rt.Path] = true
	}
	return out
})

func toCheck(ex Exchange) oapicheck.Exchange {
	return oapicheck.Exchange{Request: ex.Request, Body: ex.Body, Route: ex.Route, Params: ex.Params, Status: ex.Status,
		Header: ex.Header, Response: ex.Response, Fault: ex.Fault, FaultBody: ex.FaultBody}
}

// TestMain reports, after the tests, how many exchanges were checked (go
// test -v shows it).
func TestMain(m *testing.M) {
	code := m.Run()
	if chk, err := checker(); err == nil {
		fmt.Printf("OpenAPI conformance (handlers): %s\n", chk.Counts())
	}
	os.Exit(finishCoverage(code))
}
