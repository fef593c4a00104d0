package audio

// The voice library (docs/api.md#voice-library; docs/fidelity.md G24): an
// account's own voices, one "voice_library" document per account, beside
// the region's fixed curated voices. A sample is a time-limited signed
// address served without a key (VoiceSampleAudio).

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/internal/wav"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DocVoiceLibrary is the store kind of the accounts' voice libraries.
const DocVoiceLibrary = "voice_library"

// Voice library error codes and messages.
const (
	CodeVoiceNotFound    = "VOICE_NOT_FOUND"
	CodeVoiceLimit       = "VOICE_LIBRARY_LIMIT_EXCEEDED"
	CodePolyVoice        = "VOICE_READ_ONLY"
	CodeSampleExpired    = "SAMPLE_URL_EXPIRED"
	CodeSampleSignature  = "SAMPLE_URL_INVALID"
	MsgVoiceNotFound     = "Voice ID does not exist."
	MsgPolyVoice         = "Poly voices cannot be changed."
	MsgSampleExpired     = "The sample address has expired."
	MsgSampleSignature   = "The sample address is not valid."
	SampleExpiresSeconds = 3600
)

// VoiceGenders are the gender filter's values.
var VoiceGenders = []string{"male", "female", "neutral"}

// VoiceView is a voice as answered and stored (OAS VoiceResponse).
type VoiceView struct {
	ID              string         `json:"id"`
	Name            string         `json:"name"`
	Provider        string         `json:"provider"`
	ProviderVoiceID string         `json:"providerVoiceId"`
	Config          map[string]any `json:"config"`
	Metadata        map[string]any `json:"metadata"`
	IsPolyVoice     bool           `json:"isPolyVoice"`
}

// VoiceList is the list answer (OAS ListVoicesResponse).
type VoiceList struct {
	Voices []VoiceView `json:"voices"`
}

// VoiceAnswer is the answer of one voice (OAS GetVoiceResponse).
type VoiceAnswer struct {
	Voice VoiceView `json:"voice"`
}

// VoiceSample is the sample answer (OAS VoiceSampleResponse); the edge
// prefixes SampleURL with its address.
type VoiceSample struct {
	VoiceID          string `json:"voiceId"`
	SampleURL        string `json:"sampleUrl"`
	ExpiresInSeconds int    `json:"expiresInSeconds"`
	Text             string `json:"text"`
}

// VoiceInput is a create or update body: nil fields are not given.
type VoiceInput struct {
	Name, Provider, ProviderVoiceID *string
	Config, Metadata                map[string]any
}

// VoiceFilter selects voices; empty strings and nil select all.
type VoiceFilter struct {
	Language, Gender, Provider string
	IsPolyVoice                *bool
}

// VoiceRules are a voice body's rules (OAS CreateVoiceRequest).
var VoiceRules = map[string]core.FieldRule{
	"name":            {Required: true, MinLen: 1, MaxLen: 100},
	"provider":        {Required: true, MinLen: 1, MaxLen: 100, Doc: "e.g. GOOGLE, OPENAI, ELEVENLABS"},
	"config":          {Required: true, Doc: "Provider-specific voice config (an object)."},
	"providerVoiceId": {Required: true, MinLen: 1, MaxLen: 200},
	"voiceMetadata":   {Doc: "Free metadata (an object); answered as metadata. language and gender are what the list filters."},
}

// polyVoices are each region pair's curated voices ([3P] defaults, the
// rest [INF]).
var polyVoices = map[string][]VoiceView{
	"us": {
		{ID: "VOICE-6fad73f6", Name: "Anne", Provider: "GOOGLE", ProviderVoiceID: "en-US-Neural2-F",
			Metadata: map[string]any{"language": "en-US", "gender": "female"}},
		{ID: "VOICE-071db756", Name: "Aria", Provider: "GOOGLE", ProviderVoiceID: "en-US-Neural2-C",
			Metadata: map[string]any{"language": "en-US", "gender": "female"}},
	},
	"eu": {{ID: "VOICE-8b814724", Name: "Ben", Provider: "GOOGLE", ProviderVoiceID: "en-GB-Neural2-B",
		Metadata: map[string]any{"language": "en-GB", "gender": "male"}}},
	"uk": {{ID: "VOICE-37966683", Name: "Ben", Provider: "GOOGLE", ProviderVoiceID: "en-GB-Neural2-D",
		Metadata: map[string]any{"language": "en-GB", "gender": "male"}}},
}

