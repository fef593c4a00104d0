// Package mockdcontainer runs mockd, the agent platform mock, in a container
// with testcontainers-go, for tests that want the mock as a separate
// process (the same image CI pipelines run) rather than in process.
//
// It is a Go module of its own (github.com/agentplatform/mockplatform/
// mockdcontainer) so that testcontainers-go and its Docker client stay out
// of the main module's dependencies.
//
//	c := mockdcontainer.Start(t) // skips without Docker; terminated with t
//	resp, err := c.Client().Post(c.RuntimeURL("us-1")+"/v1/acme/support/chat/create", ...)
//	c.Advance(10 * time.Minute)
//
// A *Container is a mockplatform.Mock, as the in-process *Platform is: a
// test helper that takes a Mock runs against either. Its control methods
// go over the control plane ({base}/_mock); a call that fails there answers
// a zero value and the first such failure is kept for Err, as
// bufio.Scanner does.
//
// Without Ryuk (the reaper image cannot always be pulled), set
// TESTCONTAINERS_RYUK_DISABLED=true before the first call and terminate
// containers yourself: Start does it with t.Cleanup.
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
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/wait"

	"github.com/agentplatform/mockplatform"
)

// Paths and port inside the image (see the repository's Dockerfile).
const (
	// Port is mockd's port in the container.
	Port = "8080/tcp"
	// ScenarioDir is where scenario files are mounted.
	ScenarioDir = "/scenarios"
	// DataFile is the persistence file on the image's /data volume.
	DataFile = "/data/mockd.db"
	// DataDir is the image's data volume.
	DataDir = "/data"
)

// StartupTimeout bounds the wait for /_mock/health.
const StartupTimeout = 30 * time.Second

// Container is a running mockd container. It is a mockplatform.Mock.
type Container struct {
	testcontainers.Container

	client *http.Client

	mu   sync.Mutex
	base string // http://host:port; refreshed by Start
	err  error  // first control-plane failure
}

var _ mockplatform.Mock = (*Container)(nil)

// Option configures Run. It is also a testcontainers.ContainerCustomizer
// (a no-op one), so module options and testcontainers options mix in one
// list, as in testcontainers' own modules.
type Option func(*options)

// Customize implements testcontainers.ContainerCustomizer.
func (Option) Customize(*testcontainers.GenericContainerRequest) error { return nil }

type options struct {
	image     string
	source    string
	buildLog  io.Writer
	clock     string
	scenarios []testcontainers.ContainerFile
	names     []string
	data      bool
	volume    string
}

// WithImage runs a named image (for example mockd:dev from
// scripts/build-image.sh) instead of building one.
func WithImage(ref string) Option { return func(o *options) { o.image = ref } }

// WithSource builds mockd and the image from a mockplatform source tree
// (the directory holding its go.mod and Dockerfile) instead of the
// mockplatform version in the current module's build list.
func WithSource(dir string) Option { return func(o *options) { o.source = dir } }

// WithBuildLog writes the image build's output to w.
func WithBuildLog(w io.Writer) Option { return func(o *options) { o.buildLog = w } }

// WithClock sets the clock mode, "manual" (the default here, as in
// mockplatform.Start) or "real" (mockd's own default).
func WithClock(mode string) Option { return func(o *options) { o.clock = mode } }

// WithScenarioFile copies scenario files into /scenarios and loads them
// (several are merged, in order).
func WithScenarioFile(paths ...string) Option {
	return func(o *options) {
		for _, p := range paths {
			name := path.Base(strings.ReplaceAll(p, "\\", "/"))
			o.scenarios = append(o.scenarios, testcontainers.ContainerFile{
				HostFilePath: p, ContainerFilePath: ScenarioDir + "/" + name, FileMode: 0o644,
			})
			o.names = append(o.names, ScenarioDir+"/"+name)
		}
	}
}

// WithScenarioYAML copies a scenario given as YAML into the container (as
// /scenarios/<name>) and loads it.
func WithScenarioYAML(name string, data []byte) Option {
	return func(o *options) {
		if !strings.HasSuffix(name, ".yaml") && !strings.HasSuffix(name, ".yml") {
			name += ".yaml"
		}
		o.scenarios = append(o.scenarios, testcontainers.ContainerFile{
			Reader: bytes.NewReader(data), ContainerFilePath: ScenarioDir + "/" + name, FileMode: 0o644,
		})
		o.names = append(o.names, ScenarioDir+"/"+name)
	}
}

// WithDataFile persists the store in /data/mockd.db on the image's data
// volume: the data survives stopping and starting this container.
func WithDataFile() Option { return func(o *options) { o.data = true } }

// WithDataVolume mounts the named Docker volume at /data and persists the
// store there: the data outlives the container, for the next container
// that mounts the volume. Removing the volume is up to the caller.
func WithDataVolume(name string) Option {
	return func(o *options) { o.data, o.volume = true, name }
}

