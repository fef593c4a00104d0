package mockdcontainer

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
	"github.com/agentplatform/mockplatform/store"
)

// The tests below need a Docker engine; each skips with testcontainers'
// message when none answers.

// TestContainerBehaviourSuite runs the shared behaviour suite against
// mockd in a container (each case its own container).
func TestContainerBehaviourSuite(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock {
		return Start(t, imageOpts()...)
	})
}

// chatDo sends a chat request with the default scenario's credentials.
func chatDo(t *testing.T, c *Container, action string, body map[string]any) (int, map[string]any) {
	t.Helper()
	data, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(t.Context(), "POST", c.RuntimeURL("us-1")+"/v1/acme/support/chat/"+action, bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", "test-chat-key")
	req.Header.Set("X-TOKEN", "test-connector-token")
	resp, err := c.Client().Do(req)
	if err != nil {
		t.Fatalf("chat %s: %v", action, err)
	}
	defer resp.Body.Close()
	var m map[string]any
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("chat %s: %d %s", action, resp.StatusCode, raw)
	}
	return resp.StatusCode, m
}

// storeDump is every record of the default scenario's project, read from a
// copy of the data file.
type storeDump struct {
	Len           int
	Conversations []*store.Conversation
	Handoffs      map[string]*store.HandoffState
}

func dumpDataFile(t *testing.T, c *Container, handoffIDs []string) storeDump {
	t.Helper()
	rc, err := c.CopyFileFromContainer(t.Context(), DataFile)
	if err != nil {
		t.Fatalf("copy %s out of the container: %v", DataFile, err)
	}
	defer rc.Close()
	path := filepath.Join(t.TempDir(), "mockd.db")
	data, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	st, err := store.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var d storeDump
	if d.Len, err = st.Len(); err != nil {
		t.Fatal(err)
	}
	if d.Conversations, _, err = st.ListConversations(store.ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001"}); err != nil {
		t.Fatal(err)
	}
	d.Handoffs = map[string]*store.HandoffState{}
	for _, id := range handoffIDs {
		h, err := st.GetHandoffState("us", "1001", "2001", id, "")
		if err != nil {
			t.Fatalf("handoff state of %s: %v", id, err)
		}
		d.Handoffs[id] = h
	}
	return d
}

// TestContainerPersistence: with mockd --data on the /data volume, every
// record survives stopping and starting the container, and the restarted
// mock serves them.
func TestContainerPersistence(t *testing.T) {
	c := Start(t, imageOpts(WithPersistentData())...)
	ctx := t.Context()

	// Conversations in every state: open with turns and state, ended,
	// handed off, and enough of them that the restarted ID generator (it
	// restarts from the scenario's seed) meets several taken IDs.
	type conv struct{ id, last string }
	var open []conv
	for i, msg := range []string{"what are your hours?", "where is order 4711", "hello", "hours again", "order 99"} {
		_, m := chatDo(t, c, "create", map[string]any{"integration_attributes": map[string]any{"n": i}})
		id := m["conversation_id"].(string)
		if st, m := chatDo(t, c, "respond", map[string]any{"conversation_id": id, "message": msg}); st != 200 {
			t.Fatalf("respond: %d %v", st, m)
		}
		open = append(open, conv{id, msg})
	}
	_, m := chatDo(t, c, "create", nil)
	ended := m["conversation_id"].(string)
	chatDo(t, c, "respond", map[string]any{"conversation_id": ended, "message": "bye"})
	_, m = chatDo(t, c, "create", map[string]any{"integration_attributes": map[string]any{"customer_id": "c-1"}})
	handed := m["conversation_id"].(string)
	if st, m := chatDo(t, c, "respond", map[string]any{"conversation_id": handed, "message": "a human please"}); st != 200 || m["handoff"] == nil {
		t.Fatalf("handoff respond: %d %v", st, m)
	}

	timeout := 10 * time.Second
	if err := c.Stop(ctx, &timeout); err != nil {
		t.Fatal(err)
	}
	before := dumpDataFile(t, c, []string{handed})
	if len(before.Conversations) != 7 {
		t.Fatalf("data file holds %d conversations before the restart, want 7", len(before.Conversations))
	}

	// Start and stop with no request in between: the file is the same.
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if err := c.Stop(ctx, &timeout); err != nil {
		t.Fatal(err)
	}
	after := dumpDataFile(t, c, []string{handed})
	if diff := cmp.Diff(before, after); diff != "" {
		t.Fatalf("records changed across a restart (-before +after):\n%s", diff)
	}

	// The restarted mock serves them.
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	for _, o := range open {
		st, m := chatDo(t, c, "respond", map[string]any{"conversation_id": o.id, "message": "bye"})
		if st != 200 || m["conversation_id"] != o.id || m["end_conversation"] != true {
			t.Errorf("respond to %s after the restart: %d %v", o.id, st, m)
		}
	}
	for _, id := range []string{ended, handed} {
		if st, m := chatDo(t, c, "respond", map[string]any{"conversation_id": id, "message": "hi"}); st != http.StatusGone {
			t.Errorf("respond to ended %s after the restart: %d %v, want 410", id, st, m)
		}
	}
	// A new conversation gets a fresh id.
	st, m := chatDo(t, c, "create", nil)
	if st != 200 {
		t.Fatalf("create after the restart: %d %v", st, m)
	}
	ids := []string{ended, handed}
	for _, o := range open {
		ids = append(ids, o.id)
	}
	if slices.Contains(ids, m["conversation_id"].(string)) {
		t.Fatalf("create after the restart reused id %v", m["conversation_id"])
	}
}

