package mockplatform

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

func TestStartDefaultScenario(t *testing.T) {
	t.Parallel()
	p := Start(t)
	if !strings.HasPrefix(p.URL(), "http://127.0.0.1:") {
		t.Fatalf("URL() = %q, want an httptest address", p.URL())
	}
	for _, c := range []struct{ got, want string }{
		{p.RuntimeURL("us-1"), p.URL() + "/runtime/us-1"},
		{p.RuntimeURL("euw-1"), p.URL() + "/runtime/euw-1"},
		{p.BuilderURL("uk"), p.URL() + "/builder/uk"},
		{p.MessagingURL(), p.URL() + "/messaging"},
	} {
		if c.got != c.want {
			t.Errorf("address %q, want %q", c.got, c.want)
		}
	}
	if got := p.Scenario().Name; got != "default" {
		t.Errorf("scenario = %q, want default", got)
	}
	if got := p.Now(); !got.Equal(defaultStart) {
		t.Errorf("Now() = %v, want %v (manual clock at the default start)", got, defaultStart)
	}

	// Over the real socket, and through the in-memory client.
	sock := socketClient(t)
	r := send(t, sock, "GET", p.URL()+"/_mock/health", nil)
	mustStatus(t, r, http.StatusOK)
	mustJSON(t, r, map[string]any{"status": "ok", "worlds": 0})
	id := chatCreate(t, p, sock)
	id2 := chatCreate(t, p, nil)

	// The conversation held through the API is a record in the store.
	for _, id := range []string{id, id2} {
		c, err := p.Conversation(id)
		if err != nil {
			t.Fatalf("Conversation(%s): %v", id, err)
		}
		if c.AccountID != "1001" || c.ProjectID != "2001" || c.Region != "us" || !c.InProgress || len(c.Turns) != 1 {
			t.Errorf("conversation %s = %+v", id, c)
		}
	}
	if _, err := p.Conversation("CONV-0000000000"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Conversation(unknown) error = %v, want ErrNotFound", err)
	}
}

func TestStartFailsTheTest(t *testing.T) {
	t.Parallel()
	f := &fakeTB{}
	p := Start(f, WithScenarioYAML([]byte("name: x\nbogus: 1\n")))
	if p != nil {
		t.Fatal("Start returned a platform for a bad scenario")
	}
	want := "mockplatform.Start: <scenario>:2:1: bogus: unknown field"
	if !strings.HasPrefix(f.fatal, want) {
		t.Fatalf("Fatalf message = %q, want prefix %q", f.fatal, want)
	}
	if len(f.cleanups) != 0 {
		t.Fatalf("%d cleanups registered for a platform that was not started", len(f.cleanups))
	}

	// A good one registers exactly one cleanup, which closes it.
	f = &fakeTB{}
	p = Start(f)
	if len(f.cleanups) != 1 {
		t.Fatalf("cleanups = %d, want 1", len(f.cleanups))
	}
	f.cleanups[0]()
	if r := send(t, p.Client(), "GET", p.URL()+"/_mock/health", nil); r.Status != http.StatusServiceUnavailable {
		t.Fatalf("after cleanup: status %d, want 503", r.Status)
	}
}

func TestNewScenarioSources(t *testing.T) {
	t.Parallel()
	file := filepath.Join("fixtures", "support-bot.yaml")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := handlers.Vocabulary().Load(file)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opt  Option
	}{
		{"file", WithScenarioFile(file)},
		{"bytes", WithScenarioYAML(data)},
		{"parsed", WithScenario(parsed)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := newPlatform(t, tc.opt)
			if got := p.Scenario().Name; got != "support-bot" {
				t.Errorf("scenario = %q, want support-bot", got)
			}
			want := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
			if got := p.Now(); !got.Equal(want) {
				t.Errorf("Now() = %v, want the scenario's start %v", got, want)
			}
			// The scenario's seeded record is in the store.
			c, err := p.Conversation("CONV-SEED-0001")
			if err != nil {
				t.Fatalf("seeded conversation: %v", err)
			}
			if c.Region != "uk" || c.AccountID != "3001" {
				t.Errorf("seeded conversation = %+v", c)
			}
		})
	}
}

func TestNewScenarioErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("name: bad\naccounts:\n  - slug: a\n    id: \"1\"\n    region: mars\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		opts []Option
		want []string // every line of the error
	}{
		{"yaml unknown key", []Option{WithScenarioYAML([]byte("name: x\nbogus: 1\n"))},
			[]string{"<scenario>:2:1: bogus: unknown field " + topLevelKeys(t)}},
		{"file bad region", []Option{WithScenarioFile(bad)},
			[]string{bad + `:5:13: accounts[0].region: unknown region "mars" (want us, uk or eu)`}},
		{"missing file", []Option{WithScenarioFile(filepath.Join(dir, "nope.yaml"))},
			[]string{"scenario: open " + filepath.Join(dir, "nope.yaml") + ": no such file or directory"}},
		{"two bad options", []Option{WithScenarioYAML([]byte("bogus: 1\n")), WithScenarioFile(bad)},
			[]string{"<scenario>:1:1: bogus: unknown field " + topLevelKeys(t),
				bad + `:5:13: accounts[0].region: unknown region "mars" (want us, uk or eu)`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, err := New(tc.opts...)
			if err == nil {
				p.Close()
				t.Fatal("New succeeded")
			}
			if p != nil {
				t.Error("New returned a platform with an error")
			}
			if diff := cmp.Diff(tc.want, strings.Split(err.Error(), "\n")); diff != "" {
				t.Errorf("error (-want +got):\n%s", diff)
			}
		})
	}
	var list scenario.Errors
	_, err := New(WithScenarioYAML([]byte("bogus: 1\n")))
	if !errors.As(err, &list) || len(list) != 1 || list[0].Line != 1 || list[0].Column != 1 {
		t.Errorf("error %v is not a scenario.Errors at 1:1", err)
	}
}

// topLevelKeys is the "(want name, seed, ...)" part of the scenario
// loader's unknown top-level key message: the list grows as families add
// blocks, so it is taken from the loader itself.
func topLevelKeys(t testing.TB) string {
	t.Helper()
	_, err := handlers.Vocabulary().Parse("x", []byte("bogus: 1\n"))
	msg := fmt.Sprint(err)
	const head = "x:1:1: bogus: unknown field "
	if !strings.HasPrefix(msg, head+"(want name, seed, clock, accounts, credentials") {
		t.Fatalf("unknown key message changed shape: %s", msg)
	}
	return strings.TrimPrefix(msg, head)
}

func TestClockOptions(t *testing.T) {
	t.Parallel()
	at := time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)
	t.Run("manual from scenario", func(t *testing.T) {
		p := newPlatform(t, WithScenarioFile("fixtures/multi-project.yaml"))
		want := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
		if got := p.Now(); !got.Equal(want) {
			t.Fatalf("Now() = %v, want %v", got, want)
		}
		if got := p.Advance(90 * time.Second); !got.Equal(want.Add(90 * time.Second)) {
			t.Fatalf("Advance returned %v", got)
		}
		if got := p.Advance(-time.Hour); !got.Equal(want.Add(90 * time.Second)) {
			t.Fatalf("a negative Advance moved the clock to %v", got)
		}
	})
	t.Run("manual start option wins", func(t *testing.T) {
		p := newPlatform(t, WithScenarioFile("fixtures/multi-project.yaml"), WithStartTime(at))
		if got := p.Now(); !got.Equal(at) {
			t.Fatalf("Now() = %v, want %v", got, at)
		}
		// It stands still: reading it twice gives the same time.
		if a, b := p.Now(), p.Now(); !a.Equal(b) {
			t.Fatalf("manual clock moved: %v then %v", a, b)
		}
		p.Advance(time.Hour)
		if err := p.Reset(); err != nil {
			t.Fatal(err)
		}
		if got := p.Now(); !got.Equal(at) {
			t.Fatalf("after Reset Now() = %v, want the option's start %v", got, at)
		}
	})
	t.Run("real", func(t *testing.T) {
		p := newPlatform(t, WithClock(ClockReal), WithStartTime(at))
		got := p.Now()
		if got.Before(at) || got.After(at.Add(time.Minute)) {
			t.Fatalf("Now() = %v, want just after %v", got, at)
		}
		after := p.Advance(time.Hour)
		if after.Before(at.Add(time.Hour)) || after.After(at.Add(time.Hour+time.Minute)) {
			t.Fatalf("Advance(1h) = %v, want about %v", after, at.Add(time.Hour))
		}
		r := send(t, p.Client(), "GET", p.URL()+"/_mock/clock", nil)
		if mode := r.object(t)["mode"]; mode != "real" {
			t.Fatalf("control clock mode = %v, want real", mode)
		}
	})
	t.Run("real follows wall time without a start", func(t *testing.T) {
		// A scenario with no clock.start: the real clock starts at wall time.
		p := newPlatform(t, WithClock(ClockReal), WithScenarioYAML([]byte("name: empty\n")))
		wall := time.Now().UTC() // test code: the grep test allows it
		if d := p.Now().Sub(wall); d < -time.Minute || d > time.Minute {
			t.Fatalf("Now() = %v, want about wall time %v", p.Now(), wall)
		}
	})
}