// PolyVoices are copies of a region pair's curated voices.
func PolyVoices(region string) []VoiceView {
	out := make([]VoiceView, 0, len(polyVoices[region]))
	for _, v := range polyVoices[region] {
		v.Config, v.Metadata, v.IsPolyVoice = map[string]any{}, maps.Clone(v.Metadata), true
		out = append(out, v)
	}
	return out
}

type voiceLibDoc struct {
	AccountID string       `json:"account_id"`
	Voices    []*VoiceView `json:"voices"`
}

func errVoiceNotFound() error {
	return core.Errf(core.KindNotFound, CodeVoiceNotFound, MsgVoiceNotFound)
}

func (s *Service) voiceLibrary(p *core.Principal) ([]*VoiceView, error) {
	var d voiceLibDoc
	err := s.env.Store.GetDoc(DocVoiceLibrary, p.Region, p.Account.ID, &d)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	return d.Voices, nil
}

// Voices lists the region's curated voices, then the account's own, that
// match f (provider in any case).
func (s *Service) Voices(p *core.Principal, f VoiceFilter) ([]VoiceView, error) {
	own, err := s.voiceLibrary(p)
	if err != nil {
		return nil, err
	}
	all := PolyVoices(p.Region)
	for _, v := range own {
		all = append(all, *v)
	}
	out := []VoiceView{}
	for _, v := range all {
		switch {
		case f.IsPolyVoice != nil && *f.IsPolyVoice != v.IsPolyVoice,
			f.Language != "" && v.Metadata["language"] != f.Language,
			f.Gender != "" && v.Metadata["gender"] != f.Gender,
			f.Provider != "" && !strings.EqualFold(v.Provider, f.Provider):
			continue
		}
		out = append(out, v)
	}
	return out, nil
}

// Voice reads a curated or own voice of the account.
func (s *Service) Voice(p *core.Principal, id string) (*VoiceView, error) {
	all, err := s.Voices(p, VoiceFilter{})
	if err != nil {
		return nil, err
	}
	if i := slices.IndexFunc(all, func(v VoiceView) bool { return v.ID == id }); i >= 0 {
		return &all[i], nil
	}
	return nil, errVoiceNotFound()
}

// CreateVoice adds a voice with a fresh VOICE- id to the account's library
// (at most scenario.MaxVoices).
func (s *Service) CreateVoice(p *core.Principal, in VoiceInput) (*VoiceView, error) {
	v := &VoiceView{Name: core.Deref(in.Name), Provider: core.Deref(in.Provider), ProviderVoiceID: core.Deref(in.ProviderVoiceID),
		Config: orEmpty(in.Config), Metadata: orEmpty(in.Metadata)}
	err := s.updateVoices(p, func(d *voiceLibDoc) error {
		if len(d.Voices) >= scenario.MaxVoices {
			return core.Errf(core.KindInvalid, CodeVoiceLimit, "The voice library holds at most %d voices.", scenario.MaxVoices)
		}
		for v.ID == "" || slices.ContainsFunc(d.Voices, func(x *VoiceView) bool { return x.ID == v.ID }) ||
			slices.ContainsFunc(polyVoices[p.Region], func(x VoiceView) bool { return x.ID == v.ID }) {
			v.ID = s.env.IDs.NewID("VOICE-", core.HexDigits, 8)
		}
		d.Voices = append(d.Voices, v)
		return nil
	})
	return v, err
}

// UpdateVoice changes the given fields of an own voice; a curated one is
// 403.
func (s *Service) UpdateVoice(p *core.Principal, id string, in VoiceInput) (*VoiceView, error) {
	if slices.ContainsFunc(polyVoices[p.Region], func(x VoiceView) bool { return x.ID == id }) {
		return nil, core.Errf(core.KindForbidden, CodePolyVoice, MsgPolyVoice)
	}
	var out *VoiceView
	err := s.updateVoices(p, func(d *voiceLibDoc) error {
		i := slices.IndexFunc(d.Voices, func(x *VoiceView) bool { return x.ID == id })
		if i < 0 {
			return errVoiceNotFound()
		}
		v := d.Voices[i]
		for dst, src := range map[*string]*string{&v.Name: in.Name, &v.Provider: in.Provider, &v.ProviderVoiceID: in.ProviderVoiceID} {
			if src != nil {
				*dst = *src
			}
		}
		if in.Config != nil {
			v.Config = in.Config
		}
		if in.Metadata != nil {
			v.Metadata = in.Metadata
		}
		out = v
		return nil
	})
	return out, err
}