// TestContainerDataVolume: a named volume carries the data to a new
// container.
func TestContainerDataVolume(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	vol := "mockd-test-" + strings.ToLower(strings.ReplaceAll(t.Name(), "/", "-")) + "-" + time.Now().Format("150405.000000")
	t.Cleanup(func() { removeVolume(t, vol) })

	first := Start(t, imageOpts(WithDataVolume(vol))...)
	_, m := chatDo(t, first, "create", nil)
	id := m["conversation_id"].(string)
	if err := first.Terminate(t.Context()); err != nil {
		t.Fatal(err)
	}

	second := Start(t, imageOpts(WithDataVolume(vol))...)
	st, m := chatDo(t, second, "respond", map[string]any{"conversation_id": id, "message": "what are your hours?"})
	if st != 200 || m["response"] != "We are open 9am to 5pm, Monday to Friday." {
		t.Fatalf("respond in a new container on the same volume: %d %v", st, m)
	}
}

func removeVolume(t *testing.T, name string) {
	cli, err := testcontainers.NewDockerClientWithOpts(context.Background())
	if err != nil {
		t.Errorf("docker client: %v", err)
		return
	}
	defer cli.Close()
	if _, err := cli.VolumeRemove(context.Background(), name, client.VolumeRemoveOptions{Force: true}); err != nil {
		t.Errorf("remove volume %s: %v", name, err)
	}
}

