package mockdcontainer

import (
	"fmt"
	"os"
	"slices"
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
func TestContainerWorldsSpeed(t *testing.T) {
	if os.Getenv("MOCKD_MEASURE") == "" {
		t.Skip("set MOCKD_MEASURE=1 to measure")
	}
	c := Start(t, imageOpts()...)
	run := func(name string, n int) time.Duration {
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
}