// Run starts a mockd container and waits until /_mock/health answers. With
// no WithImage option it builds the image first (BuildImage). Extra
// testcontainers options (WithEnv, WithLogConsumers, ...) apply after the
// module's own. The caller terminates the container
// (testcontainers.CleanupContainer or Terminate); on error a container
// that was created is returned with the error, so that it can be
// terminated too.
func Run(ctx context.Context, opts ...testcontainers.ContainerCustomizer) (*Container, error) {
	o := options{clock: "manual"}
	for _, opt := range opts {
		if mo, ok := opt.(Option); ok {
			mo(&o)
		}
	}
	img := o.image
	if img == "" {
		ref, err := buildImage(ctx, o.source, o.buildLog)
		if err != nil {
			return nil, err
		}
		img = ref
	}
	env := map[string]string{"MOCKD_CLOCK": o.clock}
	if len(o.names) > 0 {
		env["MOCKD_SCENARIO"] = strings.Join(o.names, ",")
	}
	if o.data {
		env["MOCKD_DATA"] = DataFile
	}
	moduleOpts := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(Port),
		testcontainers.WithEnv(env),
		testcontainers.WithWaitStrategy(wait.ForHTTP("/_mock/health").
			WithPort(Port).
			WithPollInterval(10 * time.Millisecond).
			WithStartupTimeout(StartupTimeout)),
	}
	if len(o.scenarios) > 0 {
		moduleOpts = append(moduleOpts, testcontainers.WithFiles(o.scenarios...))
	}
	if o.volume != "" {
		moduleOpts = append(moduleOpts, testcontainers.WithMounts(testcontainers.ContainerMount{
			Source: testcontainers.GenericVolumeMountSource{Name: o.volume},
			Target: DataDir,
		}))
	}
	for _, opt := range opts {
		if _, ok := opt.(Option); !ok {
			moduleOpts = append(moduleOpts, opt)
		}
	}

	ctr, err := testcontainers.Run(ctx, img, moduleOpts...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr, client: newClient()}
	}
	if err != nil {
		return c, fmt.Errorf("mockdcontainer: run %s: %w%s", img, err, logTail(ctx, ctr))
	}
	if err := c.refresh(ctx); err != nil {
		return c, err
	}
	return c, nil
}

// Start runs a mockd container for a test, as mockplatform.Start runs an
// in-process platform: it skips the test when no Docker engine answers,
// fails it when the container cannot start, and terminates the container
// when the test ends. Set TESTCONTAINERS_RYUK_DISABLED=true where the
// reaper image cannot be pulled.
func Start(t *testing.T, opts ...testcontainers.ContainerCustomizer) *Container {
	t.Helper()
	testcontainers.SkipIfProviderIsNotHealthy(t)
	c, err := Run(context.Background(), opts...)
	if c != nil {
		testcontainers.CleanupContainer(t, c)
	}
	if err != nil {
		t.Fatalf("mockdcontainer.Start: %v", err)
	}
	t.Cleanup(func() {
		if err := c.Err(); err != nil {
			t.Errorf("mockdcontainer: control plane: %v", err)
		}
	})
	return c
}

// logTail is the end of a container's log, to explain a failed start
// (mockd prints why it stopped, e.g. a scenario's problems).
func logTail(ctx context.Context, ctr testcontainers.Container) string {
	if ctr == nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	rc, err := ctr.Logs(ctx)
	if err != nil {
		return ""
	}
	defer rc.Close()
	data, _ := io.ReadAll(io.LimitReader(rc, 1<<20))
	const max = 4096
	if len(data) > max {
		data = data[len(data)-max:]
	}
	if len(data) == 0 {
		return ""
	}
	return "\nmockd's output:\n" + strings.TrimRight(string(data), "\n")
}

func newClient() *http.Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	return &http.Client{Transport: tr, Timeout: 60 * time.Second}
}

// refresh reads the mapped address (it changes when the container is
// stopped and started again).
func (c *Container) refresh(ctx context.Context) error {
	ep, err := c.PortEndpoint(ctx, Port, "http")
	if err != nil {
		return fmt.Errorf("mockdcontainer: endpoint: %w", err)
	}
	c.mu.Lock()
	c.base = ep
	c.mu.Unlock()
	c.client.CloseIdleConnections()
	return nil
}

// Start starts a stopped container again, waits until it is healthy and
// updates the base addresses (the mapped port may have changed).
func (c *Container) Start(ctx context.Context) error {
	if err := c.Container.Start(ctx); err != nil {
		return err
	}
	return c.refresh(ctx)
}