func TestSeedGivesSameIDs(t *testing.T) {
	t.Parallel()
	ids := func(opts ...Option) []string {
		p := newPlatform(t, opts...)
		return []string{chatCreate(t, p, nil), chatCreate(t, p, nil)}
	}
	a, b := ids(), ids()
	if diff := cmp.Diff(a, b); diff != "" {
		t.Fatalf("two default instances made different ids (-a +b):\n%s", diff)
	}
	c, d := ids(WithSeed(99)), ids(WithSeed(99))
	if diff := cmp.Diff(c, d); diff != "" {
		t.Fatalf("two instances with seed 99 made different ids:\n%s", diff)
	}
	if a[0] == c[0] {
		t.Fatalf("seed 1 and seed 99 made the same id %s", a[0])
	}

	// After Reset the sequence starts again.
	p := newPlatform(t, WithSeed(99))
	first := chatCreate(t, p, nil)
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if again := chatCreate(t, p, nil); again != first || first != c[0] {
		t.Fatalf("ids: %s, after reset %s, want %s both times", first, again, c[0])
	}
}

func TestDataFilePersistence(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mock.db")
	p1, err := New(WithDataFile(file))
	if err != nil {
		t.Fatal(err)
	}
	id := chatCreate(t, p1, nil)
	r := send(t, p1.Client(), "POST", p1.RuntimeURL("us-1")+"/v1/acme/support/chat/respond",
		map[string]any{"conversation_id": id, "message": "what are your hours?"}, chatHeaders...)
	mustStatus(t, r, http.StatusOK)
	before, err := p1.Conversation(id)
	if err != nil {
		t.Fatal(err)
	}
	p1.Close()

	// A second instance on the same file sees the conversation, turns and all.
	p2 := newPlatform(t, WithDataFile(file))
	after, err := p2.Conversation(id)
	if err != nil {
		t.Fatalf("second instance: %v", err)
	}
	if diff := cmp.Diff(before, after, cmpopts.EquateEmpty()); diff != "" {
		t.Fatalf("conversation after reopening (-before +after):\n%s", diff)
	}
	// Its IDs do not collide with the kept record: the next id differs.
	if next := chatCreate(t, p2, nil); next == id {
		t.Fatalf("second instance reused id %s", id)
	}
	// Reset goes back to the scenario's initial state, on file too.
	if err := p2.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := p2.Conversation(id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after Reset: %v, want ErrNotFound", err)
	}
	p2.Close()
	p3 := newPlatform(t, WithDataFile(file))
	if _, err := p3.Conversation(id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("reopened after Reset: %v, want ErrNotFound", err)
	}
}

