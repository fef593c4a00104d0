package mockplatform_test

import (
	"slices"
	"testing"

	"github.com/agentplatform/mockplatform"
	"github.com/agentplatform/mockplatform/mocktest"
)

// TestBehaviourSuite runs the shared behaviour suite in process, over a
// real listener (the container runs it over the network in
// mockdcontainer).
func TestBehaviourSuite(t *testing.T) {
	t.Parallel()
	mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return mockplatform.Start(t) })
}

// TestBehaviourSuiteNoListener runs it with the in-memory transport.
func TestBehaviourSuiteNoListener(t *testing.T) {
	t.Parallel()
	mocktest.RunBehaviourSuite(t, func(t *testing.T) mockplatform.Mock { return mockplatform.Start(t, mockplatform.WithoutListener()) })
}

// TestDataFileRestartIDs: a platform reopened on its data file keeps the
// records and issues new conversation IDs that do not collide with the
// stored ones (the seeded generator would otherwise replay them).
func TestDataFileRestartIDs(t *testing.T) {
	t.Parallel()
	path := t.TempDir() + "/mockd.db"
	first := mockplatform.Start(t, mockplatform.WithoutListener(), mockplatform.WithDataFile(path))
	var ids []string
	for range 7 {
		ids = append(ids, mocktest.ChatCreate(t, first))
	}
	first.Close()

	second := mockplatform.Start(t, mockplatform.WithoutListener(), mockplatform.WithDataFile(path))
	for _, id := range ids {
		mocktest.MustStatus(t, mocktest.ChatRespond(t, second, id, "what are your hours?"), 200)
	}
	for range 3 {
		id := mocktest.ChatCreate(t, second)
		if slices.Contains(ids, id) {
			t.Fatalf("create after reopening reused %s", id)
		}
		ids = append(ids, id)
	}
}
