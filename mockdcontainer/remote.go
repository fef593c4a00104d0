package mockdcontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform"
)

// Remote is a mockplatform.Mock over HTTP: the addresses of a running
// mockd, or of one world of it, and its control plane ({base}/_mock) as
// methods. A Container is one; Connect makes one for a mockd started
// elsewhere (a CI service container, say); World makes one for a fresh
// world.
//
// A control call that fails answers a zero value, and the first such
// failure is kept for Err, as bufio.Scanner does; a rejected scenario or
// fault rule is returned by its method instead.
type Remote struct {
	http  *http.Client
	token string // the control token, sent as a bearer token to /_mock
	root  *Remote
	world string // the world's id; "" for the server's root

	mu   sync.Mutex
	base string // http://host:port, or http://host:port/w/{id}
	err  error  // first control-plane failure
}

var _ mockplatform.Mock = (*Remote)(nil)

// Connect returns a Remote for the mockd at base (http://host:port),
// sending token (if not empty) as the control-plane bearer token.
func Connect(base, token string) *Remote {
	return &Remote{http: newHTTPClient(), token: token, base: strings.TrimRight(base, "/")}
}

func newHTTPClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConnsPerHost = 512 // many parallel tests share one mockd
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// URL is the base address: http://host:port, or for a world
// http://host:port/w/{id}.
func (c *Remote) URL() string {
	if c.root != nil {
		return c.root.URL() + "/w/" + c.world
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base
}

func (c *Remote) setBase(base string) {
	c.mu.Lock()
	c.base = base
	c.mu.Unlock()
	c.http.CloseIdleConnections()
}

// RuntimeURL is the runtime and data base address of a region (us-1,
// uk-1, euw-1).
func (c *Remote) RuntimeURL(region string) string { return c.URL() + "/runtime/" + region }

// BuilderURL is the build and monitoring base address of a region (us,
// uk, eu).
func (c *Remote) BuilderURL(region string) string { return c.URL() + "/builder/" + region }

// MessagingURL is the messaging base address.
func (c *Remote) MessagingURL() string { return c.URL() + "/messaging" }

// ControlURL is the control plane's base address.
func (c *Remote) ControlURL() string { return c.URL() + "/_mock" }

// ControlToken is the control token the client sends as a bearer token
// ("" for none): send it too on control calls of your own, such as the
// family controls under ControlURL().
func (c *Remote) ControlToken() string { return c.token }

// WorldID is the id of the client's world, "" for the server's root.
func (c *Remote) WorldID() string { return c.world }

// Client is an HTTP client for the mock (a plain one with a 60 s timeout,
// shared by the worlds of one server: do not change it).
func (c *Remote) Client() *http.Client { return c.http }

// Err is the first control-plane failure of a method that has no error
// result (or of any method: a transport failure or an unexpected answer),
// nil if none.
func (c *Remote) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Remote) fail(err error) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
	return err
}

// ControlError is a control-plane answer other than the expected one.
type ControlError struct {
	Method, Path string
	Status       int
	// Message is the control plane's {"error": ...}.
	Message string
	// Problems lists a rejected scenario's problems (file:line:col: ...).
	Problems []string
	// Now is the clock's time in an answer that carries it (an advance
	// stopped before its target); zero otherwise.
	Now time.Time
}

func (e *ControlError) Error() string {
	msg := fmt.Sprintf("mockd %s %s: %d", e.Method, e.Path, e.Status)
	if e.Message != "" {
		msg += ": " + e.Message
	}
	if len(e.Problems) > 0 {
		msg += "\n" + strings.Join(e.Problems, "\n")
	}
	return msg
}

// control calls the control plane at base+"/_mock"+p within 30 seconds;
// out (if not nil) receives the JSON answer. want is the expected status.
func (c *Remote) control(ctx context.Context, method, p string, body []byte, want int, out any) error {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	return c.controlContext(ctx, method, p, body, want, out)
}

// controlContext is control bounded by ctx alone.
func (c *Remote) controlContext(ctx context.Context, method, p string, body []byte, want int, out any) error {
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.ControlURL()+p, rd)
	if err != nil {
		return err
	}
	switch {
	case method == http.MethodGet:
	case p == "/scenario":
		req.Header.Set("Content-Type", "application/yaml")
	default:
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("mockd %s %s: %w", method, p, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("mockd %s %s: %w", method, p, err)
	}
	if resp.StatusCode != want {
		ce := &ControlError{Method: method, Path: p, Status: resp.StatusCode}
		var eb struct {
			Error    string    `json:"error"`
			Problems []string  `json:"problems"`
			Now      time.Time `json:"now"`
		}
		if json.Unmarshal(data, &eb) == nil {
			ce.Message, ce.Problems, ce.Now = eb.Error, eb.Problems, eb.Now
		}
		return ce
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("mockd %s %s: decode answer: %w", method, p, err)
		}
	}
	return nil
}

