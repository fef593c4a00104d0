package audio

// Console views of voice libraries and audio caches, and the query and
// non-JSON body readers.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"mime"
	"mime/multipart"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/internal/jsoncheck"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Request bodies as the OpenAPI document describes them.
type (
	// VoiceBody is a voice create or update body (OAS CreateVoiceRequest).
	VoiceBody struct {
		Name            string         `json:"name"`
		Provider        string         `json:"provider"`
		Config          map[string]any `json:"config"`
		ProviderVoiceID string         `json:"providerVoiceId"`
		VoiceMetadata   map[string]any `json:"voiceMetadata"`
	}
	// BulkDeleteBody is a bulk delete's body (OAS BulkDeleteAudioCacheRequest).
	BulkDeleteBody struct {
		IDs []string `json:"ids"`
	}
	// SynthesizeBody is a preview's body (OAS SynthesizeAudioRequest).
	SynthesizeBody struct {
		Text     string            `json:"text"`
		Config   VoiceTuningConfig `json:"config"`
		Language string            `json:"language"`
	}
)

func (VoiceBody) FieldRules() map[string]core.FieldRule      { return VoiceRules }
func (SynthesizeBody) FieldRules() map[string]core.FieldRule { return SynthesizeRules }
func (BulkDeleteBody) FieldRules() map[string]core.FieldRule {
	return map[string]core.FieldRule{"ids": {Required: true, MinItems: 1, MaxItems: AudioBulkMax}}
}

// SynthesizeRules are a preview body's rules (OAS SynthesizeAudioRequest).
var SynthesizeRules = map[string]core.FieldRule{
	"text":     {Required: true, MinLen: 1, MaxLen: scenario.MaxTranscript},
	"config":   {Required: true, Doc: "VoiceTuningConfig: every field optional."},
	"language": {Pattern: scenario.LangCodeRE, Doc: "A BCP-47 tag, e.g. en-US."},
}

// ParseAudioSettings reads a details update's settings: text and an
// optional VoiceTuningConfig.
func ParseAudioSettings(raw []byte) (*AudioSettings, error) {
	var m map[string]json.RawMessage
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '{' || jsoncheck.Check(b) != nil || json.Unmarshal(b, &m) != nil {
		return nil, core.Errf(core.KindInvalid, CodeAudioSettings, MsgAudioSettings)
	}
	var s AudioSettings
	var fields []core.FieldError
	if err := json.Unmarshal(m["text"], &s.Text); err != nil || s.Text == "" || len([]rune(s.Text)) > scenario.MaxTranscript {
		fields = append(fields, core.FieldError{Field: "settings/text", Message: "must be a string of 1 to 5000 characters"})
	}
	if raw, ok := m["config"]; ok {
		var errs []core.FieldError
		s.Config, errs = TuningConfig("settings/config", raw)
		fields = append(fields, errs...)
	}
	if fields != nil {
		return nil, core.Invalid(CodeAudioSettings, MsgAudioSettings, fields...)
	}
	return &s, nil
}

// CountVoices counts the accounts' own voices.
func (s *Service) CountVoices() (int, error) {
	n := 0
	for _, region := range scenario.Regions {
		err := store.ListDocs(s.env.Store, DocVoiceLibrary, region, func(_ string, d *voiceLibDoc) bool {
			n += len(d.Voices)
			return true
		})
		if err != nil {
			return 0, err
		}
	}
	return n, nil
}

// CountAudioEntries counts the audio cache entries, pending included.
func (s *Service) CountAudioEntries() (int, error) {
	n := 0
	err := s.eachAudioCache(func(_ string, d *audioCacheDoc) { n += len(d.Entries) })
	return n, err
}

