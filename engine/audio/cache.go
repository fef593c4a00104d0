package audio

// The audio cache (docs/api.md#audio-cache; docs/fidelity.md G25): an
// agent's synthesized utterances by transcript, language and voice. A new
// text is a pending entry, ready after synthesis on the virtual clock; a
// cached one counts a hit. One "audio_cache" document per agent, uploads as
// "audio_file" documents; generated audio is remade from the seed on read.

import (
	"cmp"
	"errors"
	"strconv"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/internal/wav"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Store kinds of the audio cache.
const (
	DocAudioCache = "audio_cache"
	DocAudioFile  = "audio_file"
)

// DefaultSynthesis is how long a new utterance takes to synthesize.
const DefaultSynthesis = time.Second

// MaxAudioFile bounds an uploaded WAV (6 MB read as MiB; G25).
const MaxAudioFile = 6 << 20

// Default voice of entries whose conversation has no connector voice.
const (
	defaultTTSProvider = "google"
	defaultVoiceSuffix = "-Standard-A"
)

type audioCacheDoc struct {
	AccountID string        `json:"account_id"`
	AgentID   string        `json:"agent_id"`
	Next      int64         `json:"next"` // the next entry id
	Entries   []*audioEntry `json:"entries"`
}

type audioEntry struct {
	ID              int64     `json:"id"`
	Transcript      string    `json:"transcript"`
	Language        string    `json:"language"`
	Provider        string    `json:"provider"`
	ProviderVoiceID string    `json:"provider_voice_id"`
	CachedAt        time.Time `json:"cached_at"` // the end of synthesis
	HitCount        int       `json:"hit_count"`
	// Duration is the audio's length; Pending until synthesis ends at CachedAt.
	Duration    time.Duration  `json:"duration"`
	Pending     bool           `json:"pending,omitempty"`
	Regenerated bool           `json:"regenerated,omitempty"`
	Imported    bool           `json:"imported,omitempty"`
	Filename    *string        `json:"audio_filename,omitempty"`
	Uploaded    bool           `json:"uploaded,omitempty"` // its audio is an audio_file document
	Config      map[string]any `json:"config,omitempty"`   // tuning settings of the last details update
}

// AudioEntryView is an entry as the API answers it (OAS AudioCacheEntry).
type AudioEntryView struct {
	ID              string  `json:"id"`
	Transcript      string  `json:"transcript"`
	CachedAt        string  `json:"cachedAt"`
	HitCount        int     `json:"hitCount"`
	Duration        float64 `json:"duration"`
	Regenerated     bool    `json:"regenerated"`
	Provider        string  `json:"provider"`
	ProviderVoiceID string  `json:"providerVoiceId"`
	AudioFilename   *string `json:"audioFilename"`
	Imported        bool    `json:"imported"`
	LanguageCode    string  `json:"languageCode"`
}

func (e *audioEntry) view() AudioEntryView {
	return AudioEntryView{ID: strconv.FormatInt(e.ID, 10), Transcript: e.Transcript, CachedAt: core.FmtAgentTime(e.CachedAt),
		HitCount: e.HitCount, Duration: e.Duration.Seconds(), Regenerated: e.Regenerated, Provider: e.Provider,
		ProviderVoiceID: e.ProviderVoiceID, AudioFilename: e.Filename, Imported: e.Imported, LanguageCode: e.Language}
}

func (e *audioEntry) sameUtterance(text, lang, provider, voice string) bool {
	return e.Transcript == text && e.Language == lang && e.Provider == provider && e.ProviderVoiceID == voice
}

func (s *Service) synthesis(account, agent string) time.Duration {
	if proj := s.env.View().Account(account).Project(agent); proj != nil && proj.Agent != nil && proj.Agent.AudioCache != nil {
		if d := proj.Agent.AudioCache.Synthesis.D(); d > 0 {
			return d
		}
	}
	return DefaultSynthesis
}

// CacheUtterance caches a voice conversation's text (pending) or counts a
// hit, up to scenario.MaxAudioCacheEntries. Store failures are only logged.
func (s *Service) CacheUtterance(conv *store.Conversation, text string) {
	if !core.IsVoice(conv) || text == "" {
		return
	}
	lang := conv.TTSLanguage
	if lang == "" {
		lang = conv.Language
	}
	provider, voice := defaultTTSProvider, s.agents.ConnectorVoice(conv)
	if voice == "" {
		voice = cmp.Or(lang, "en-US") + defaultVoiceSuffix
	}
	now := s.env.Clock.Now()
	ready := now.Add(s.synthesis(conv.AccountID, conv.ProjectID))
	var created *audioEntry
	err := s.updateAudio(conv.Region, conv.AccountID, conv.ProjectID, func(d *audioCacheDoc) error {
		for _, e := range d.Entries {
			if e.sameUtterance(text, lang, provider, voice) {
				if !e.Pending {
					e.HitCount++
				}
				return nil
			}
		}
		if len(d.Entries) >= scenario.MaxAudioCacheEntries {
			return nil
		}
		created = &audioEntry{ID: d.Next, Transcript: text, Language: lang, Provider: provider, ProviderVoiceID: voice,
			CachedAt: ready, Duration: wav.SpeechDuration(text), Pending: true}
		d.Next++
		d.Entries = append(d.Entries, created)
		return nil
	})
	if err != nil {
		s.env.Log.Error("audio cache: utterance", "conversation", conv.ID, "err", err)
		return
	}
	if created != nil {
		s.armSynthesis(conv.Region, conv.ProjectID, created.ID, ready)
	}
}

func (s *Service) armSynthesis(region, agent string, id int64, at time.Time) {
	s.env.Clock.At(at, func(now time.Time) {
		var d audioCacheDoc
		err := s.env.Store.UpdateDoc(DocAudioCache, region, agent, &d, func() error {
			for _, e := range d.Entries {
				if e.ID == id && e.Pending && !now.Before(e.CachedAt) {
					e.Pending = false
				}
			}
			return nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			s.env.Log.Error("audio cache: synthesis", "agent", agent, "entry", id, "err", err)
		}
	})
}

// Reset rearms the synthesis of stored pending entries.
func (s *Service) Reset() {
	for _, region := range scenario.Regions {
		err := store.ListDocs(s.env.Store, DocAudioCache, region, func(_ string, d *audioCacheDoc) bool {
			for _, e := range d.Entries {
				if e.Pending {
					s.armSynthesis(region, d.AgentID, e.ID, e.CachedAt)
				}
			}
			return true
		})
		if err != nil {
			s.env.Log.Error("audio cache: rearm", "region", region, "err", err)
		}
	}
}

// updateAudio applies fn to an agent's cache in one store update.
func (s *Service) updateAudio(region, account, agent string, fn func(d *audioCacheDoc) error) error {
	for range 2 {
		var d audioCacheDoc
		err := s.env.Store.UpdateDoc(DocAudioCache, region, agent, &d, func() error { return fn(&d) })
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		empty := &audioCacheDoc{AccountID: account, AgentID: agent, Next: 1, Entries: []*audioEntry{}}
		if err := s.env.Store.InsertDoc(DocAudioCache, region, agent, empty); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return errors.New("audio cache: the document vanished twice")
}

// DropAgent removes an agent's audio cache and uploads, under the engine's
// agents lock.
func (s *Service) DropAgent(region, agent string) error {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	var d audioCacheDoc
	if err := s.env.Store.GetDoc(DocAudioCache, region, agent, &d); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	for _, e := range d.Entries {
		if err := s.dropFileLocked(region, agent, e); err != nil {
			return err
		}
	}
	if err := s.env.Store.DeleteDoc(DocAudioCache, region, agent); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

func audioFileID(agent string, id int64) string { return agent + "/" + strconv.FormatInt(id, 10) }

// dropFileLocked deletes an entry's upload, if any. s.cacheMu must be held.
func (s *Service) dropFileLocked(region, agent string, e *audioEntry) error {
	if !e.Uploaded {
		return nil
	}
	if err := s.env.Store.DeleteDoc(DocAudioFile, region, audioFileID(agent, e.ID)); err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	return nil
}

// seedAudioCaches writes every agent's seeded entries, ready, ids from 1.
func seedAudioCaches(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			if proj.Agent == nil || proj.Agent.AudioCache == nil || len(proj.Agent.AudioCache.Entries) == 0 {
				continue
			}
			d := &audioCacheDoc{AccountID: acct.ID, AgentID: proj.ID, Next: 1, Entries: []*audioEntry{}}
			for _, s := range proj.Agent.AudioCache.Entries {
				e := &audioEntry{ID: d.Next, Transcript: s.Transcript, Language: s.Language,
					Provider: cmp.Or(s.Provider, defaultTTSProvider), ProviderVoiceID: s.ProviderVoiceID,
					CachedAt: s.CachedAt.UTC(), HitCount: s.HitCount, Duration: wav.SpeechDuration(s.Transcript), Imported: true}
				if e.ProviderVoiceID == "" {
					e.ProviderVoiceID = cmp.Or(s.Language, "en-US") + defaultVoiceSuffix
				}
				if s.CachedAt.IsZero() {
					e.CachedAt = now
				}
				d.Entries = append(d.Entries, e)
				d.Next++
			}
			if err := st.PutDoc(DocAudioCache, acct.Region, proj.ID, d); err != nil {
				return err
			}
		}
	}
	return nil
}

// Seed writes the seeded voice libraries and audio caches of a scenario.
func Seed(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	if err := seedVoices(st, sc, now); err != nil {
		return err
	}
	return seedAudioCaches(st, sc, now)
}
