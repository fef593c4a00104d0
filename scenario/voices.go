package scenario

// The voice blocks: an account's voice library and agents' audio caches.

import (
	"regexp"
	"time"
)

// Voice is a voice of the account's voice library (the Agents API's
// .../voice-library).
type Voice struct {
	// ID is the voice id, unique in the account (default VOICE- and 8 hex
	// digits derived from the account and the voice's place in the list).
	ID string `yaml:"id" json:"id,omitempty"`
	// Name is the display name (required, 1 to 100 characters).
	Name string `yaml:"name" json:"name"`
	// Provider is the TTS provider, e.g. GOOGLE or ELEVENLABS (required).
	Provider string `yaml:"provider" json:"provider"`
	// ProviderVoiceID is the voice's id at its provider (required).
	ProviderVoiceID string `yaml:"provider_voice_id" json:"provider_voice_id"`
	// Config is the provider-specific voice config (default {}).
	Config map[string]any `yaml:"config" json:"config,omitempty"`
	// Metadata is free metadata; its language and gender are what the
	// list filters read (default {}).
	Metadata map[string]any `yaml:"metadata" json:"metadata,omitempty"`
}

// AudioCache is the audio cache of an agent: how long synthesis takes
// and the entries it starts with.
type AudioCache struct {
	// Synthesis is how long an utterance not cached yet takes to
	// synthesize on the virtual clock (default 1s, at most 1h).
	Synthesis Duration `yaml:"synthesis" json:"synthesis,omitempty"`
	// Entries are the cached utterances at start, ready, marked imported.
	Entries []AudioCacheEntry `yaml:"entries" json:"entries,omitempty"`
}

// AudioCacheEntry is a cached utterance.
type AudioCacheEntry struct {
	// Transcript is what is said (required, 1 to 5000 characters).
	Transcript string `yaml:"transcript" json:"transcript"`
	// Language is its BCP-47 code, e.g. en-US (default "", as legacy
	// entries).
	Language string `yaml:"language" json:"language,omitempty"`
	// Provider is the TTS provider (default google).
	Provider string `yaml:"provider" json:"provider,omitempty"`
	// ProviderVoiceID is the voice at the provider (default
	// en-US-Standard-A).
	ProviderVoiceID string `yaml:"provider_voice_id" json:"provider_voice_id,omitempty"`
	// HitCount is how many times it was served from the cache (default 0).
	HitCount int `yaml:"hit_count" json:"hit_count,omitempty"`
	// CachedAt is when it was cached (default the clock's start).
	CachedAt time.Time `yaml:"cached_at" json:"cached_at,omitzero"`
}

// Bounds of the voice blocks.
const (
	MaxVoices            = 1_000
	MaxAudioCacheEntries = 1_000
	MaxTranscript        = 5_000
	MaxSynthesis         = time.Hour
)

// VoiceIDRE is the form of a voice id.
var VoiceIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// voices validates voice libraries and audio caches.
func (v *validator) voices(s *Scenario) {
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		v.tooMany(ap.with("voices"), len(a.Voices), MaxVoices, "voices")
		ids := map[string]path{}
		for k, vc := range a.Voices {
			p := ap.with("voices", k)
			if vc.ID != "" && !VoiceIDRE.MatchString(vc.ID) {
				v.reportf(p.with("id"), "invalid voice id %q (want letters, digits, dashes and underscores)", vc.ID)
			}
			v.unique(ids, vc.ID, p.with("id"), "voice id")
			v.text(p.with("name"), vc.Name, 100)
			v.text(p.with("provider"), vc.Provider, 100)
			v.text(p.with("provider_voice_id"), vc.ProviderVoiceID, 200)
		}
		for j := range a.Projects {
			ag := a.Projects[j].Agent
			if ag == nil || ag.AudioCache == nil {
				continue
			}
			p := ap.with("projects", j, "agent", "audio_cache")
			if d := ag.AudioCache.Synthesis.D(); d < 0 || d > MaxSynthesis {
				v.reportf(p.with("synthesis"), "must be from 0s to 1h")
			}
			v.tooMany(p.with("entries"), len(ag.AudioCache.Entries), MaxAudioCacheEntries, "audio cache entries")
			for k, e := range ag.AudioCache.Entries {
				ep := p.with("entries", k)
				v.text(ep.with("transcript"), e.Transcript, MaxTranscript)
				if e.Language != "" && !LangCodeRE.MatchString(e.Language) {
					v.reportf(ep.with("language"), "invalid language code %q (want e.g. en-US)", e.Language)
				}
				if e.HitCount < 0 {
					v.reportf(ep.with("hit_count"), "must not be negative")
				}
			}
		}
	}
}

// text reports a required string that is empty or over max characters.
func (v *validator) text(p path, s string, max int) {
	switch n := len([]rune(s)); {
	case n == 0:
		v.reportf(p, "required")
	case n > max:
		v.reportf(p, "must be at most %d characters (it is %d)", max, n)
	}
}