func (s *Service) eachAudioCache(fn func(region string, d *audioCacheDoc)) error {
	for _, region := range scenario.Regions {
		err := store.ListDocs(s.env.Store, DocAudioCache, region, func(_ string, d *audioCacheDoc) bool {
			fn(region, d)
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// AgentAudio is an agent's audio cache as the console shows it.
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
func (s *Service) AudioCaches() ([]AgentAudio, error) {
	var out []AgentAudio
	err := s.eachAudioCache(func(region string, d *audioCacheDoc) {
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
func (s *Service) VoiceLibraries() ([]AccountVoices, error) {
	var out []AccountVoices
	for _, acct := range s.env.View().Scenario().Accounts {
		vs, err := s.Voices(&core.Principal{Account: &acct, Region: acct.Region}, VoiceFilter{})
		if err != nil {
			return nil, err
		}
		out = append(out, AccountVoices{Region: acct.Region, AccountID: acct.ID, Voices: vs})
	}
	slices.SortStableFunc(out, func(x, y AccountVoices) int { return strings.Compare(x.AccountID, y.AccountID) })
	return out, nil
}

// ParseAudioQuery reads a list's query: limit, offset, sort.
func ParseAudioQuery(q url.Values) (AudioCacheQuery, error) {
	var errs []core.FieldError
	num := func(name string, lo, hi, def int) int {
		s, ok := q[name]
		if !ok {
			return def
		}
		n, err := strconv.Atoi(s[0])
		if err != nil || n < lo || n > hi {
			errs = append(errs, core.FieldError{Field: name, Message: fmt.Sprintf("must be an integer from %d to %d", lo, hi)})
		}
		return n
	}
	out := AudioCacheQuery{Limit: num("limit", 1, AudioListMax, AudioListDefault), Offset: num("offset", 0, math.MaxInt32, 0), Sort: q.Get("sort")}
	if errs != nil {
		return out, core.Invalid(core.CodeValidation, core.MsgValidationFailed, errs...)
	}
	return out, nil
}

// ParseVoiceFilter reads a voice list's query.
func ParseVoiceFilter(q url.Values) (VoiceFilter, error) {
	f := VoiceFilter{Language: q.Get("language"), Gender: q.Get("gender"), Provider: q.Get("provider")}
	var errs []core.FieldError
	if v, ok := q["isPolyVoice"]; ok {
		b, err := strconv.ParseBool(v[0])
		if err != nil || (v[0] != "true" && v[0] != "false") {
			errs = append(errs, core.FieldError{Field: "isPolyVoice", Message: "must be a boolean"})
		}
		f.IsPolyVoice = &b
	}
	if f.Gender != "" && !slices.Contains(VoiceGenders, f.Gender) {
		errs = append(errs, core.FieldError{Field: "gender", Message: "must be one of: " + strings.Join(VoiceGenders, ", ")})
	}
	if errs != nil {
		return f, core.Invalid(core.CodeValidation, core.MsgValidationFailed, errs...)
	}
	return f, nil
}

// ParseAudioForm reads a details update's multipart form: file and
// settings parts.
func ParseAudioForm(contentType string, body []byte) (AudioUpload, error) {
	var up AudioUpload
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || mt != "multipart/form-data" || params["boundary"] == "" {
		return up, core.Invalid(core.CodeValidation, "Request body must be multipart/form-data with a file part and a settings part.")
	}
	var settings []byte
	hasFile := false
	mr := multipart.NewReader(bytes.NewReader(body), params["boundary"])
	for {
		part, err := mr.NextPart()
		if err == io.EOF {
			break
		}
		var data []byte
		if err == nil {
			data, err = io.ReadAll(part)
		}
		if err != nil {
			return up, core.Invalid(core.CodeValidation, "Request body is not a valid multipart form.")
		}
		switch part.FormName() {
		case "file":
			up.Data, up.Filename, hasFile = data, part.FileName(), true
		case "settings":
			settings = data
		}
	}
	if !hasFile || len(up.Data) == 0 {
		return up, core.Errf(core.KindInvalid, CodeAudioFileRequired, MsgAudioFilePart)
	}
	up.Settings, err = ParseAudioSettings(settings)
	return up, err
}
