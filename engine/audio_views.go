package engine

// What the console and the overview read of the voice libraries and the
// audio caches, and the rules of the audio cache's bodies.

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// SynthesizeRules are the rules of a preview's body (OAS
// SynthesizeAudioRequest; the length [INF]).
var SynthesizeRules = map[string]FieldRule{
	"text":     {Required: true, MinLen: 1, MaxLen: scenario.MaxTranscript},
	"config":   {Required: true, Doc: "VoiceTuningConfig: every field optional."},
	"language": {Pattern: scenario.LangCodeRE, Doc: "A BCP-47 tag, e.g. en-US."},
}

// ParseAudioSettings reads the settings part of a details update: a JSON
// object with text (1 to 5000 characters) and config (a
// VoiceTuningConfig, optional).
func ParseAudioSettings(raw []byte) (*AudioSettings, error) {
	var m map[string]json.RawMessage
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '{' || CheckJSON(b) != nil || json.Unmarshal(b, &m) != nil {
		return nil, Errf(KindInvalid, CodeAudioSettings, MsgAudioSettings)
	}
	var s AudioSettings
	var fields []FieldError
	if err := json.Unmarshal(m["text"], &s.Text); err != nil || s.Text == "" || len([]rune(s.Text)) > scenario.MaxTranscript {
		fields = append(fields, FieldError{Field: "settings/text", Message: "must be a string of 1 to 5000 characters"})
	}
	if raw, ok := m["config"]; ok {
		var errs []FieldError
		s.Config, errs = TuningConfig("settings/config", raw)
		fields = append(fields, errs...)
	}
	if fields != nil {
		return nil, Invalid(CodeAudioSettings, MsgAudioSettings, fields...)
	}
	return &s, nil
}

// CountVoices counts the accounts' own voices.
func (a *Engine) CountVoices() (int, error) {
	n := 0
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, DocVoiceLibrary, region, func(_ string, d *voiceLibDoc) bool {
			n += len(d.Voices)
			return true
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// CountAudioEntries counts the agents' audio cache entries, pending ones
// included.
func (a *Engine) CountAudioEntries() (int, error) {
	n := 0
	err := a.eachAudioCache(func(_ string, d *audioCacheDoc) { n += len(d.Entries) })
	return n, err
}

func (a *Engine) eachAudioCache(fn func(region string, d *audioCacheDoc)) error {
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, DocAudioCache, region, func(_ string, d *audioCacheDoc) bool {
			fn(region, d)
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// AgentAudio is an agent's audio cache as the console shows it: every
// entry, pending ones with the time synthesis ends.
type AgentAudio struct {
	Region    string       `json:"region"`
	AccountID string       `json:"account_id"`
	AgentID   string       `json:"agent_id"`
	Entries   []AudioEntry `json:"entries"`
}

// AudioEntry is an entry as the console shows it.
type AudioEntry struct {
	AudioEntryView
	// Status is pending until ReadyAt, then ready.
	Status  string    `json:"status"`
	ReadyAt time.Time `json:"ready_at"`
}

// AudioCaches lists every agent's audio cache, by region and agent id.
func (a *Engine) AudioCaches() ([]AgentAudio, error) {
	var out []AgentAudio
	err := a.eachAudioCache(func(region string, d *audioCacheDoc) {
		ag := AgentAudio{Region: region, AccountID: d.AccountID, AgentID: d.AgentID, Entries: []AudioEntry{}}
		for _, e := range d.Entries {
			st := "ready"
			if e.Pending {
				st = "pending"
			}
			ag.Entries = append(ag.Entries, AudioEntry{AudioEntryView: e.view(), Status: st, ReadyAt: e.CachedAt})
		}
		out = append(out, ag)
	})
	return out, err
}

// AccountVoices is an account's voice library as the console shows it.
type AccountVoices struct {
	Region    string      `json:"region"`
	AccountID string      `json:"account_id"`
	Voices    []VoiceView `json:"voices"`
}

// VoiceLibraries lists every scenario account's voices, curated and own.
func (a *Engine) VoiceLibraries() ([]AccountVoices, error) {
	var out []AccountVoices
	for _, acct := range a.View().Scenario().Accounts {
		vs, err := a.Voices(&Principal{Account: &acct, Region: acct.Region}, VoiceFilter{})
		if err != nil {
			return nil, err
		}
		out = append(out, AccountVoices{Region: acct.Region, AccountID: acct.ID, Voices: vs})
	}
	slices.SortStableFunc(out, func(x, y AccountVoices) int { return strings.Compare(x.AccountID, y.AccountID) })
	return out, nil
}
