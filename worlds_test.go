package mockplatform

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
)

// Helpers of the worlds tests are prefixed "world".

// withWorldClock dates worlds and measures their idleness with c.
func withWorldClock(c *clock.Clock) Option {
	return func(cfg *config) { cfg.worlds.clock = c }
}

// worldSeed is a platform's seed: its option's, else its scenario's.
func worldSeed(p *Platform) int64 {
	if p.cfg.seed != nil {
		return *p.cfg.seed
	}
	return p.Scenario().Seed
}

// worldCreate creates a world over the host's control plane and returns
// its answer.
func worldCreate(t testing.TB, host *Platform, body any) worldAnswer {
	t.Helper()
	r := send(t, host.Client(), "POST", host.URL()+"/_mock/worlds", body, "Content-Type", "application/json")
	mustStatus(t, r, http.StatusCreated)
	var a worldAnswer
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// worldChat sends a chat request to base/runtime/us-1 and returns the
// answer.
func worldChat(t testing.TB, client *http.Client, base, action string, body any) reply {
	t.Helper()
	return send(t, client, "POST", base+"/runtime/us-1/v1/acme/support/chat/"+action, body, chatHeaders...)
}

// TestWorldsIsolation: the clock, faults, data, journal and resets of one
// world touch neither another world nor the default world at the root.
func TestWorldsIsolation(t *testing.T) {
	t.Parallel()
	host := Start(t)
	client := socketClient(t)
	a, b := worldCreate(t, host, nil), worldCreate(t, host, nil)
	start := host.Now()

	// A conversation in a is unknown to b and to the root.
	r := worldChat(t, client, a.URL, "create", nil)
	mustStatus(t, r, http.StatusOK)
	conv := r.object(t)["conversation_id"].(string)
	for _, base := range []string{b.URL, host.URL()} {
		r := worldChat(t, client, base, "respond", map[string]any{"conversation_id": conv, "message": "hi"})
		if r.Status == http.StatusOK {
			t.Errorf("%s answered a conversation of another world: %s", base, r.Body)
		}
	}

	// A clock advance in a.
	r = send(t, client, "POST", a.ControlURL+"/clock/advance", map[string]string{"duration": "2h"}, "Content-Type", "application/json")
	mustStatus(t, r, http.StatusOK)
	for name, base := range map[string]string{"b": b.ControlURL, "root": host.URL() + "/_mock"} {
		r := send(t, client, "GET", base+"/clock", nil)
		if m := r.object(t); m["now"] != start.Format(time.RFC3339Nano) {
			t.Errorf("%s's clock = %v after an advance in a, want %v", name, m["now"], start)
		}
	}
	aw, _ := host.WorldByID(a.ID)
	if got, want := aw.World.Now(), start.Add(2*time.Hour); !got.Equal(want) {
		t.Errorf("a's clock = %v, want %v", got, want)
	}

	// A fault in a fails a's chat creates only.
	r = send(t, client, "POST", a.ControlURL+"/faults", faults.Rule{Match: faultMatch("chat", ""), Action: faultStatus(503)}, "Content-Type", "application/json")
	mustStatus(t, r, http.StatusCreated)
	mustStatus(t, worldChat(t, client, a.URL, "create", nil), http.StatusServiceUnavailable)
	mustStatus(t, worldChat(t, client, b.URL, "create", nil), http.StatusOK)
	mustStatus(t, worldChat(t, client, host.URL(), "create", nil), http.StatusOK)

	// Each journal holds its own world's requests, with paths relative to
	// the world.
	bw, _ := host.WorldByID(b.ID)
	for name, tc := range map[string]struct {
		p    *Platform
		want int
	}{"a": {aw.World, 2}, "b": {bw.World, 2}, "root": {host, 2}} {
		list := tc.p.Requests(RequestFilter{Family: "chat"})
		if len(list) != tc.want {
			t.Errorf("%s journal: %d chat requests, want %d", name, len(list), tc.want)
		}
		for _, e := range list {
			if strings.HasPrefix(e.Path, "/w/") {
				t.Errorf("%s journal path %q carries the world prefix", name, e.Path)
			}
		}
	}

	// A reset of b, or of the root, leaves a's fault and clock alone.
	for _, base := range []string{b.ControlURL, host.URL() + "/_mock"} {
		mustStatus(t, send(t, client, "POST", base+"/reset", nil, "Content-Type", "application/json"), http.StatusOK)
		if len(aw.World.Faults()) != 1 || !aw.World.Now().Equal(start.Add(2*time.Hour)) {
			t.Errorf("a reset at %s touched a: faults %v, now %v", base, aw.World.Faults(), aw.World.Now())
		}
	}
	if n := len(host.Worlds()); n != 2 {
		t.Errorf("%d worlds after the root's reset, want 2", n)
	}
}

// TestWorldsControlPlane walks a world's life over HTTP: create, list,
// get, health, delete, and what a deleted world answers.
func TestWorldsControlPlane(t *testing.T) {
	t.Parallel()
	wc := clock.New(clock.ModeManual, time.Date(2030, 5, 6, 7, 8, 9, 0, time.UTC))
	defer wc.Close()
	host := Start(t, withWorldClock(wc), WithWorldIdleTimeout(time.Hour))
	client := socketClient(t)
	ctl := func(method, path string, body any) reply {
		return send(t, client, method, host.URL()+"/_mock"+path, body, "Content-Type", "application/json")
	}

	r := ctl("POST", "/worlds", map[string]any{})
	mustStatus(t, r, http.StatusCreated)
	var a worldAnswer
	if err := json.Unmarshal(r.Body, &a); err != nil {
		t.Fatal(err)
	}
	if len(a.ID) != 12 || strings.Trim(a.ID, "0123456789abcdef") != "" {
		t.Fatalf("id %q: want 12 hex digits", a.ID)
	}
	u := host.URL() + "/w/" + a.ID
	want := map[string]any{
		"id":            a.ID,
		"url":           u,
		"runtime_urls":  map[string]any{"us-1": u + "/runtime/us-1", "uk-1": u + "/runtime/uk-1", "euw-1": u + "/runtime/euw-1"},
		"builder_urls":  map[string]any{"us": u + "/builder/us", "uk": u + "/builder/uk", "eu": u + "/builder/eu"},
		"messaging_url": u + "/messaging",
		"control_url":   u + "/_mock",
		"scenario":      "default",
		"clock":         map[string]any{"now": "2026-01-01T00:00:00Z", "mode": "manual"},
		"created_at":    "2030-05-06T07:08:09Z",
		"last_used_at":  "2030-05-06T07:08:09Z",
		"expires_at":    "2030-05-06T08:08:09Z",
	}
	mustJSON(t, r, want)

	// Its addresses work, and the world's own control plane knows it.
	mustStatus(t, worldChat(t, client, a.URL, "create", nil), http.StatusOK)
	mustJSON(t, send(t, client, "GET", a.ControlURL+"/health", nil), map[string]any{"status": "ok", "world": a.ID})
	mustJSON(t, ctl("GET", "/health", nil), map[string]any{"status": "ok", "worlds": 1})

	// A request moves last_used_at.
	advanceClock(t, wc, 10*time.Minute)
	mustStatus(t, send(t, client, "GET", a.ControlURL+"/clock", nil), http.StatusOK)
	want["last_used_at"] = "2030-05-06T07:18:09Z"
	want["expires_at"] = "2030-05-06T08:18:09Z"
	mustJSON(t, ctl("GET", "/worlds/"+a.ID, nil), want)
	mustJSON(t, ctl("GET", "/worlds", nil), map[string]any{"worlds": []any{want}, "max": DefaultMaxWorlds, "idle_timeout": "1h0m0s"})

	// A world's OpenAPI document names the world as its server.
	r = send(t, client, "GET", a.ControlURL+"/openapi.json", nil)
	var doc struct {
		Servers []struct {
			URL string `json:"url"`
		} `json:"servers"`
	}
	if err := json.Unmarshal(r.Body, &doc); err != nil || len(doc.Servers) != 1 || doc.Servers[0].URL != a.URL {
		t.Errorf("the world's openapi.json servers = %+v (%v), want %s", doc.Servers, err, a.URL)
	}

	// A world manages no worlds.
	r = send(t, client, "POST", a.ControlURL+"/worlds", nil, "Content-Type", "application/json")
	mustStatus(t, r, http.StatusNotFound)
	mustJSON(t, r, map[string]any{"error": "a world hosts no worlds: create and list worlds at the server's root (/_mock/worlds, not under /w/{id})"})

	// Delete: 204, then the world is gone everywhere.
	r = ctl("DELETE", "/worlds/"+a.ID, nil)
	mustStatus(t, r, http.StatusNoContent)
	for _, tc := range []struct{ method, url string }{
		{"DELETE", host.URL() + "/_mock/worlds/" + a.ID},
		{"GET", host.URL() + "/_mock/worlds/" + a.ID},
	} {
		r := send(t, client, tc.method, tc.url, nil)
		mustStatus(t, r, http.StatusNotFound)
		mustJSON(t, r, map[string]any{"error": `no world "` + a.ID + `"`})
	}
	r = worldChat(t, client, a.URL, "create", nil)
	mustStatus(t, r, http.StatusNotFound)
	mustJSON(t, r, map[string]any{"error": `no world "` + a.ID + `": it was deleted, expired or never created (GET /_mock/worlds lists the worlds)`})
	mustJSON(t, ctl("GET", "/worlds", nil), map[string]any{"worlds": []any{}, "max": DefaultMaxWorlds, "idle_timeout": "1h0m0s"})
	mustJSON(t, ctl("GET", "/health", nil), map[string]any{"status": "ok", "worlds": 0})
}

// TestWorldsCreateRejected: bad settings answer 400 with the reason and
// create nothing.
func TestWorldsCreateRejected(t *testing.T) {
	t.Parallel()
	host := Start(t)
	for _, tc := range []struct {
		name string
		body string
		want map[string]any
	}{
		{"not JSON", `scenario: x`, map[string]any{"error": `invalid world settings: body is not valid JSON: invalid character 's' looking for beginning of value (at byte 0) (want {"scenario": "<YAML>", "seed": 1, "clock": "manual", "start": "<RFC 3339 time>"}, every field optional)`}},
		{"unknown field", `{"scenaro": "x"}`, map[string]any{"error": `invalid world settings: unknown field "scenaro" (want {"scenario": "<YAML>", "seed": 1, "clock": "manual", "start": "<RFC 3339 time>"}, every field optional)`}},
		{"trailing data", `{}}`, map[string]any{"error": `invalid world settings: body has data after the JSON value (at byte 2) (want {"scenario": "<YAML>", "seed": 1, "clock": "manual", "start": "<RFC 3339 time>"}, every field optional)`}},
		{"key twice", `{"seed": 1, "seed": 2}`, map[string]any{"error": `invalid world settings: body has the key "seed" twice in one object (at byte 12) (want {"scenario": "<YAML>", "seed": 1, "clock": "manual", "start": "<RFC 3339 time>"}, every field optional)`}},
		{"wrong type", `{"seed": "7"}`, map[string]any{"error": `invalid world settings: field "seed" must be an integer (want {"scenario": "<YAML>", "seed": 1, "clock": "manual", "start": "<RFC 3339 time>"}, every field optional)`}},
		{"clock", `{"clock": "fast"}`, map[string]any{"error": `clock must be manual or real, got "fast"`}},
		{"start", `{"start": "tomorrow"}`, map[string]any{"error": `start must be an RFC 3339 time such as 2026-01-01T09:00:00Z, got "tomorrow"`}},
		{"both scenario fields", `{"scenario": "name: a", "scenarios": ["name: b"]}`, map[string]any{"error": "give scenario or scenarios, not both"}},
		{"bad scenario", `{"scenario": "name: x\nbogus: 1\n"}`, map[string]any{"error": "invalid scenario", "problems": []any{"<scenario>:2:1: bogus: unknown field " + topLevelKeys(t)}}},
		{"bad second scenario", `{"scenarios": ["name: a\n", "accounts: 7\n"]}`, map[string]any{"error": "invalid scenario", "problems": []any{"<scenario 2>:1:11: accounts: want a list, got \"7\""}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := send(t, host.Client(), "POST", host.URL()+"/_mock/worlds", tc.body, "Content-Type", "application/json")
			mustStatus(t, r, http.StatusBadRequest)
			mustJSON(t, r, tc.want)
			if n := len(host.Worlds()); n != 0 {
				t.Fatalf("%d worlds after a rejected create", n)
			}
		})
	}
}

// TestWorldsSettings: a world takes its host's scenario, seed and clock
// mode, or the ones it is given.
func TestWorldsSettings(t *testing.T) {
	t.Parallel()
	host := Start(t, WithScenarioFile("fixtures/support-bot.yaml"), WithSeed(99))

	t.Run("inherited", func(t *testing.T) {
		t.Parallel()
		w := host.World(t)
		if w.Scenario() != host.Scenario() || worldSeed(w) != 99 || w.clock.Mode() != ClockManual {
			t.Errorf("world: scenario %q seed %d clock %s, want the host's", w.Scenario().Name, worldSeed(w), w.clock.Mode())
		}
		if _, err := w.Conversation("CONV-SEED-0001"); err != nil {
			t.Errorf("the host scenario's seeded conversation: %v", err)
		}
		if !w.Now().Equal(host.Now()) {
			t.Errorf("Now() = %v, want the scenario's start %v", w.Now(), host.Now())
		}
	})
	t.Run("given over HTTP", func(t *testing.T) {
		t.Parallel()
		a := worldCreate(t, host, map[string]any{
			"scenario": "name: mine\nclock:\n  start: 2031-02-03T04:05:06Z\naccounts:\n  - {slug: initech, id: \"3\"}\n",
			"seed":     7,
			"start":    "2032-01-01T00:00:00Z",
		})
		t.Cleanup(func() { host.DeleteWorld(a.ID) })
		info, _ := host.WorldByID(a.ID)
		w := info.World
		if w.Scenario().Name != "mine" || worldSeed(w) != 7 || !w.Now().Equal(time.Date(2032, 1, 1, 0, 0, 0, 0, time.UTC)) {
			t.Errorf("world: scenario %q seed %d now %v", w.Scenario().Name, worldSeed(w), w.Now())
		}
		if _, err := w.Conversation("CONV-SEED-0001"); err == nil {
			t.Error("a world of another scenario has the host scenario's data")
		}
	})
	t.Run("a layer over HTTP", func(t *testing.T) {
		t.Parallel()
		a := worldCreate(t, host, map[string]any{"scenario": "name: flaky\nfaults:\n  - {id: f1, match: {family: chat}, action: {status: 503}}\n"})
		t.Cleanup(func() { host.DeleteWorld(a.ID) })
		info, _ := host.WorldByID(a.ID)
		w := info.World
		if _, err := w.Conversation("CONV-SEED-0001"); err != nil {
			t.Errorf("a layer's world lacks its host scenario's data: %v", err)
		}
		if f := w.Faults(); w.Scenario().Name != "flaky" || len(f) != 1 || f[0].ID != "f1" {
			t.Errorf("world: scenario %q, faults %v; want flaky with f1", w.Scenario().Name, f)
		}
	})
	t.Run("real clock", func(t *testing.T) {
		t.Parallel()
		a := worldCreate(t, host, map[string]any{"clock": "real"})
		t.Cleanup(func() { host.DeleteWorld(a.ID) })
		if a.Clock.Mode != "real" {
			t.Errorf("clock = %+v, want real", a.Clock)
		}
	})
	t.Run("merged scenarios", func(t *testing.T) {
		t.Parallel()
		a := worldCreate(t, host, map[string]any{"scenarios": []string{"name: one\n", "name: two\nseed: 5\n"}})
		t.Cleanup(func() { host.DeleteWorld(a.ID) })
		if a.Scenario != "two" {
			t.Errorf("scenario = %q, want two (merged)", a.Scenario)
		}
	})
	t.Run("Go options", func(t *testing.T) {
		t.Parallel()
		w := host.World(t, WithScenarioYAML([]byte("name: yaml\n")), WithClock(ClockReal))
		if w.Scenario().Name != "yaml" || w.clock.Mode() != ClockReal {
			t.Errorf("world: scenario %q clock %s", w.Scenario().Name, w.clock.Mode())
		}
		if got, want := w.URL(), host.URL()+"/w/"+w.cfg.mount.id; got != want {
			t.Errorf("URL() = %q, want %q", got, want)
		}
		// Its in-memory client reaches it through the host.
		mustStatus(t, send(t, w.Client(), "GET", w.URL()+"/_mock/health", nil), http.StatusOK)
	})
	t.Run("after a scenario load", func(t *testing.T) {
		t.Parallel()
		h := Start(t, WithoutListener())
		before := h.World(t)
		if err := h.LoadScenarioYAML([]byte("name: later\n")); err != nil {
			t.Fatal(err)
		}
		if got := h.World(t).Scenario().Name; got != "later" {
			t.Errorf("a world after the load serves %q, want later", got)
		}
		if got := before.Scenario().Name; got != "default" {
			t.Errorf("a world from before the load serves %q, want default", got)
		}
	})
	t.Run("refused", func(t *testing.T) {
		t.Parallel()
		if _, err := host.NewWorld(WithDataFile("x.db")); err == nil || !strings.Contains(err.Error(), "in memory") {
			t.Errorf("NewWorld(WithDataFile) = %v", err)
		}
		w := host.World(t)
		if _, err := w.NewWorld(); err == nil {
			t.Error("a world created a world")
		}
	})
}

// TestWorldsLimit: past the limit a create answers 429 and creates
// nothing; deleting a world makes room.
func TestWorldsLimit(t *testing.T) {
	t.Parallel()
	host := Start(t, WithMaxWorlds(2))
	first := worldCreate(t, host, nil)
	worldCreate(t, host, nil)
	r := send(t, host.Client(), "POST", host.URL()+"/_mock/worlds", nil, "Content-Type", "application/json")
	mustStatus(t, r, http.StatusTooManyRequests)
	mustJSON(t, r, map[string]any{
		"error": "world limit reached: 2 worlds are alive; delete the worlds you no longer need (DELETE /_mock/worlds/{id}) or start mockd with a higher --max-worlds",
		"limit": 2,
	})
	if _, err := host.NewWorld(); !errors.Is(err, ErrTooManyWorlds) {
		t.Errorf("NewWorld past the limit = %v, want ErrTooManyWorlds", err)
	}
	if n := len(host.Worlds()); n != 2 {
		t.Fatalf("%d worlds, want 2", n)
	}
	host.DeleteWorld(first.ID)
	worldCreate(t, host, nil)

	// Concurrent creates never pass the limit.
	many := Start(t, WithMaxWorlds(5))
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for range 20 {
		wg.Go(func() {
			if _, err := many.NewWorld(); err == nil {
				mu.Lock()
				created++
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if created != 5 || len(many.Worlds()) != 5 {
		t.Errorf("20 concurrent creates under a limit of 5: %d created, %d listed", created, len(many.Worlds()))
	}

	off := Start(t, WithMaxWorlds(0))
	mustStatus(t, send(t, off.Client(), "POST", off.URL()+"/_mock/worlds", nil, "Content-Type", "application/json"), http.StatusTooManyRequests)
}

// TestWorldsIdleExpiry: a world unused for the idle timeout is dropped; a
// request, or one in flight, keeps it.
func TestWorldsIdleExpiry(t *testing.T) {
	t.Parallel()
	wc := clock.New(clock.ModeManual, time.Time{})
	defer wc.Close()
	host := Start(t, withWorldClock(wc), WithWorldIdleTimeout(10*time.Minute))
	a, b, c := worldCreate(t, host, nil), worldCreate(t, host, nil), worldCreate(t, host, nil)
	ids := func() []string {
		var out []string
		for _, w := range host.Worlds() {
			out = append(out, w.ID)
		}
		return out
	}

	advanceClock(t, wc, 6*time.Minute)
	mustStatus(t, worldChat(t, host.Client(), a.URL, "create", nil), http.StatusOK)
	// c has a request in flight (a WebSocket, say) all along.
	host.worlds.mu.Lock()
	host.worlds.worlds[c.ID].active++
	host.worlds.mu.Unlock()

	advanceClock(t, wc, 4*time.Minute) // b reaches 10 minutes unused
	if diff := cmp.Diff([]string{a.ID, c.ID}, ids()); diff != "" {
		t.Fatalf("worlds after b's idle timeout (-want +got):\n%s", diff)
	}
	mustStatus(t, worldChat(t, host.Client(), b.URL, "create", nil), http.StatusNotFound)

	advanceClock(t, wc, 6*time.Minute) // a reaches 10 minutes unused
	if diff := cmp.Diff([]string{c.ID}, ids()); diff != "" {
		t.Fatalf("worlds after a's idle timeout (-want +got):\n%s", diff)
	}

	host.worlds.mu.Lock()
	host.worlds.worlds[c.ID].active--
	host.worlds.worlds[c.ID].lastUsed = wc.Now()
	host.worlds.mu.Unlock()
	advanceClock(t, wc, 10*time.Minute)
	if got := ids(); len(got) != 0 {
		t.Fatalf("worlds after c's idle timeout: %v", got)
	}
}

// TestWorldsPublicURL: WithPublicURL is the platform's URL and the base of
// the worlds' addresses.
func TestWorldsPublicURL(t *testing.T) {
	t.Parallel()
	host := Start(t, WithoutListener(), WithPublicURL("http://mock.example:9000/"))
	if host.URL() != "http://mock.example:9000" {
		t.Errorf("URL() = %q", host.URL())
	}
	a := worldCreate(t, host, nil)
	if want := "http://mock.example:9000/w/" + a.ID; a.URL != want {
		t.Errorf("world url = %q, want %q", a.URL, want)
	}
	if _, err := New(WithPublicURL("mock.example")); err == nil {
		t.Error("WithPublicURL without a scheme accepted")
	}
}

// TestWorldsCloseStopsEveryGoroutine: closing a host closes its worlds,
// real clocks, sweeper and connections included.
func TestWorldsCloseStopsEveryGoroutine(t *testing.T) {
	opts := append([]goleak.Option{goleak.IgnoreCurrent()}, leakOptions...)
	ft := &fakeTB{}
	host := Start(ft, WithWorldIdleTimeout(time.Hour))
	if host == nil {
		t.Fatal(ft.fatal)
	}
	sock := socketClient(t)
	for _, body := range []any{nil, map[string]any{"clock": "real"}} {
		a := worldCreate(t, host, body)
		mustStatus(t, worldChat(t, sock, a.URL, "create", nil), http.StatusOK)
	}
	if _, err := host.NewWorld(); err != nil {
		t.Fatal(err)
	}
	sock.Transport.(interface{ CloseIdleConnections() }).CloseIdleConnections()
	for _, c := range ft.cleanups {
		c()
	}
	if n := host.worldCount(); n != 0 {
		t.Errorf("%d worlds after Close", n)
	}
	goleak.VerifyNone(t, opts...)
}

// TestWorldsWebSocket: a world's messaging sessions and WebSockets live
// under its prefix and are its own; deleting the world ends its sockets.
func TestWorldsWebSocket(t *testing.T) {
	t.Parallel()
	host := Start(t)
	w, err := host.NewWorld()
	if err != nil {
		t.Fatal(err)
	}
	sid, _, conn := openSession(t, w)
	if list := w.MessagingSessions(); len(list) != 1 || list[0].ID != sid || list[0].Connections != 1 {
		t.Fatalf("world sessions = %+v", list)
	}
	if list := host.MessagingSessions(); len(list) != 0 {
		t.Fatalf("the root sees the world's sessions: %+v", list)
	}
	// The world's control plane, under its prefix, expires it.
	if status, _ := call(t, w, "POST", w.URL()+"/_mock/messaging/sessions/"+sid+"/expire", "{}"); status != http.StatusOK {
		t.Fatalf("expire in the world: %d", status)
	}
	if code := readUntilClose(t, conn); code != 4001 {
		t.Errorf("close code %d, want 4001", code)
	}

	_, _, conn = openSession(t, w)
	host.DeleteWorld(w.cfg.mount.id)
	readUntilClose(t, conn) // returns once the socket is gone
}