func TestDataFileKeepsScenarioLimits(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mock.db")
	yaml := append(scenario.DefaultYAML(), []byte("\nlimits: {journal_size: 2}\n")...)
	p1 := newPlatform(t, WithDataFile(file), WithScenarioYAML(yaml))
	chatCreate(t, p1, nil)
	p1.Close()
	// The store is not empty now, so the data is kept; the journal bound
	// of the scenario still applies.
	p2 := newPlatform(t, WithDataFile(file), WithScenarioYAML(yaml))
	for range 3 {
		chatCreate(t, p2, nil)
	}
	if n := len(p2.Requests(RequestFilter{})); n != 2 {
		t.Fatalf("journal holds %d entries, want the scenario's journal_size 2", n)
	}
}

func TestWithoutListener(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	if p.URL() != PlaceholderURL {
		t.Fatalf("URL() = %q, want %q", p.URL(), PlaceholderURL)
	}
	if got, want := p.RuntimeURL("us-1"), PlaceholderURL+"/runtime/us-1"; got != want {
		t.Fatalf("RuntimeURL = %q, want %q", got, want)
	}
	id := chatCreate(t, p, nil)
	if _, err := p.Conversation(id); err != nil {
		t.Fatal(err)
	}
	got := p.Requests(RequestFilter{Family: "chat"})
	if len(got) != 1 || got[0].Path != "/runtime/us-1/v1/acme/support/chat/create" || got[0].Status != 200 {
		t.Fatalf("journal = %+v", got)
	}
}

func TestParallelInstancesAreIsolated(t *testing.T) {
	t.Parallel()
	type result struct {
		id   string
		now  time.Time
		reqs int
	}
	results := make([]result, 2)
	t.Run("group", func(t *testing.T) {
		for i := range 2 {
			t.Run("instance", func(t *testing.T) {
				t.Parallel()
				p := Start(t)
				// Each instance does something different to its own state.
				p.Advance(time.Duration(i+1) * time.Hour)
				if _, err := p.AddFault(Fault{ID: "only-here", Match: faultMatch("chat", "/v1/*/*/chat/close"), Action: faultStatus(500)}); err != nil {
					t.Fatal(err)
				}
				var id string
				for range i + 1 {
					id = chatCreate(t, p, socketClient(t))
				}
				results[i] = result{id: id, now: p.Now(), reqs: len(p.Requests(RequestFilter{}))}
				if n := len(p.Faults()); n != 1 {
					t.Errorf("instance %d sees %d fault rules, want its own 1", i, n)
				}
			})
		}
	})
	for i, r := range results {
		if want := defaultStart.Add(time.Duration(i+1) * time.Hour); !r.now.Equal(want) {
			t.Errorf("instance %d clock = %v, want %v", i, r.now, want)
		}
		if r.reqs != i+1 {
			t.Errorf("instance %d journal = %d entries, want %d", i, r.reqs, i+1)
		}
	}
	// Same seed, independent generators: the first ids agree, so instance
	// 1's second id is its own next id, not a continuation of instance 0's.
	if results[0].id == results[1].id {
		t.Errorf("instance 1's second id equals instance 0's first: %s", results[0].id)
	}
	// Data of one instance is invisible to another.
	a, b := Start(t, WithoutListener()), Start(t, WithoutListener())
	id := chatCreate(t, a, nil)
	if _, err := b.Conversation(id); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("instance b sees a's conversation: %v", err)
	}
}

func TestCloseIsIdempotent(t *testing.T) {
	t.Parallel()
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	p.Close()
	p.Close()
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("third Close blocked")
	}
	q := Start(t) // with a listener, closed by hand before its cleanup
	q.Close()
	q.Close()
}

func TestServeAfterClose(t *testing.T) {
	t.Parallel()
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	client := p.Client()
	p.Close()
	for _, path := range []string{"/_mock/health", "/runtime/us-1/v1/acme/support/chat/create"} {
		r := send(t, client, "POST", p.URL()+path, nil, chatHeaders...)
		mustStatus(t, r, http.StatusServiceUnavailable)
		mustJSON(t, r, map[string]any{"error": "the platform is closed"})
		if ct := r.Header.Get("Content-Type"); ct != "application/json" {
			t.Errorf("Content-Type = %q", ct)
		}
	}
	if err := p.Reset(); err == nil {
		t.Error("Reset after Close succeeded")
	}
}

