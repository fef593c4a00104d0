package mockplatform

import (
	"path/filepath"
	"testing"
	"time"
)

// TestAudioCacheDataFile: a pending entry kept in a data file becomes
// ready on the clock of the instance that reopens it (its synthesis is
// armed again when the instance loads).
func TestAudioCacheDataFile(t *testing.T) {
	t.Parallel()
	file := filepath.Join(t.TempDir(), "mock.db")
	p1 := newPlatform(t, WithDataFile(file))
	if _, err := p1.Dial("+14155550150", ""); err != nil {
		t.Fatal(err)
	}
	p1.Close()

	p2 := newPlatform(t, WithDataFile(file))
	c := p2.Client()
	u := p2.BuilderURL("us") + "/v1/agents/support/audio-cache"
	list := func() float64 {
		t.Helper()
		r := send(t, c, "GET", u, nil, "x-api-key", "test-builder-key")
		mustStatus(t, r, 200)
		return r.object(t)["totalCount"].(float64)
	}
	if n := list(); n != 0 {
		t.Fatalf("%v entries before synthesis ends", n)
	}
	p2.Advance(time.Second)
	if n := list(); n != 1 {
		t.Fatalf("%v entries once synthesis ended, want 1", n)
	}
}