// updateVoices applies fn to the account's library in one store update.
func (s *Service) updateVoices(p *core.Principal, fn func(d *voiceLibDoc) error) error {
	s.voiceMu.Lock()
	defer s.voiceMu.Unlock()
	var d voiceLibDoc
	err := s.env.Store.UpdateDoc(DocVoiceLibrary, p.Region, p.Account.ID, &d, func() error { return fn(&d) })
	if !errors.Is(err, store.ErrNotFound) {
		return err
	}
	d = voiceLibDoc{AccountID: p.Account.ID, Voices: []*VoiceView{}}
	if err := fn(&d); err != nil {
		return err
	}
	return s.env.Store.PutDoc(DocVoiceLibrary, p.Region, p.Account.ID, &d)
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}

// VoiceSample is a voice's sample text and signed audio path, valid for
// SampleExpiresSeconds.
func (s *Service) VoiceSample(p *core.Principal, id string) (*VoiceSample, error) {
	v, err := s.Voice(p, id)
	if err != nil {
		return nil, err
	}
	exp := strconv.FormatInt(s.env.Clock.Now().Add(SampleExpiresSeconds*time.Second).Unix(), 10)
	path := fmt.Sprintf("/v1/accounts/%s/voice-library/%s/sample.wav?expires=%s&signature=%s",
		p.Account.ID, v.ID, exp, s.sampleSignature(p.Region, p.Account.ID, v.ID, exp))
	return &VoiceSample{VoiceID: v.ID, SampleURL: path, ExpiresInSeconds: SampleExpiresSeconds, Text: sampleText(v)}, nil
}

func sampleText(v *VoiceView) string { return "Hello, I am " + v.Name + "." }

// sampleSignature signs a sample address with a key of the scenario's
// seed, so any altered part fails.
func (s *Service) sampleSignature(region, account, voice, expires string) string {
	key := sha256.Sum256([]byte("voice-sample:" + strconv.FormatInt(s.env.View().Scenario().Seed, 10)))
	m := hmac.New(sha256.New, key[:])
	m.Write([]byte(region + "\n" + account + "\n" + voice + "\n" + expires))
	return hex.EncodeToString(m.Sum(nil))
}

// VoiceSampleAudio is the audio of a sample address: 403 when altered or
// expired; the voice must still exist.
func (s *Service) VoiceSampleAudio(region, account, voice, expires, signature string) ([]byte, error) {
	acct := s.env.View().Account(account)
	exp, err := strconv.ParseInt(expires, 10, 64)
	if acct == nil || acct.Region != region || err != nil ||
		!hmac.Equal([]byte(signature), []byte(s.sampleSignature(region, acct.ID, voice, expires))) {
		return nil, core.Errf(core.KindForbidden, CodeSampleSignature, MsgSampleSignature)
	}
	if s.env.Clock.Now().Unix() > exp {
		return nil, core.Errf(core.KindForbidden, CodeSampleExpired, MsgSampleExpired)
	}
	v, err := s.Voice(&core.Principal{Account: acct, Region: region}, voice)
	if err != nil {
		return nil, err
	}
	return wav.Speech(uint64(s.env.View().Scenario().Seed), v.Provider+"/"+v.ProviderVoiceID, sampleText(v)), nil
}

// seedVoices writes every account's seeded voices (missing ids: VOICE-
// and a hash of account and place).
func seedVoices(st *store.Store, sc *scenario.Scenario, _ time.Time) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		if len(acct.Voices) == 0 {
			continue
		}
		d := &voiceLibDoc{AccountID: acct.ID, Voices: []*VoiceView{}}
		for i, sv := range acct.Voices {
			id := sv.ID
			if id == "" {
				sum := sha256.Sum256([]byte(acct.ID + "/" + strconv.Itoa(i)))
				id = "VOICE-" + hex.EncodeToString(sum[:4])
			}
			d.Voices = append(d.Voices, &VoiceView{ID: id, Name: sv.Name, Provider: sv.Provider, ProviderVoiceID: sv.ProviderVoiceID,
				Config: orEmpty(maps.Clone(sv.Config)), Metadata: orEmpty(maps.Clone(sv.Metadata))})
		}
		if err := st.PutDoc(DocVoiceLibrary, acct.Region, acct.ID, d); err != nil {
			return err
		}
	}
	return nil
}
