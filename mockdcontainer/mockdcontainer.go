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
// The options are mockplatform's, so one option list starts an in-process
// platform (mockplatform.Start(t, opts...)), a container (Start(t,
// opts...)) or a world of one (c.World(t, opts...)); WithImage and the other
// options of this package apply to a container only.
//
// One container can serve a whole test binary: start it in TestMain and
// give each test a world of its own with World, which is deleted when the
// test ends; the tests then run in parallel (see the README).
//
// A *Container is a mockplatform.Mock, as the in-process *Platform is: a
// test helper that takes a Mock runs against either. Its control methods
// go over the control plane ({base}/_mock); a call that fails there answers
// a zero value and the first such failure is kept for Err, as
// bufio.Scanner does.
//
// The module finds the address at which this process reaches the
// container, also where testcontainers alone would not (a CI job running
// in a container next to its own Docker engine). Without Ryuk
// (testcontainers' reaper, whose image cannot always be pulled), set
// TESTCONTAINERS_RYUK_DISABLED=true before the first call and terminate
// containers yourself: Start does it with t.Cleanup.
package mockdcontainer

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"path"
	"strconv"
	"strings"
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
	// ScenarioDir is where scenario files are copied.
	ScenarioDir = "/scenarios"
	// DataFile is the persistence file on the image's /data volume.
	DataFile = "/data/mockd.db"
	// DataDir is the image's data volume.
	DataDir = "/data"
)

// StartupTimeout bounds the wait for /_mock/health.
const StartupTimeout = 30 * time.Second

// Container is a running mockd container. It is a mockplatform.Mock (its
// Remote) and a testcontainers.Container.
type Container struct {
	testcontainers.Container
	*Remote

	host string // where this process reaches the container's ports
}

var _ mockplatform.Mock = (*Container)(nil)

// Option is mockplatform's option type: this package's own options are
// mockplatform options too, so that one list mixes both.
type Option = mockplatform.Option

// containerSettings are this package's options.
type containerSettings struct {
	image       string
	imageSet    bool
	source      string
	buildLog    io.Writer
	persist     bool
	volume      string
	customizers []testcontainers.ContainerCustomizer
}

// setting is one of this package's options, carried in a mockplatform
// option list (mockplatform.WithExtension).
type setting func(*containerSettings)

func extension(f setting) Option { return mockplatform.WithExtension(f) }

// WithImage runs a named image (for example mockd:dev from
// scripts/build-image.sh) instead of building one.
func WithImage(ref string) Option {
	return extension(func(s *containerSettings) { s.image, s.imageSet = ref, true })
}

// WithSource builds mockd and the image from a mockplatform source tree
// (the directory holding its go.mod and Dockerfile) instead of the
// mockplatform version in the current module's build list.
func WithSource(dir string) Option { return extension(func(s *containerSettings) { s.source = dir }) }

// WithBuildLog writes the image build's output to w.
func WithBuildLog(w io.Writer) Option {
	return extension(func(s *containerSettings) { s.buildLog = w })
}

// WithPersistentData persists the store in /data/mockd.db on the image's
// data volume: the data survives stopping and starting this container.
// (mockplatform.WithDataFile names a file of this host, which a container
// cannot write: Run refuses it.)
func WithPersistentData() Option { return extension(func(s *containerSettings) { s.persist = true }) }

// WithDataVolume mounts the named Docker volume at /data and persists the
// store there: the data outlives the container, for the next container
// that mounts the volume. Removing the volume is up to the caller.
func WithDataVolume(name string) Option {
	return extension(func(s *containerSettings) { s.persist, s.volume = true, name })
}

// WithCustomizers applies testcontainers options (WithEnv,
// WithLogConsumers, ...) after the module's own.
func WithCustomizers(cs ...testcontainers.ContainerCustomizer) Option {
	return extension(func(s *containerSettings) { s.customizers = append(s.customizers, cs...) })
}