func imageSize(t *testing.T, id string) int64 {
	t.Helper()
	cli, err := testcontainers.NewDockerClientWithOpts(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	res, err := cli.ImageInspect(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	return res.Size
}

// TestContainerScenarioFiles: scenario files are copied to /scenarios and
// loaded (several are merged).
func TestContainerScenarioFiles(t *testing.T) {
	c := Start(t, imageOpts(mockplatform.WithScenarioFile("../fixtures/support-bot.yaml"))...)
	var sc struct {
		Name string `json:"name"`
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", c.ControlURL()+"/scenario", nil)
	req.Header.Set("Authorization", "Bearer "+c.ControlToken())
	resp, err := c.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(&sc); err != nil || sc.Name != "support-bot" {
		t.Fatalf("scenario = %q (%v, %d), want support-bot", sc.Name, err, resp.StatusCode)
	}
	want := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	if now := c.Now(); !now.Equal(want) {
		t.Fatalf("Now() = %v, want the scenario's start %v", now, want)
	}
}

func TestContainerScenarioYAML(t *testing.T) {
	c := Start(t, imageOpts(mockplatform.WithScenarioYAML([]byte("name: mine\nclock:\n  start: 2030-01-02T03:04:05Z\n")))...)
	want := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)
	if now := c.Now(); !now.Equal(want) {
		t.Fatalf("Now() = %v, want %v", now, want)
	}
}

// TestContainerBadScenario: a scenario that does not parse is refused
// before any container starts; one mockd refuses (here: a file that is not
// there) makes Run fail fast with mockd's message, not after the startup
// timeout.
func TestContainerBadScenario(t *testing.T) {
	c, err := Run(t.Context(), imageOpts(mockplatform.WithScenarioYAML([]byte("name: bad\naccounts: 7\n")))...)
	if c != nil || err == nil || !strings.Contains(err.Error(), "<scenario>:2:11: accounts: want a list") {
		t.Fatalf("Run with an invalid scenario = %v, %v; want the problem and no container", c, err)
	}

	testcontainers.SkipIfProviderIsNotHealthy(t)
	start := time.Now()
	c, err = Run(t.Context(), imageOpts(WithCustomizers(testcontainers.WithEnv(map[string]string{"MOCKD_SCENARIO": "/scenarios/none.yaml"})))...)
	if c != nil {
		testcontainers.CleanupContainer(t, c)
	}
	if err == nil || !strings.Contains(err.Error(), "/scenarios/none.yaml: no such file or directory") {
		t.Fatalf("Run with a missing scenario file = %v, want mockd's message", err)
	}
	if d := time.Since(start); d > StartupTimeout/2 {
		t.Errorf("Run took %v to fail", d)
	}
}

// TestContainerImage checks the image's configuration and its healthcheck
// command.
func TestContainerImage(t *testing.T) {
	c := Start(t, imageOpts(mockplatform.WithClock(mockplatform.ClockReal))...)
	ctx := t.Context()
	info, err := c.Inspect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	cfg := info.Config
	if cfg.User != "65532:65532" {
		t.Errorf("user = %q, want 65532:65532", cfg.User)
	}
	if cfg.Healthcheck == nil || !slices.Equal(cfg.Healthcheck.Test, []string{"CMD", "/mockd", "healthcheck"}) {
		t.Errorf("healthcheck = %+v", cfg.Healthcheck)
	}
	if !slices.Equal(cfg.Entrypoint, []string{"/mockd"}) {
		t.Errorf("entrypoint = %q", cfg.Entrypoint)
	}
	if !slices.Contains(cfg.Env, "MOCKD_ADDR=0.0.0.0:8080") {
		t.Errorf("env = %q, want MOCKD_ADDR=0.0.0.0:8080", cfg.Env)
	}
	if _, ok := cfg.Volumes[DataDir]; !ok {
		t.Errorf("volumes = %v, want %s", cfg.Volumes, DataDir)
	}
	for _, l := range []string{"org.opencontainers.image.title", "org.opencontainers.image.source", "org.opencontainers.image.version", "org.opencontainers.image.revision"} {
		if cfg.Labels[l] == "" {
			t.Errorf("label %s missing", l)
		}
	}

	code, out, err := c.Exec(ctx, []string{"/mockd", "healthcheck"})
	if err != nil || code != 0 {
		b, _ := io.ReadAll(out)
		t.Errorf("mockd healthcheck in the container: exit %d, %v, %s", code, err, b)
	}

	size := imageSize(t, info.Image)
	t.Logf("image %s: %d bytes (%.1f MB)", cfg.Image, size, float64(size)/1e6)
	if size > 25_000_000 {
		t.Errorf("image is %d bytes, want under 25 MB", size)
	}

	// The real clock follows wall time.
	a := c.Now()
	b := c.Now()
	if !b.After(a) {
		t.Errorf("real clock: Now() %v then %v", a, b)
	}
}

// TestContainerStartup measures container start to healthy (create, start,
// /_mock/health answering) five times and logs the median; the image is
// built (or named) beforehand.
func TestContainerStartup(t *testing.T) {
	testcontainers.SkipIfProviderIsNotHealthy(t)
	opts := imageOpts()
	if os.Getenv("MOCKD_IMAGE") == "" {
		ref, err := BuildImage(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		opts = append(opts, WithImage(ref))
	}
	var runs []time.Duration
	for range 5 {
		start := time.Now()
		c, err := Run(t.Context(), opts...)
		d := time.Since(start)
		if c != nil {
			if err := c.Terminate(context.Background()); err != nil {
				t.Error(err)
			}
		}
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, d)
	}
	slices.Sort(runs)
	t.Logf("container start to healthy: median %v (runs %v)", runs[len(runs)/2], runs)
	if runs[len(runs)/2] > 5*time.Second {
		t.Errorf("median start to healthy %v, want well under 5s (target 1s)", runs[len(runs)/2])
	}
}

func BenchmarkContainerStart(b *testing.B) {
	ref := os.Getenv("MOCKD_IMAGE")
	if ref == "" {
		var err error
		if ref, err = BuildImage(context.Background()); err != nil {
			b.Skip("no image:", err)
		}
	}
	for b.Loop() {
		c, err := Run(context.Background(), WithImage(ref))
		if c != nil {
			b.StopTimer()
			_ = c.Terminate(context.Background())
			b.StartTimer()
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// TestContainerControlToken: the container's control plane wants the
// container's own token, which the module sends; the API and health need
// none.
func TestContainerControlToken(t *testing.T) {
	c := Start(t, imageOpts()...)
	if c.ControlToken() == "" {
		t.Fatal("no control token")
	}
	for _, tc := range []struct {
		path, auth string
		want       int
	}{
		{"/_mock/clock", "", http.StatusUnauthorized},
		{"/_mock/clock", "Bearer wrong", http.StatusUnauthorized},
		{"/_mock/clock", "Bearer " + c.ControlToken(), http.StatusOK},
		{"/_mock/health", "", http.StatusOK},
	} {
		req, _ := http.NewRequestWithContext(t.Context(), "GET", c.URL()+tc.path, nil)
		if tc.auth != "" {
			req.Header.Set("Authorization", tc.auth)
		}
		resp, err := c.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("GET %s with %q: %d, want %d", tc.path, tc.auth, resp.StatusCode, tc.want)
		}
	}
	if now := c.Now(); now.IsZero() {
		t.Errorf("Now() through the module: %v", c.Err())
	}
}
