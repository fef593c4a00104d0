package mockplatform

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"github.com/agentplatform/mockplatform/store"
)

// leakOptions ignores buntdb's background goroutine, which outlives
// Close by up to a second (store.LeakIgnoreFunction).
var leakOptions = []goleak.Option{goleak.IgnoreAnyFunction(store.LeakIgnoreFunction)}

// TestMain checks every exchange of every platform the tests start
// against the OpenAPI document (conformance_test.go) and every platform's
// coverage against the catalogue (coverage_suite_test.go), and fails the
// package when any test leaves a goroutine behind, an exchange of a
// platform no test owns did not conform, or a whole run's coverage of the
// real operations differs from the committed one (parity_test.go).
func TestMain(m *testing.M) {
	testObserve = observeConformance
	testObserveControl = observeControlConformance
	testCoverage = checkCoverage
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(leakOptions...); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: %v\n", err)
			code = 1
		}
	}
	if chk, err := oapiChecker(); err == nil {
		fmt.Printf("OpenAPI conformance (root): %s\n", chk.Counts())
	}
	if chk, err := controlChecker(); err == nil {
		fmt.Printf("OpenAPI conformance (control plane): %s\n", chk.Counts())
	}
	code = finishCoverage(code)
	if orphans := conformanceOrphans(); len(orphans) > 0 {
		fmt.Fprintf(os.Stderr, "OpenAPI conformance: %d exchanges of platforms started without a test did not conform:\n%s\n",
			len(orphans), strings.Join(orphans, "\n"))
		code = 1
	}
	os.Exit(finishParity(code))
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