// request is what Run asks of Docker, from the options.
type request struct {
	image string
	env   map[string]string
	files []testcontainers.ContainerFile
	cs    containerSettings
}

// newRequest reads the option list: mockplatform's options become mockd's
// environment, this package's the container's settings.
func newRequest(opts []Option) (*request, error) {
	s, err := mockplatform.SettingsOf(opts...)
	if err != nil {
		return nil, fmt.Errorf("mockdcontainer: %w", err)
	}
	r := &request{env: map[string]string{"MOCKD_CLOCK": string(mockplatform.ClockManual)}}
	for _, e := range s.Extensions {
		f, ok := e.(setting)
		if !ok {
			return nil, fmt.Errorf("mockdcontainer: unknown option %T", e)
		}
		f(&r.cs)
	}
	switch {
	case s.Parsed:
		return nil, errors.New("mockdcontainer: WithScenario gives a parsed scenario, which cannot be passed to mockd: use WithScenarioFile or WithScenarioYAML")
	case s.DataFile != "":
		return nil, errors.New("mockdcontainer: WithDataFile names a file of this host: in a container use WithPersistentData or WithDataVolume")
	case r.cs.imageSet && r.cs.image == "":
		return nil, errors.New("mockdcontainer: WithImage(\"\"): name an image, or leave the option out to build one")
	}
	if s.Clock != "" {
		r.env["MOCKD_CLOCK"] = string(s.Clock)
	}
	if s.Seed != nil {
		r.env["MOCKD_SEED"] = strconv.FormatInt(*s.Seed, 10)
	}
	if !s.Start.IsZero() {
		r.env["MOCKD_START"] = s.Start.Format(time.RFC3339Nano)
	}
	if s.PublicURL != "" {
		r.env["MOCKD_PUBLIC_URL"] = s.PublicURL
	}
	if s.MaxWorlds != nil {
		r.env["MOCKD_MAX_WORLDS"] = strconv.Itoa(*s.MaxWorlds)
	}
	if s.WorldIdleTimeout != nil {
		r.env["MOCKD_WORLD_IDLE_TIMEOUT"] = s.WorldIdleTimeout.String()
	}
	var names []string
	for i, src := range s.Scenarios {
		base := path.Base(strings.ReplaceAll(src.Name, "\\", "/"))
		if src.Name == "<scenario>" {
			base = "scenario.yaml"
		}
		name := fmt.Sprintf("%s/%d-%s", ScenarioDir, i+1, base)
		r.files = append(r.files, testcontainers.ContainerFile{
			Reader: strings.NewReader(string(src.YAML)), ContainerFilePath: name, FileMode: 0o644,
		})
		names = append(names, name)
	}
	if len(names) > 0 {
		r.env["MOCKD_SCENARIO"] = strings.Join(names, ",")
	}
	if r.cs.persist {
		r.env["MOCKD_DATA"] = DataFile
	}
	return r, nil
}

// newToken is a random control token for one container.
func newToken() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // never fails (crypto/rand)
	return hex.EncodeToString(b[:])
}

