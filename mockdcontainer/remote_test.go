package mockdcontainer

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
)

// TestRemoteWorldsSuite runs the behaviour suite in many worlds of one
// in-process platform at once, through World over real sockets: what a
// test binary sharing one container does, without Docker.
func TestRemoteWorldsSuite(t *testing.T) {
	host := mockplatform.Start(t)
	server := overHTTP(t, host.URL())
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return server.World(t) })
		})
	}
	t.Cleanup(func() {
		if n := len(host.Worlds()); n != 0 {
			t.Errorf("%d worlds left after the tests", n)
		}
	})
}

// TestRemoteWorld: a world's addresses, its settings from mockplatform
// options, and its deletion when the test ends.
func TestRemoteWorld(t *testing.T) {
	host := mockplatform.Start(t)
	server := overHTTP(t, host.URL())
	var id string
	t.Run("use", func(t *testing.T) {
		w := server.World(t, mockplatform.WithScenarioYAML([]byte("name: mine\n")), mockplatform.WithSeed(3),
			mockplatform.WithStartTime(time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)))
		id = w.WorldID()
		if got, want := w.URL(), host.URL()+"/w/"+id; got != want {
			t.Errorf("URL() = %q, want %q", got, want)
		}
		if got, want := w.RuntimeURL("us-1"), host.URL()+"/w/"+id+"/runtime/us-1"; got != want {
			t.Errorf("RuntimeURL() = %q, want %q", got, want)
		}
		if now := w.Now(); !now.Equal(time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)) {
			t.Errorf("Now() = %v", now)
		}
		info, ok := host.WorldByID(id)
		if !ok || info.Scenario != "mine" {
			t.Fatalf("world %s on the server: %+v, %v", id, info, ok)
		}
		if _, err := w.NewWorld(t.Context()); err == nil {
			t.Error("a world created a world")
		}
	})
	if _, ok := host.WorldByID(id); ok {
		t.Errorf("world %s still alive after its test", id)
	}
}

func TestRemoteWorldRefusedOptions(t *testing.T) {
	host := mockplatform.Start(t)
	server := overHTTP(t, host.URL())
	parsed, err := mockplatform.New()
	if err != nil {
		t.Fatal(err)
	}
	defer parsed.Close()
	for _, tc := range []struct {
		name string
		opt  Option
		want string
	}{
		{"parsed scenario", mockplatform.WithScenario(parsed.Scenario()), "WithScenario gives a parsed scenario"},
		{"data file", mockplatform.WithDataFile("x.db"), "a world lives in memory"},
		{"container option", WithImage("mockd:dev"), "applies to a container, not to a world"},
		{"bad scenario", mockplatform.WithScenarioYAML([]byte("bogus: 1\n")), "bogus: unknown field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := server.NewWorld(t.Context(), tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewWorld = %v, want an error with %q", err, tc.want)
			}
		})
	}
	// The server refuses past its limit: a ControlError with the 429.
	small := mockplatform.Start(t, mockplatform.WithMaxWorlds(1))
	s2 := overHTTP(t, small.URL())
	s2.World(t)
	_, err = s2.NewWorld(t.Context())
	var ce *ControlError
	if !errors.As(err, &ce) || ce.Status != http.StatusTooManyRequests {
		t.Fatalf("NewWorld past the limit = %v, want a 429", err)
	}
	if len(host.Worlds()) != 0 || s2.Err() != nil || server.Err() != nil {
		t.Errorf("worlds %d, Err %v %v", len(host.Worlds()), s2.Err(), server.Err())
	}
}