type clockAnswer struct {
	Now time.Time `json:"now"`
}

// Now is the mock's current time (GET /_mock/clock).
func (c *Remote) Now() time.Time {
	var a clockAnswer
	if err := c.control(context.Background(), http.MethodGet, "/clock", nil, http.StatusOK, &a); err != nil {
		c.fail(err)
		return time.Time{}
	}
	return a.Now
}

// Advance moves the clock forward by d and runs the work that falls due
// before it returns (POST /_mock/clock/advance). It returns the new time.
// It has no deadline of its own (the work may take long); use
// AdvanceContext to bound it.
func (c *Remote) Advance(d time.Duration) time.Time {
	now, err := c.AdvanceContext(context.Background(), d)
	if err != nil {
		c.fail(err)
		return time.Time{}
	}
	return now
}

// AdvanceContext is Advance bounded by ctx: when ctx ends, the request is
// abandoned and mockd stops the advance at a timer boundary (docs/time.md
// of mockplatform), with the clock where it stopped. A stopped advance
// answers 503 {"cancelled": true, "now": ...}: the error is then a
// *ControlError and the time is where the clock stopped. Unlike Advance,
// a failure is returned, not kept for Err.
func (c *Remote) AdvanceContext(ctx context.Context, d time.Duration) (time.Time, error) {
	body, _ := json.Marshal(map[string]string{"duration": d.String()})
	var a clockAnswer
	err := c.controlContext(ctx, http.MethodPost, "/clock/advance", body, http.StatusOK, &a)
	var ce *ControlError
	if errors.As(err, &ce) && ce.Status == http.StatusServiceUnavailable && !ce.Now.IsZero() {
		return ce.Now, err
	}
	if err != nil {
		return time.Time{}, err
	}
	return a.Now, nil
}

// Reset restores the scenario's initial state (POST /_mock/reset).
func (c *Remote) Reset() error {
	if err := c.control(context.Background(), http.MethodPost, "/reset", []byte("{}"), http.StatusOK, nil); err != nil {
		return c.fail(err)
	}
	return nil
}

// LoadScenarioYAML replaces the scenario and resets (POST /_mock/scenario).
// An invalid scenario is returned as a *ControlError listing the problems.
func (c *Remote) LoadScenarioYAML(data []byte) error {
	if data == nil {
		data = []byte{}
	}
	err := c.control(context.Background(), http.MethodPost, "/scenario", data, http.StatusOK, nil)
	var ce *ControlError
	if err != nil && !(errors.As(err, &ce) && ce.Status == http.StatusBadRequest) {
		c.fail(err)
	}
	return err
}

// Requests returns the journal entries that match f, oldest first (GET
// /_mock/requests).
func (c *Remote) Requests(f mockplatform.RequestFilter) []mockplatform.Request {
	q := url.Values{}
	for k, v := range map[string]string{"family": f.Family, "method": f.Method, "path": f.Path, "source": f.Source} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if f.Status != 0 {
		q.Set("status", strconv.Itoa(f.Status))
	}
	if f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	p := "/requests"
	if len(q) > 0 {
		p += "?" + q.Encode()
	}
	var a struct {
		Requests []mockplatform.Request `json:"requests"`
	}
	if err := c.control(context.Background(), http.MethodGet, p, nil, http.StatusOK, &a); err != nil {
		c.fail(err)
		return nil
	}
	if len(a.Requests) == 0 {
		return nil
	}
	return a.Requests
}

// AddFault adds a fault rule and returns it with its id (POST
// /_mock/faults). A rejected rule is returned as a *ControlError.
func (c *Remote) AddFault(r mockplatform.Fault) (mockplatform.Fault, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return mockplatform.Fault{}, err
	}
	var added mockplatform.Fault
	err = c.control(context.Background(), http.MethodPost, "/faults", body, http.StatusCreated, &added)
	var ce *ControlError
	if err != nil {
		if !(errors.As(err, &ce) && ce.Status == http.StatusBadRequest) {
			c.fail(err)
		}
		return mockplatform.Fault{}, err
	}
	return added, nil
}

// RemoveFault removes a fault rule by id and reports whether it existed
// (DELETE /_mock/faults/{id}).
func (c *Remote) RemoveFault(id string) bool {
	err := c.control(context.Background(), http.MethodDelete, "/faults/"+url.PathEscape(id), nil, http.StatusNoContent, nil)
	var ce *ControlError
	switch {
	case err == nil:
		return true
	case errors.As(err, &ce) && ce.Status == http.StatusNotFound:
		return false
	default:
		c.fail(err)
		return false
	}
}

