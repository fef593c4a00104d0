package mockplatform

import (
	"slices"
	"testing"
)

// TestBehaviourSuite runs the shared behaviour suite in process, over a
// real listener (the container runs it over the network in
// mockdcontainer).
func TestBehaviourSuite(t *testing.T) {
	RunBehaviourSuite(t, func(t *testing.T) Mock { return Start(t) })
}

// TestBehaviourSuiteNoListener runs it with the in-memory transport.
func TestBehaviourSuiteNoListener(t *testing.T) {
	RunBehaviourSuite(t, func(t *testing.T) Mock { return Start(t, WithoutListener()) })
}

// TestDataFileRestartIDs: a platform reopened on its data file keeps the
// records and issues new conversation IDs that do not collide with the
// stored ones (the seeded generator would otherwise replay them).
func TestDataFileRestartIDs(t *testing.T) {
	path := t.TempDir() + "/mockd.db"
	first := Start(t, WithoutListener(), WithDataFile(path))
	var ids []string
	for range 7 {
		ids = append(ids, suiteCreate(t, first))
	}
	first.Close()

	second := Start(t, WithoutListener(), WithDataFile(path))
	for _, id := range ids {
		suiteStatus(t, suiteRespond(t, second, id, "what are your hours?"), 200)
	}
	for range 3 {
		id := suiteCreate(t, second)
		if slices.Contains(ids, id) {
			t.Fatalf("create after reopening reused %s", id)
		}
		ids = append(ids, id)
	}
}
