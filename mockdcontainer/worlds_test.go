package mockdcontainer

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
)

// TestContainerWorlds runs the behaviour suite in many worlds of one
// container at once: the one-container-per-test-binary pattern.
func TestContainerWorlds(t *testing.T) {
	c := Start(t, imageOpts()...)
	for i := range 8 {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return c.World(t) })
		})
	}
}

// TestContainerBuildsItsImage: Start with no image option builds the
// image from the mockplatform module in the build list (what a consumer's
// Start(t) does), whatever MOCKD_IMAGE says.
func TestContainerBuildsItsImage(t *testing.T) {
	c := Start(t)
	w := c.World(t)
	if now := w.Now(); now.IsZero() {
		t.Fatalf("Now() = %v (%v)", now, w.Err())
	}
}

// TestContainerWorldsSpeed measures the behaviour suite in one world, then
// in 32 worlds at once, of one container (the median of several runs of
// each), and logs both times and their ratio (the budget is 2x). It runs
// only with MOCKD_MEASURE=1: timings are measured, not asserted.
//
// go test runs at most -parallel tests at once, GOMAXPROCS by default: on a
// 2-CPU machine the 32 suites (7 parallel cases each, a world per case)
// would run two cases at a time and measure go test's limit, not mockd's.
// Run it with -parallel 256:
//
//	MOCKD_MEASURE=1 go test -run TestContainerWorldsSpeed -parallel 256 -v .
func TestContainerWorldsSpeed(t *testing.T) {
	if os.Getenv("MOCKD_MEASURE") == "" {
		t.Skip("set MOCKD_MEASURE=1 to measure")
	}
	if p := flag.Lookup("test.parallel"); p == nil || parallelLimit(p.Value.String()) < 32*7 {
		t.Fatalf("run with -parallel 256 (now %v): go test runs at most that many parallel tests at once", p.Value)
	}
	// A world per case: 32 suites of 7 cases, more than the default limit of 200.
	c := Start(t, imageOpts(mockplatform.WithMaxWorlds(1000))...)
	mockdPID := 0
	if info, err := c.Inspect(t.Context()); err == nil && info.State != nil {
		mockdPID = info.State.Pid
	}
	var cpuSelf, cpuMockd = map[string]time.Duration{}, map[string]time.Duration{}
	suites := map[string]int{}
	run := func(name string, n int) time.Duration {
		self0, _ := procCPU("self")
		mockd0, _ := procCPU(strconv.Itoa(mockdPID))
		defer func() {
			self1, _ := procCPU("self")
			mockd1, _ := procCPU(strconv.Itoa(mockdPID))
			cpuSelf[name] += self1 - self0
			cpuMockd[name] += mockd1 - mockd0
			suites[name] += n
		}()
		start := time.Now()
		t.Run(name, func(t *testing.T) {
			for i := range n {
				t.Run(fmt.Sprint(i), func(t *testing.T) {
					t.Parallel()
					mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return c.World(t) })
				})
			}
		})
		return time.Since(start)
	}
	median := func(name string, n, runs int) time.Duration {
		var ds []time.Duration
		for range runs {
			ds = append(ds, run(name, n))
		}
		slices.Sort(ds)
		return ds[len(ds)/2]
	}
	run("warm-up", 4)
	one := median("1", 1, 9)
	many := median("32", 32, 5)
	t.Logf("behaviour suite in one world: %v; in 32 worlds at once: %v (%.1fx; %.2f ms per world)",
		one, many, float64(many)/float64(one), float64(many.Microseconds())/32/1000)
	// Where the time goes: the CPU one suite costs this test process (the
	// HTTP client and the checks) and mockd (read from /proc where the
	// container runs on this machine's kernel; 0 elsewhere). 32 suites
	// cannot take less wall time than 32 times that over the CPUs.
	perSuite := func(m map[string]time.Duration, name string) time.Duration {
		return m[name] / time.Duration(suites[name])
	}
	client, server := perSuite(cpuSelf, "32"), perSuite(cpuMockd, "32")
	t.Logf("CPU per suite in the 32-world runs: this process %v, mockd %v (one-world runs: %v, %v); "+
		"%d CPUs: 32 suites need at least %v of wall time",
		client, server, perSuite(cpuSelf, "1"), perSuite(cpuMockd, "1"),
		runtime.NumCPU(), 32*(client+server)/time.Duration(runtime.NumCPU()))
}

// procCPU is the user and system CPU time of a process from
// /proc/{pid}/stat (Linux; false elsewhere), in clock ticks of 10 ms.
func procCPU(pid string) (time.Duration, bool) {
	b, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond, true
}

func parallelLimit(v string) int {
	n, _ := strconv.Atoi(v)
	return n
}
