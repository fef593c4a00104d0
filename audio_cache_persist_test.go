package mockplatform

import (
	"path/filepath"
	"strings"
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

// TestVoiceAndAudioWorlds: each world has its own audio caches and voice
// libraries, and a world's sample address is the world's.
func TestVoiceAndAudioWorlds(t *testing.T) {
	t.Parallel()
	host := Start(t)
	a, b := host.World(t), host.World(t)
	c := host.Client()
	key := []string{"x-api-key", "test-builder-key"}
	count := func(w *Platform) float64 {
		t.Helper()
		r := send(t, c, "GET", w.BuilderURL("us")+"/v1/agents/support/audio-cache", nil, key...)
		mustStatus(t, r, 200)
		return r.object(t)["totalCount"].(float64)
	}
	if _, err := a.Dial("+14155550150", ""); err != nil {
		t.Fatal(err)
	}
	a.Advance(time.Second)
	b.Advance(time.Second)
	if na, nb := count(a), count(b); na != 1 || nb != 0 {
		t.Fatalf("entries: world a %v, world b %v", na, nb)
	}
	mustStatus(t, send(t, c, "POST", a.BuilderURL("us")+"/v1/accounts/acme/voice-library", map[string]any{"name": "A", "provider": "GOOGLE",
		"providerVoiceId": "v", "config": map[string]any{}}, key...), 200)
	r := send(t, c, "GET", b.BuilderURL("us")+"/v1/accounts/acme/voice-library?isPolyVoice=false", nil, key...)
	mustJSON(t, r, map[string]any{"voices": []any{}})
	sample := send(t, c, "GET", a.BuilderURL("us")+"/v1/accounts/acme/voice-library/VOICE-6fad73f6/sample", nil, key...).object(t)
	u := sample["sampleUrl"].(string)
	if want := a.BuilderURL("us") + "/v1/accounts/1001/voice-library/VOICE-6fad73f6/sample.wav?"; !strings.HasPrefix(u, want) {
		t.Fatalf("sampleUrl %s, want it below %s", u, want)
	}
	mustStatus(t, send(t, c, "GET", u, nil), 200)
}