// Run starts a mockd container and waits until /_mock/health answers.
// With no WithImage option it builds the image first (BuildImage). The
// container gets a control token of its own (MOCKD_CONTROL_TOKEN), which
// the Container's control methods send, and answers control calls under
// any host name (MOCKD_ALLOW_HOST=*: the token protects it). The caller terminates the
// container (Terminate, or testcontainers.CleanupContainer); on error a
// container that was created is returned with the error, so that it can
// be terminated too.
func Run(ctx context.Context, opts ...Option) (*Container, error) {
	r, err := newRequest(opts)
	if err != nil {
		return nil, err
	}
	img := r.cs.image
	if img == "" {
		if img, err = buildImage(ctx, r.cs.source, r.cs.buildLog); err != nil {
			return nil, err
		}
	}
	// The container's own control token, sent by every control call. With
	// it the control plane may answer any Host: testcontainers may reach
	// the container under the engine's name or a gateway address, which
	// are not loopback (docs/security.md).
	token := newToken()
	r.env["MOCKD_CONTROL_TOKEN"] = token
	r.env["MOCKD_ALLOW_HOST"] = "*"
	moduleOpts := []testcontainers.ContainerCustomizer{
		testcontainers.WithExposedPorts(Port),
		testcontainers.WithEnv(r.env),
		testcontainers.WithWaitStrategy(healthStrategy{token: token}),
	}
	if len(r.files) > 0 {
		moduleOpts = append(moduleOpts, testcontainers.WithFiles(r.files...))
	}
	if r.cs.volume != "" {
		moduleOpts = append(moduleOpts, testcontainers.WithMounts(testcontainers.ContainerMount{
			Source: testcontainers.GenericVolumeMountSource{Name: r.cs.volume},
			Target: DataDir,
		}))
	}
	moduleOpts = append(moduleOpts, r.cs.customizers...)

	ctr, err := testcontainers.Run(ctx, img, moduleOpts...)
	var c *Container
	if ctr != nil {
		c = &Container{Container: ctr, Remote: Connect("", token)}
	}
	if err != nil {
		return c, fmt.Errorf("mockdcontainer: run %s: %w%s%s", img, err, ryukHint(err), logTail(ctx, ctr))
	}
	if err := c.refresh(ctx); err != nil {
		return c, err
	}
	return c, nil
}

// ryukHint explains a failure to start testcontainers' reaper.
func ryukHint(err error) string {
	if strings.Contains(strings.ToLower(err.Error()), "ryuk") || strings.Contains(err.Error(), "reaper") {
		return "\n(testcontainers could not start its reaper, Ryuk: where its image cannot be pulled, set TESTCONTAINERS_RYUK_DISABLED=true and terminate containers yourself)"
	}
	return ""
}

// Start runs a mockd container for a test, as mockplatform.Start runs an
// in-process platform: it skips the test when no Docker engine answers,
// fails it when the container cannot start, and terminates the container
// when the test ends (reporting the control plane's first failure, Err).
func Start(t *testing.T, opts ...Option) *Container {
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

// refresh finds the container's address (the mapped port changes when the
// container is stopped and started again).
func (c *Container) refresh(ctx context.Context) error {
	host, err := reachableHost(ctx, c.Container)
	if err != nil {
		return fmt.Errorf("mockdcontainer: host: %w", err)
	}
	port, err := c.MappedPort(ctx, Port)
	if err != nil {
		return fmt.Errorf("mockdcontainer: port: %w", err)
	}
	c.host = host
	c.setBase("http://" + net.JoinHostPort(host, port.Port()))
	return nil
}

// Host is the host at which this process reaches the container's ports
// (see the package documentation).
func (c *Container) Host(ctx context.Context) (string, error) {
	if c.host != "" {
		return c.host, nil
	}
	return reachableHost(ctx, c.Container)
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
	c.http.CloseIdleConnections()
	return c.Container.Terminate(ctx, opts...)
}

// healthStrategy waits until mockd's /_mock/health answers at the address
// this process reaches the container at.
type healthStrategy struct{ token string }

func (s healthStrategy) WaitUntilReady(ctx context.Context, target wait.StrategyTarget) error {
	host, err := reachableHost(ctx, target)
	if err != nil {
		return err
	}
	return wait.ForHTTP("/_mock/health").
		WithPort(Port).
		WithHeaders(map[string]string{"Authorization": "Bearer " + s.token}).
		WithPollInterval(10*time.Millisecond).
		WithStartupTimeout(StartupTimeout).
		WaitUntilReady(ctx, hostTarget{target, host})
}

// hostTarget is a wait target reached at host.
type hostTarget struct {
	wait.StrategyTarget
	host string
}

func (h hostTarget) Host(context.Context) (string, error) { return h.host, nil }
