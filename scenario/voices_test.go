package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const voicesBase = `accounts:
  - slug: acme
    id: "1001"
`

func TestVoiceBlocks(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "v.yaml", voicesBase+`    voices:
      - {id: VOICE-00c0ffee, name: Nova, provider: ELEVENLABS, provider_voice_id: 21m00Tcm4TlvDq8ikWAM, metadata: {language: en-US, gender: female}}
      - {name: Plain, provider: GOOGLE, provider_voice_id: en-GB-Neural2-B}
    projects:
      - slug: support
        id: "2001"
        agent:
          audio_cache:
            synthesis: 250ms
            entries:
              - {transcript: Hello., language: en-US, hit_count: 3, cached_at: 2026-01-01T00:00:00Z}
              - {transcript: Goodbye!}
`)
	a := s.Accounts[0]
	want := []Voice{
		{ID: "VOICE-00c0ffee", Name: "Nova", Provider: "ELEVENLABS", ProviderVoiceID: "21m00Tcm4TlvDq8ikWAM",
			Metadata: map[string]any{"language": "en-US", "gender": "female"}},
		{Name: "Plain", Provider: "GOOGLE", ProviderVoiceID: "en-GB-Neural2-B"},
	}
	if diff := cmp.Diff(want, a.Voices); diff != "" {
		t.Fatalf("voices (-want +got):\n%s", diff)
	}
	ac := a.Projects[0].Agent.AudioCache
	wantAC := &AudioCache{Synthesis: Duration(250 * time.Millisecond), Entries: []AudioCacheEntry{
		{Transcript: "Hello.", Language: "en-US", HitCount: 3, CachedAt: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		{Transcript: "Goodbye!"},
	}}
	if diff := cmp.Diff(wantAC, ac); diff != "" {
		t.Fatalf("audio cache (-want +got):\n%s", diff)
	}

	long := strings.Repeat("a", MaxTranscript+1)
	cases := map[string]struct{ doc, want string }{
		"voice name":     {"    voices: [{provider: G, provider_voice_id: x}]", "voices[0].name: required"},
		"voice provider": {"    voices: [{name: a, provider_voice_id: x}]", "voices[0].provider: required"},
		"voice pvid":     {"    voices: [{name: a, provider: G}]", "voices[0].provider_voice_id: required"},
		"voice id":       {"    voices: [{id: 'a b', name: a, provider: G, provider_voice_id: x}]", "invalid voice id"},
		"voice dup":      {"    voices: [{id: v, name: a, provider: G, provider_voice_id: x}, {id: v, name: b, provider: G, provider_voice_id: x}]", "duplicate voice id"},
		"voice long":     {"    voices: [{name: " + strings.Repeat("n", 101) + ", provider: G, provider_voice_id: x}]", "at most 100 characters"},
		"transcript":     {"    projects: [{slug: s, id: '1', agent: {audio_cache: {entries: [{language: en-US}]}}}]", "entries[0].transcript: required"},
		"long text":      {"    projects: [{slug: s, id: '1', agent: {audio_cache: {entries: [{transcript: " + long + "}]}}}]", "at most 5000 characters"},
		"language":       {"    projects: [{slug: s, id: '1', agent: {audio_cache: {entries: [{transcript: a, language: English}]}}}]", "invalid language code"},
		"hits":           {"    projects: [{slug: s, id: '1', agent: {audio_cache: {entries: [{transcript: a, hit_count: -1}]}}}]", "must not be negative"},
		"synthesis":      {"    projects: [{slug: s, id: '1', agent: {audio_cache: {synthesis: 2h}}}]", "synthesis: must be from 0s to 1h"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, voicesBase+tc.doc+"\n")
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
}

func TestVoiceBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(voicesBase + "    voices:\n")
	for range MaxVoices + 1 {
		b.WriteString("      - {name: a, provider: G, provider_voice_id: x}\n")
	}
	got := problems(t, b.String())
	if len(got) != 1 || !strings.Contains(got[0], "more than 1000 voices") {
		t.Fatalf("problems %q", got)
	}
}
