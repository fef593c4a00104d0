package mockplatform_test

import (
	"fmt"
	"testing"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
)

// TestWorldsBehaviourSuite runs the behaviour suite in many worlds of one
// platform at once (every case of every copy in a world of its own, all in
// parallel): under -race this shows that worlds share nothing that one
// case's clock advances, faults, resets or scenario loads could reach.
func TestWorldsBehaviourSuite(t *testing.T) {
	t.Parallel()
	host := mockplatform.Start(t)
	const copies = 8
	for i := range copies {
		t.Run(fmt.Sprint(i), func(t *testing.T) {
			t.Parallel()
			mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return host.World(t) })
		})
	}
	t.Cleanup(func() {
		if n := len(host.Worlds()); n != 0 {
			t.Errorf("%d worlds left after the suites", n)
		}
	})
}
