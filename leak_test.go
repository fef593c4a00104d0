package mockplatform

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentplatform/mockplatform/store"
)

// leakOptions ignores buntdb's background goroutine, which outlives
// Close by up to a second (store.LeakIgnoreFunction).
var leakOptions = []goleak.Option{goleak.IgnoreAnyFunction(store.LeakIgnoreFunction)}

// TestMain fails the package when any test leaves a goroutine behind.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, leakOptions...)
}

// TestCloseStopsEveryGoroutine starts platforms in every mode, uses them
// (over a socket too), closes them, and checks that no goroutine is left.
// It is not parallel, so that other tests' goroutines do not count.
func TestCloseStopsEveryGoroutine(t *testing.T) {
	opts := append([]goleak.Option{goleak.IgnoreCurrent()}, leakOptions...)
	file := filepath.Join(t.TempDir(), "leak.db")
	for _, tc := range []struct {
		name string
		opts []Option
	}{
		{"listener", nil},
		{"no listener", []Option{WithoutListener()}},
		{"real clock", []Option{WithClock(ClockReal)}},
		{"data file", []Option{WithDataFile(file)}},
		{"faults fixture", []Option{WithScenarioFile("fixtures/faults.yaml")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ft := &fakeTB{}
			p := Start(ft, tc.opts...)
			if p == nil {
				t.Fatal(ft.fatal)
			}
			sock := socketClient(t)
			if p.URL() != PlaceholderURL {
				send(t, sock, "GET", p.URL()+"/_mock/health", nil)
				send(t, sock, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...)
			}
			send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...)
			p.Advance(1)
			if err := p.Reset(); err != nil {
				t.Fatal(err)
			}
			sock.Transport.(interface{ CloseIdleConnections() }).CloseIdleConnections()
			for _, c := range ft.cleanups {
				c()
			}
			goleak.VerifyNone(t, opts...)
		})
	}
	if _, err := os.Stat(file); err != nil {
		t.Fatalf("data file: %v", err)
	}
}