// TestRemoteToken: every control call carries the control token; API
// calls are the test's own.
func TestRemoteToken(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Method+" "+r.URL.Path+" "+r.Header.Get("Authorization")+" "+r.Header.Get("Content-Type"))
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/_mock/worlds":
			w.WriteHeader(http.StatusCreated)
			_, _ = w.Write([]byte(`{"id":"abc"}`))
		case "/_mock/worlds/abc":
			w.WriteHeader(http.StatusNoContent)
		default:
			_, _ = w.Write([]byte(`{"now":"2026-01-01T00:00:00Z"}`))
		}
	}))
	defer srv.Close()
	c := Connect(srv.URL+"/", "s3cret")
	c.Now()
	c.Advance(time.Second)
	w, err := c.NewWorld(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	w.Now()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{
		"GET /_mock/clock Bearer s3cret ",
		"POST /_mock/clock/advance Bearer s3cret application/json",
		"POST /_mock/worlds Bearer s3cret application/json",
		"GET /w/abc/_mock/clock Bearer s3cret ",
		"DELETE /_mock/worlds/abc Bearer s3cret application/json",
	}
	if diff := cmp.Diff(want, seen); diff != "" {
		t.Errorf("requests (-want +got):\n%s", diff)
	}
}

// TestRequestFromOptions: mockplatform's options become mockd's
// environment and scenario files; what a container cannot take is
// refused before anything starts.
func TestRequestFromOptions(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "bot.yaml")
	if err := os.WriteFile(file, []byte("name: bot\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r, err := newRequest([]Option{
		mockplatform.WithScenarioFile(file), mockplatform.WithScenarioYAML([]byte("name: more\n")),
		mockplatform.WithClock(mockplatform.ClockReal), mockplatform.WithSeed(-4),
		mockplatform.WithStartTime(time.Date(2030, 1, 1, 0, 0, 0, 5, time.UTC)),
		mockplatform.WithMaxWorlds(7), mockplatform.WithWorldIdleTimeout(time.Minute),
		mockplatform.WithPublicURL("http://mock.test"), mockplatform.WithoutListener(),
		WithImage("mockd:dev"), WithPersistentData(),
	})
	if err != nil {
		t.Fatal(err)
	}
	wantEnv := map[string]string{
		"MOCKD_CLOCK": "real", "MOCKD_SEED": "-4", "MOCKD_START": "2030-01-01T00:00:00.000000005Z",
		"MOCKD_MAX_WORLDS": "7", "MOCKD_WORLD_IDLE_TIMEOUT": "1m0s", "MOCKD_PUBLIC_URL": "http://mock.test",
		"MOCKD_SCENARIO": "/scenarios/1-bot.yaml,/scenarios/2-scenario.yaml", "MOCKD_DATA": DataFile,
	}
	if diff := cmp.Diff(wantEnv, r.env); diff != "" {
		t.Errorf("env (-want +got):\n%s", diff)
	}
	var files []string
	for _, f := range r.files {
		files = append(files, f.ContainerFilePath)
	}
	if !slices.Equal(files, []string{"/scenarios/1-bot.yaml", "/scenarios/2-scenario.yaml"}) || r.cs.image != "mockd:dev" {
		t.Errorf("files %v, image %q", files, r.cs.image)
	}
	if r, err := newRequest(nil); err != nil || !cmp.Equal(r.env, map[string]string{"MOCKD_CLOCK": "manual"}) {
		t.Errorf("no options: env %v, %v; want the manual clock alone", r.env, err)
	}

	for _, tc := range []struct {
		name string
		opt  Option
		want string
	}{
		{"data file", mockplatform.WithDataFile("x.db"), "WithDataFile names a file of this host"},
		{"empty image", WithImage(""), `WithImage(""): name an image`},
		{"foreign extension", mockplatform.WithExtension(42), "unknown option int"},
		{"missing file", mockplatform.WithScenarioFile(filepath.Join(dir, "none.yaml")), "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := newRequest([]Option{tc.opt}); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("newRequest = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

func TestEngineInThisNetwork(t *testing.T) {
	marker := filepath.Join(t.TempDir(), ".dockerenv")
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	has := func(string) bool { return true }
	hasNot := func(string) bool { return false }
	for _, tc := range []struct {
		name       string
		dockerHost string
		marker     string
		iface      func(string) bool
		want       bool
	}{
		{"engine beside us in a container", "", marker, has, true},
		{"unix socket named", "unix:///var/run/docker.sock", marker, has, true},
		{"not in a container", "", marker + ".none", has, false},
		{"engine on the host (socket mounted)", "", marker, hasNot, false},
		{"remote engine", "tcp://docker:2375", marker, has, false},
	} {
		if got := engineInThisNetwork(tc.dockerHost, tc.marker, tc.iface); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