// ClearFaults removes every fault rule (DELETE /_mock/faults).
func (c *Remote) ClearFaults() {
	if err := c.control(context.Background(), http.MethodDelete, "/faults", nil, http.StatusNoContent, nil); err != nil {
		c.fail(err)
	}
}

// Faults lists the fault rules with their counters (GET /_mock/faults).
func (c *Remote) Faults() []mockplatform.FaultStatus {
	var a struct {
		Faults []mockplatform.FaultStatus `json:"faults"`
	}
	if err := c.control(context.Background(), http.MethodGet, "/faults", nil, http.StatusOK, &a); err != nil {
		c.fail(err)
		return nil
	}
	if len(a.Faults) == 0 {
		return nil
	}
	return a.Faults
}

// Timeline is the scenario's timeline now: its entries with their last
// and next firing and what their steps did (GET /_mock/timeline).
func (c *Remote) Timeline() mockplatform.TimelineStatus {
	var st mockplatform.TimelineStatus
	if err := c.control(context.Background(), http.MethodGet, "/timeline", nil, http.StatusOK, &st); err != nil {
		c.fail(err)
	}
	return st
}

// worldSettings is the body of POST /_mock/worlds.
type worldSettings struct {
	Scenarios []string `json:"scenarios,omitempty"`
	Seed      *int64   `json:"seed,omitempty"`
	Clock     string   `json:"clock,omitempty"`
	Start     string   `json:"start,omitempty"`
}

// NewWorld creates a world on the server (POST /_mock/worlds) and returns
// a Remote bound to it: its own store, clock, journal, faults and
// sessions, under {base}/w/{id}. The options are mockplatform's: scenario
// options, WithSeed, WithClock and WithStartTime apply (the world
// otherwise takes the server's scenario, seed and clock mode). Delete it
// with Close.
func (c *Remote) NewWorld(ctx context.Context, opts ...Option) (*Remote, error) {
	if c.root != nil {
		return nil, errors.New("mockdcontainer: a world hosts no worlds: call NewWorld on the server's Remote (the Container)")
	}
	s, err := mockplatform.SettingsOf(opts...)
	if err != nil {
		return nil, err
	}
	var body worldSettings
	switch {
	case s.Parsed:
		return nil, errors.New("mockdcontainer: WithScenario gives a parsed scenario, which cannot be sent to mockd: use WithScenarioFile or WithScenarioYAML")
	case s.DataFile != "":
		return nil, errors.New("mockdcontainer: a world lives in memory: WithDataFile does not apply")
	case len(s.Extensions) > 0:
		return nil, fmt.Errorf("mockdcontainer: %T applies to a container, not to a world", s.Extensions[0])
	}
	for _, src := range s.Scenarios {
		body.Scenarios = append(body.Scenarios, string(src.YAML))
	}
	body.Seed, body.Clock = s.Seed, string(s.Clock)
	if !s.Start.IsZero() {
		body.Start = s.Start.Format(time.RFC3339Nano)
	}
	data, err := json.Marshal(body)
	if err != nil {
		return nil, err
	}
	var a struct {
		ID string `json:"id"`
	}
	if err := c.control(ctx, http.MethodPost, "/worlds", data, http.StatusCreated, &a); err != nil {
		return nil, err
	}
	return &Remote{http: c.http, token: c.token, root: c, world: a.ID}, nil
}

// World is NewWorld for a test: it fails the test on error, and when the
// test ends it deletes the world and reports the world's first
// control-plane failure (Err) as a test error. One server (one container)
// serves a test binary's parallel tests this way, each in a world.
func (c *Remote) World(t testing.TB, opts ...Option) *Remote {
	t.Helper()
	w, err := c.NewWorld(context.Background(), opts...)
	if err != nil {
		t.Fatalf("mockdcontainer.World: %v", err)
	}
	t.Cleanup(func() {
		if err := w.Err(); err != nil {
			t.Errorf("mockdcontainer: world %s: control plane: %v", w.world, err)
		}
		if err := w.Close(); err != nil {
			t.Errorf("mockdcontainer: %v", err)
		}
	})
	return w
}

// Close deletes the client's world (DELETE /_mock/worlds/{id}); on the
// server's root client it only closes idle connections.
func (c *Remote) Close() error {
	if c.root == nil {
		c.http.CloseIdleConnections()
		return nil
	}
	return c.root.control(context.Background(), http.MethodDelete, "/worlds/"+url.PathEscape(c.world), nil, http.StatusNoContent, nil)
}