// TestCloseWaitsForRequests holds a request in a fault's real delay, closes
// the platform meanwhile, and checks that Close returned only after the
// request was answered.
// heldBody is a request body whose first Read reports that the handler
// has started reading it (the request is in flight) and then blocks until
// release is closed; then it ends.
type heldBody struct {
	reading chan struct{} // closed by the first Read
	release chan struct{}
	once    sync.Once
}

func newHeldBody() *heldBody {
	return &heldBody{reading: make(chan struct{}), release: make(chan struct{})}
}

func (b *heldBody) Read(p []byte) (int, error) {
	b.once.Do(func() { close(b.reading) })
	<-b.release
	return 0, io.EOF
}

func (b *heldBody) Close() error { return nil }

// sendHeld sends a chat create whose body is held; the answer (or the
// error, as status -1) arrives on the channel.
func sendHeld(p *Platform, client *http.Client, body *heldBody) <-chan reply {
	answered := make(chan reply, 1)
	go func() {
		req, _ := http.NewRequest("POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", body)
		req.Header.Set("Expect", "100-continue") // over a socket: no body before the handler reads it
		for i := 0; i < len(chatHeaders); i += 2 {
			req.Header.Set(chatHeaders[i], chatHeaders[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			answered <- reply{Status: -1, Body: []byte(err.Error())}
			return
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		answered <- reply{Status: resp.StatusCode, Body: data}
	}()
	return answered
}

// closeWaited checks, once Close has returned, that the request held
// during Close was answered first: its journal entry (written after the
// answer) is there, and the client got a 200.
func closeWaited(t *testing.T, p *Platform, answered <-chan reply) {
	t.Helper()
	if got := p.Requests(RequestFilter{Family: "chat"}); len(got) != 1 || got[0].Status != http.StatusOK {
		t.Fatalf("Close returned before the request in flight was answered; journal: %+v", got)
	}
	if r := <-answered; r.Status != http.StatusOK {
		t.Fatalf("held request: status %d: %s", r.Status, r.Body)
	}
}

// Close waits for the requests in flight. In memory, inside a synctest
// bubble: the request is held inside its handler, Close is called and is
// seen blocked (every goroutine of the bubble waits), then the request is
// released and Close returns after its answer.
func TestCloseWaitsForRequests(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		p := Start(t, WithoutListener())
		body := newHeldBody()
		answered := sendHeld(p, p.Client(), body)
		<-body.reading // the handler is reading the body: the request is in flight
		closed := make(chan struct{})
		go func() {
			p.Close()
			close(closed)
		}()
		synctest.Wait() // Close runs until it blocks
		select {
		case <-closed:
			t.Fatal("Close returned with a request in flight")
		default:
		}
		close(body.release)
		<-closed
		closeWaited(t, p, answered)
		// buntdb's background goroutines notice a closed database on their
		// next one-second tick; the bubble's fake clock gets there at once.
		time.Sleep(2 * time.Second)
	})
}

// signalListener reports when it is closed.
type signalListener struct {
	net.Listener
	closed chan struct{}
	once   sync.Once
}

func (l *signalListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return l.Listener.Close()
}

// Over a listener: the request is held inside its handler (Expect:
// 100-continue: the client sends no body before the handler reads it), and
// released only once Close has closed the listener, so Close is under way
// while the request is in flight.
func TestCloseWaitsForRequestsOverListener(t *testing.T) {
	t.Parallel()
	p := newPlatform(t)
	srv := httptest.NewUnstartedServer(p)
	lis := &signalListener{Listener: srv.Listener, closed: make(chan struct{})}
	srv.Listener = lis
	srv.Start()
	p.mu.Lock()
	p.srv = srv // as Start does
	p.mu.Unlock()
	tr := &http.Transport{ExpectContinueTimeout: time.Hour}
	t.Cleanup(tr.CloseIdleConnections)
	body := newHeldBody()
	answered := sendHeld(p, &http.Client{Transport: tr}, body)
	<-body.reading
	closed := make(chan struct{})
	go func() {
		p.Close()
		close(closed)
	}()
	<-lis.closed // Close is closing the server
	select {
	case <-closed:
		t.Fatal("Close returned with a request in flight")
	default:
	}
	close(body.release)
	<-closed
	closeWaited(t, p, answered)
}

func TestResetRestoresInitialState(t *testing.T) {
	t.Parallel()
	const yaml = `
name: reset-test
seed: 5
clock: {start: 2026-05-01T10:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        dialogue:
          greeting: Hello.
        conversations:
          - {id: CONV-SEEDED, environment: live, channel: CHAT, started_at: 2026-04-30T10:00:00Z, duration: 1m}
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support}
limits: {journal_size: 50}
faults:
  - {id: scenario-fault, match: {family: chat, path: /v1/*/*/chat/close}, action: {status: 503}}
`
	p := Start(t, WithoutListener(), WithScenarioYAML([]byte(yaml)))
	start := p.Now()
	seeded, err := p.Conversation("CONV-SEEDED")
	if err != nil {
		t.Fatal(err)
	}
	initialFaults := p.Faults()
	firstID := chatCreate(t, p, nil)

	// Change everything: data (a new conversation, a changed seed record),
	// clock, faults (a new rule, counters of the scenario's rule), journal.
	if _, err := p.Store().UpdateConversation("us", "CONV-SEEDED", func(c *store.Conversation) error {
		c.InProgress = true
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.AddFault(Fault{ID: "added", Match: faultMatch("chat", "/v1/*/*/chat/respond"), Action: faultStatus(500)}); err != nil {
		t.Fatal(err)
	}
	r := send(t, p.Client(), "PUT", p.RuntimeURL("us-1")+"/v1/acme/support/chat/close",
		map[string]any{"conversation_id": firstID}, chatHeaders...)
	mustStatus(t, r, http.StatusServiceUnavailable)
	p.Advance(3 * time.Hour)

	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Conversation(firstID); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("created conversation after Reset: %v, want ErrNotFound", err)
	}
	got, err := p.Conversation("CONV-SEEDED")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(seeded, got, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("seeded conversation not restored (-want +got):\n%s", diff)
	}
	if !p.Now().Equal(start) {
		t.Errorf("Now() = %v, want %v", p.Now(), start)
	}
	if diff := cmp.Diff(initialFaults, p.Faults(), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("faults (-initial +after reset):\n%s", diff)
	}
	if n := len(p.Requests(RequestFilter{})); n != 0 {
		t.Errorf("journal holds %d entries after Reset", n)
	}
	// The id sequence restarts too.
	if again := chatCreate(t, p, nil); again != firstID {
		t.Errorf("first id after Reset %s, want %s", again, firstID)
	}
	if e := p.Requests(RequestFilter{}); len(e) != 1 || e[0].Seq != 1 {
		t.Errorf("journal after Reset = %+v, want one entry with seq 1", e)
	}
}

func TestLoadScenario(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	id := chatCreate(t, p, nil)
	sc, err := handlers.Vocabulary().Load("fixtures/multi-project.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := p.LoadScenario(sc); err != nil {
		t.Fatal(err)
	}
	if p.Scenario() != sc {
		t.Error("Scenario() is not the loaded scenario")
	}
	if _, err := p.Conversation(id); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("old data after LoadScenario: %v", err)
	}
	if _, err := p.Conversation("CONV-SALES-1"); err != nil {
		t.Errorf("the new scenario's seed: %v", err)
	}
	if want := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC); !p.Now().Equal(want) {
		t.Errorf("Now() = %v, want the new scenario's start %v", p.Now(), want)
	}
	// Reset now goes back to the new scenario.
	if err := p.Reset(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Conversation("CONV-SALES-1"); err != nil {
		t.Errorf("after Reset: %v", err)
	}

	// Errors leave the scenario in force.
	if err := p.LoadScenario(nil); err == nil {
		t.Error("LoadScenario(nil) succeeded")
	}
	err = p.LoadScenarioYAML([]byte("name: x\nbogus: 1\n"))
	var list scenario.Errors
	if !errors.As(err, &list) {
		t.Fatalf("LoadScenarioYAML error %v, want scenario.Errors", err)
	}
	if p.Scenario() != sc {
		t.Error("a failed load replaced the scenario")
	}
	if err := p.LoadScenarioYAML(scenario.DefaultYAML()); err != nil {
		t.Fatal(err)
	}
	if p.Scenario().Name != "default" {
		t.Errorf("scenario = %q", p.Scenario().Name)
	}
}

func TestJournalLimitsFromScenario(t *testing.T) {
	t.Parallel()
	yaml := append(scenario.DefaultYAML(), []byte("\nlimits: {journal_size: 3, journal_body_bytes: 10}\n")...)
	p := Start(t, WithoutListener(), WithScenarioYAML(yaml))
	var ids []string
	for range 5 {
		ids = append(ids, chatCreate(t, p, nil))
	}
	got := p.Requests(RequestFilter{})
	if len(got) != 3 {
		t.Fatalf("journal = %d entries, want 3", len(got))
	}
	for i, e := range got {
		if e.Seq != int64(i+3) {
			t.Errorf("entry %d seq = %d, want %d (the newest three)", i, e.Seq, i+3)
		}
		if want := `{"conversa`; e.ResponseBody != want {
			t.Errorf("entry %d response body = %q, want the first 10 bytes %q", i, e.ResponseBody, want)
		}
	}
	_ = ids
}

func TestMockInterface(t *testing.T) {
	t.Parallel()
	var m Mock = Start(t, WithoutListener())
	if m.URL() != PlaceholderURL {
		t.Fatal(m.URL())
	}
	before := m.Now()
	if got := m.Advance(time.Minute); !got.Equal(before.Add(time.Minute)) {
		t.Fatalf("Advance = %v", got)
	}
	if err := m.Reset(); err != nil || !m.Now().Equal(before) {
		t.Fatalf("Reset: %v, now %v", err, m.Now())
	}
}

func TestOutboundLifecycleByAdvance(t *testing.T) {
	t.Parallel()
	p := Start(t)
	hdr := []string{"X-PolyAi-Auth-Token", "test-outbound-token"}
	status, body := call(t, p, "POST", p.URL()+"/runtime/us-1/v1/outbound-calling", `{"to_number":"+14155552671"}`, hdr...)
	if status != 200 {
		t.Fatalf("trigger: %d %v", status, body)
	}
	sid := body["call_sid"].(string)
	get := func() (int, map[string]any) {
		return call(t, p, "GET", p.RuntimeURL("us-1")+"/v1/outbound-calling/"+sid+"/status", "", hdr...)
	}
	for _, step := range []struct {
		advance time.Duration
		status  int
		want    string
	}{
		{0, 200, "queued"}, {5 * time.Second, 200, "calling"}, {30 * time.Second, 200, "success"},
		{2*time.Hour - time.Second, 200, "success"}, {time.Second, 404, ""},
	} {
		p.Advance(step.advance)
		status, body := get()
		if status != step.status || step.want != "" && body["status"] != step.want {
			t.Fatalf("after %v: %d %v, want %d %s", step.advance, status, body, step.status, step.want)
		}
	}
}

// The seeds of the default scenario carry the clock's start, in a Platform
// as in the handlers' harness: the seeded agent was created at 2026-01-01.
func TestDefaultSeedsAtClockStart(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	r := send(t, p.Client(), "GET", p.BuilderURL("us")+"/v1/agents", nil, "x-api-key", "test-builder-key")
	mustStatus(t, r, http.StatusOK)
	var agents []map[string]any
	if err := json.Unmarshal(r.Body, &agents); err != nil || len(agents) == 0 {
		t.Fatalf("agents: %v %s", err, r.Body)
	}
	if got := agents[0]["createdAt"]; got != "2026-01-01T00:00:00.000Z" {
		t.Fatalf("seeded agent createdAt = %v, want the clock start 2026-01-01T00:00:00.000Z", got)
	}
}
