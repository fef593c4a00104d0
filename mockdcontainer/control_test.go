package mockdcontainer

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
)

// overHTTP is the control-plane client of a Container without a
// container: it lets the client be tested against an in-process
// platform's listener, with no Docker engine.
func overHTTP(t *testing.T, base string) *Remote {
	t.Helper()
	c := Connect(base, "")
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// TestControlClientSuite runs the behaviour suite through the container's
// control-plane client against an in-process platform's listener: the
// remote implementation of mockplatform.Mock is held to the same cases
// even where no Docker engine answers.
func TestControlClientSuite(t *testing.T) {
	mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock {
		p := mockplatform.Start(t)
		c := overHTTP(t, p.URL())
		t.Cleanup(func() {
			if err := c.Err(); err != nil {
				t.Errorf("Err() = %v", err)
			}
		})
		return c
	})
}

func TestControlClientURLs(t *testing.T) {
	c := overHTTP(t, "http://127.0.0.1:1234")
	for got, want := range map[string]string{
		c.URL():              "http://127.0.0.1:1234",
		c.RuntimeURL("uk-1"): "http://127.0.0.1:1234/runtime/uk-1",
		c.BuilderURL("eu"):   "http://127.0.0.1:1234/builder/eu",
		c.MessagingURL():     "http://127.0.0.1:1234/messaging",
		c.ControlURL():       "http://127.0.0.1:1234/_mock",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
}

// TestControlClientErr: a failing control plane answers zero values and
// keeps the first failure, as bufio.Scanner does.
func TestControlClientErr(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusInternalServerError)
		_, _ = w.Write([]byte(`{"error":"boom on ` + r.URL.Path + `"}`))
	}))
	defer srv.Close()
	c := overHTTP(t, srv.URL)

	if got := c.Now(); !got.IsZero() {
		t.Errorf("Now() = %v, want the zero time", got)
	}
	if got := c.Advance(time.Minute); !got.IsZero() {
		t.Errorf("Advance() = %v, want the zero time", got)
	}
	if got := c.Requests(mockplatform.RequestFilter{}); got != nil {
		t.Errorf("Requests() = %v, want nil", got)
	}
	if got := c.Faults(); got != nil {
		t.Errorf("Faults() = %v, want nil", got)
	}
	if c.RemoveFault("x") {
		t.Error("RemoveFault() = true")
	}
	c.ClearFaults()
	if got := c.Coverage(); got != nil {
		t.Errorf("Coverage() = %v, want nil", got)
	}
	c.ClearCoverage()
	if err := c.Reset(); err == nil {
		t.Error("Reset() = nil")
	}

	err := c.Err()
	var ce *ControlError
	if !errors.As(err, &ce) || ce.Method != "GET" || ce.Path != "/clock" || ce.Status != 500 || ce.Message != "boom on /_mock/clock" {
		t.Fatalf("Err() = %#v, want the first failure (GET /clock)", err)
	}
}

// TestControlClientRejections: a refused scenario or fault rule is the
// caller's error, returned and not kept in Err.
func TestControlClientRejections(t *testing.T) {
	p := mockplatform.Start(t)
	c := overHTTP(t, p.URL())
	err := c.LoadScenarioYAML([]byte("name: x\naccounts: 7\n"))
	var ce *ControlError
	if !errors.As(err, &ce) || ce.Status != http.StatusBadRequest || len(ce.Problems) == 0 {
		t.Fatalf("LoadScenarioYAML(invalid) = %#v, want a 400 with problems", err)
	}
	if !strings.Contains(err.Error(), "<request>:") {
		t.Errorf("error %q does not carry the problems' positions", err)
	}
	if _, err := c.AddFault(mockplatform.Fault{}); err == nil {
		t.Fatal("AddFault(empty rule) = nil")
	}
	if err := c.Err(); err != nil {
		t.Fatalf("Err() = %v, want nil after rejections only", err)
	}
}

// TestControlClientUnreachable: a transport failure is kept too.
func TestControlClientUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	base := srv.URL
	srv.Close()
	c := overHTTP(t, base)
	if _, err := c.AddFault(mockplatform.Fault{}); err == nil {
		t.Fatal("AddFault on a closed server = nil")
	}
	c.Now()
	if err := c.Err(); err == nil || !strings.Contains(err.Error(), "POST /faults") {
		t.Fatalf("Err() = %v, want the first failure (POST /faults)", err)
	}
}