// Terminate stops and removes the container (and its anonymous volumes).
func (c *Container) Terminate(ctx context.Context, opts ...testcontainers.TerminateOption) error {
	c.client.CloseIdleConnections()
	return c.Container.Terminate(ctx, opts...)
}

// URL is the base address, http://host:port.
func (c *Container) URL() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.base
}

// RuntimeURL is the runtime and data base address of a region (us-1,
// uk-1, euw-1).
func (c *Container) RuntimeURL(region string) string { return c.URL() + "/runtime/" + region }

// BuilderURL is the build and monitoring base address of a region (us,
// uk, eu).
func (c *Container) BuilderURL(region string) string { return c.URL() + "/builder/" + region }

// MessagingURL is the messaging base address.
func (c *Container) MessagingURL() string { return c.URL() + "/messaging" }

// ControlURL is the control plane's base address.
func (c *Container) ControlURL() string { return c.URL() + "/_mock" }

// Client is an HTTP client for the container (a plain one, with a 60 s
// timeout; it is shared, do not change it).
func (c *Container) Client() *http.Client { return c.client }

// Err is the first control-plane failure of a method that has no error
// result (or of any method: a transport failure or an unexpected answer),
// nil if none. A rejected scenario or fault rule is returned by its
// method, not kept here.
func (c *Container) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Container) fail(err error) error {
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

// control calls the control plane; out (if not nil) receives the JSON
// answer. want is the expected status.
func (c *Container) control(method, p, contentType string, body []byte, want int, out any) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.ControlURL()+p, rd)
	if err != nil {
		return err
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	resp, err := c.client.Do(req)
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
			Error    string   `json:"error"`
			Problems []string `json:"problems"`
		}
		if json.Unmarshal(data, &eb) == nil {
			ce.Message, ce.Problems = eb.Error, eb.Problems
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
func (c *Container) Now() time.Time {
	var a clockAnswer
	if err := c.control(http.MethodGet, "/clock", "", nil, http.StatusOK, &a); err != nil {
		c.fail(err)
		return time.Time{}
	}
	return a.Now
}

// Advance moves the clock forward by d and runs the work that falls due
// before it returns (POST /_mock/clock/advance). It returns the new time.
func (c *Container) Advance(d time.Duration) time.Time {
	body, _ := json.Marshal(map[string]string{"duration": d.String()})
	var a clockAnswer
	if err := c.control(http.MethodPost, "/clock/advance", "application/json", body, http.StatusOK, &a); err != nil {
		c.fail(err)
		return time.Time{}
	}
	return a.Now
}

// Reset restores the scenario's initial state (POST /_mock/reset).
func (c *Container) Reset() error {
	// The control plane takes JSON only, even without a body (docs/security.md).
	if err := c.control(http.MethodPost, "/reset", "application/json", nil, http.StatusOK, nil); err != nil {
		return c.fail(err)
	}
	return nil
}

// LoadScenarioYAML replaces the scenario and resets (POST /_mock/scenario).
// An invalid scenario is returned as a *ControlError listing the problems.
func (c *Container) LoadScenarioYAML(data []byte) error {
	err := c.control(http.MethodPost, "/scenario", "application/yaml", data, http.StatusOK, nil)
	var ce *ControlError
	if err != nil && !(errors.As(err, &ce) && ce.Status == http.StatusBadRequest) {
		c.fail(err)
	}
	return err
}

// Requests returns the journal entries that match f, oldest first (GET
// /_mock/requests).
func (c *Container) Requests(f mockplatform.RequestFilter) []mockplatform.Request {
	q := url.Values{}
	for k, v := range map[string]string{"family": f.Family, "method": f.Method, "path": f.Path} {
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
	if err := c.control(http.MethodGet, p, "", nil, http.StatusOK, &a); err != nil {
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
func (c *Container) AddFault(r mockplatform.Fault) (mockplatform.Fault, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return mockplatform.Fault{}, err
	}
	var added mockplatform.Fault
	err = c.control(http.MethodPost, "/faults", "application/json", body, http.StatusCreated, &added)
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
func (c *Container) RemoveFault(id string) bool {
	err := c.control(http.MethodDelete, "/faults/"+url.PathEscape(id), "", nil, http.StatusNoContent, nil)
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
func (c *Container) ClearFaults() {
	if err := c.control(http.MethodDelete, "/faults", "", nil, http.StatusNoContent, nil); err != nil {
		c.fail(err)
	}
}

// Faults lists the fault rules with their counters (GET /_mock/faults).
func (c *Container) Faults() []mockplatform.FaultStatus {
	var a struct {
		Faults []mockplatform.FaultStatus `json:"faults"`
	}
	if err := c.control(http.MethodGet, "/faults", "", nil, http.StatusOK, &a); err != nil {
		c.fail(err)
		return nil
	}
	if len(a.Faults) == 0 {
		return nil
	}
	return a.Faults
}
