package audio

// The audio cache's operations (docs/api.md#audio-cache). Entry ids in
// paths are numeric (else 400); unknown or pending entries are 404.

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/internal/wav"
	"github.com/agentplatform/mockplatform/store"
)

// Audio cache error codes and messages.
const (
	CodeAudioInvalidID    = "AUDIO_CACHE_INVALID_ID"
	CodeAudioNotFound     = "AUDIO_CACHE_ENTRY_NOT_FOUND"
	CodeAudioInvalidSort  = "AUDIO_CACHE_INVALID_SORT"
	CodeAudioFileRequired = "AUDIO_CACHE_FILE_REQUIRED"
	CodeAudioFileTooLarge = "AUDIO_CACHE_FILE_TOO_LARGE"
	CodeAudioFileInvalid  = "AUDIO_CACHE_INVALID_FILE"
	CodeAudioSettings     = "AUDIO_CACHE_INVALID_SETTINGS"

	MsgAudioInvalidID    = "Invalid ID"
	MsgAudioNotFound     = "Audio cache entry does not exist."
	MsgAudioEmptyBody    = "The request body is empty: send the WAV file."
	MsgAudioFilePart     = "The file part is required."
	MsgAudioFileTooLarge = "The file exceeds the 6 MB limit."
	MsgAudioFileInvalid  = "The file is not a WAV file."
	MsgAudioSettings     = "settings must be a JSON object {text, config}."
)

// List bounds (the document's).
const (
	AudioListDefault = 50
	AudioListMax     = 200
	AudioBulkMax     = 20
	// MaxAudioFilename bounds a file's name ([INF]).
	MaxAudioFilename = 255
)

// AudioSortFields are the sort fields (camelCase accepted too).
var AudioSortFields = []string{"cached_at", "hit_count", "duration", "transcript", "id"}

var audioSortAliases = map[string]string{"cachedAt": "cached_at", "hitCount": "hit_count"}

// AudioCacheQuery are a list's parameters; Sort is "<field>[:asc|:desc]".
type AudioCacheQuery struct {
	Limit, Offset int
	Sort          string
}

// AudioCacheList is the list answer (OAS ListAudioCacheResponse).
type AudioCacheList struct {
	Entries    []AudioEntryView `json:"entries"`
	TotalCount int              `json:"totalCount"`
}

// AudioDeleted is a delete's answer (OAS DeleteAudioCacheEntryResponse).
type AudioDeleted struct {
	Success bool `json:"success"`
}

// AudioBulkDeleted is a bulk delete's answer: each id once, in order.
type AudioBulkDeleted struct {
	Deleted []string `json:"deleted"`
	Failed  []string `json:"failed"`
}

// AudioUpload replaces an entry's audio, and with Settings its text and
// tuning.
type AudioUpload struct {
	Data     []byte
	Filename string
	Settings *AudioSettings
}

// AudioSettings are a details update's settings.
type AudioSettings struct {
	Text   string
	Config map[string]any
}

// SynthesisRequest is a preview's body (OAS SynthesizeAudioRequest).
type SynthesisRequest struct {
	Text, Language string
	Config         map[string]any
}

func errAudioNotFound() error {
	return core.Errf(core.KindNotFound, CodeAudioNotFound, MsgAudioNotFound)
}

func parseEntryID(s string) (int64, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return 0, core.Errf(core.KindInvalid, CodeAudioInvalidID, MsgAudioInvalidID)
	}
	return n, nil
}

func (s *Service) audioOf(p *core.Principal, agent string) (string, *audioCacheDoc, error) {
	ag, err := s.agents.AgentID(p, agent)
	if err != nil {
		return "", nil, err
	}
	d := &audioCacheDoc{}
	if err := s.env.Store.GetDoc(DocAudioCache, p.Region, ag, d); err != nil && !errors.Is(err, store.ErrNotFound) {
		return "", nil, err
	}
	return ag, d, nil
}

func (d *audioCacheDoc) readyEntry(id int64) *audioEntry {
	for _, e := range d.Entries {
		if e.ID == id && !e.Pending {
			return e
		}
	}
	return nil
}

// ParseAudioSort reads a sort expression.
func ParseAudioSort(s string) (field string, desc bool, err error) {
	if s == "" {
		return "cached_at", true, nil
	}
	field, dir, _ := strings.Cut(s, ":")
	field = cmp.Or(audioSortAliases[field], field)
	if !slices.Contains(AudioSortFields, field) || (dir != "" && dir != "asc" && dir != "desc") {
		return "", false, core.Errf(core.KindInvalid, CodeAudioInvalidSort,
			"Invalid sort expression %q: want <field>:asc or <field>:desc, field one of %s.", s, strings.Join(AudioSortFields, ", "))
	}
	return field, dir == "desc", nil
}

// AudioCache lists a page of an agent's ready entries, sorted (ties by
// id); TotalCount counts them all.
func (s *Service) AudioCache(p *core.Principal, agent string, q AudioCacheQuery) (*AudioCacheList, error) {
	field, desc, err := ParseAudioSort(q.Sort)
	if err != nil {
		return nil, err
	}
	_, d, err := s.audioOf(p, agent)
	if err != nil {
		return nil, err
	}
	ready := slices.DeleteFunc(slices.Clone(d.Entries), func(e *audioEntry) bool { return e.Pending })
	slices.SortStableFunc(ready, func(x, y *audioEntry) int {
		var c int
		switch field {
		case "cached_at":
			c = x.CachedAt.Compare(y.CachedAt)
		case "hit_count":
			c = cmp.Compare(x.HitCount, y.HitCount)
		case "duration":
			c = cmp.Compare(x.Duration, y.Duration)
		case "transcript":
			c = strings.Compare(x.Transcript, y.Transcript)
		}
		if desc {
			c = -c
		}
		if c == 0 {
			c = cmp.Compare(x.ID, y.ID)
			if desc && field == "id" {
				c = -c
			}
		}
		return c
	})
	out := &AudioCacheList{Entries: []AudioEntryView{}, TotalCount: len(ready)}
	for _, e := range ready[min(q.Offset, len(ready)):min(q.Offset+q.Limit, len(ready))] {
		out.Entries = append(out.Entries, e.view())
	}
	return out, nil
}

// DeleteAudioEntry deletes a ready entry and its uploaded audio.
func (s *Service) DeleteAudioEntry(p *core.Principal, agent, id string) error {
	n, err := parseEntryID(id)
	if err != nil {
		return err
	}
	res, err := s.deleteAudio(p, agent, []int64{n})
	if err == nil && len(res) == 0 {
		err = errAudioNotFound()
	}
	return err
}

// BulkDeleteAudio deletes each entry it can; a repeated id counts once.
func (s *Service) BulkDeleteAudio(p *core.Principal, agent string, ids []string) (*AudioBulkDeleted, error) {
	var nums []int64
	out := &AudioBulkDeleted{Deleted: []string{}, Failed: []string{}}
	for _, id := range ids {
		if n, err := parseEntryID(id); err == nil && !slices.Contains(nums, n) {
			nums = append(nums, n)
		}
	}
	gone, err := s.deleteAudio(p, agent, nums)
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		n, err := strconv.ParseInt(id, 10, 64)
		if err == nil && gone[n] {
			delete(gone, n) // "1" and "01" name one entry: deleted once
			out.Deleted = append(out.Deleted, id)
		} else {
			out.Failed = append(out.Failed, id)
		}
	}
	return out, nil
}

// deleteAudio deletes ready entries and their audio in one store update.
func (s *Service) deleteAudio(p *core.Principal, agent string, ids []int64) (map[int64]bool, error) {
	ag, err := s.agents.AgentID(p, agent)
	if err != nil {
		return nil, err
	}
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	var gone []*audioEntry
	var d audioCacheDoc
	err = s.env.Store.UpdateDoc(DocAudioCache, p.Region, ag, &d, func() error {
		d.Entries = slices.DeleteFunc(d.Entries, func(e *audioEntry) bool {
			if !e.Pending && slices.Contains(ids, e.ID) {
				gone = append(gone, e)
				return true
			}
			return false
		})
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	out := map[int64]bool{}
	for _, e := range gone {
		out[e.ID] = true
		if err := s.dropFileLocked(p.Region, ag, e); err != nil {
			return nil, err
		}
	}
	return out, nil
}

type audioFile struct {
	Audio []byte `json:"audio"`
}

// AudioFile is a ready entry's audio: the last upload, else synthesized.
func (s *Service) AudioFile(p *core.Principal, agent, id string) ([]byte, error) {
	n, err := parseEntryID(id)
	if err != nil {
		return nil, err
	}
	ag, d, err := s.audioOf(p, agent)
	if err != nil {
		return nil, err
	}
	e := d.readyEntry(n)
	switch {
	case e == nil:
		return nil, errAudioNotFound()
	case e.Uploaded:
		var f audioFile
		if err := s.env.Store.GetDoc(DocAudioFile, p.Region, audioFileID(ag, n), &f); err != nil {
			return nil, err
		}
		return f.Audio, nil
	}
	return s.speech(e.Provider+"/"+e.ProviderVoiceID, e.Transcript), nil
}

func (s *Service) speech(voice, text string) []byte {
	return wav.Speech(uint64(s.env.View().Scenario().Seed), voice, text)
}

// CheckAudioFile checks an upload: a non-empty WAV of at most MaxAudioFile.
func CheckAudioFile(data []byte) (wav.Info, error) {
	switch {
	case len(data) == 0:
		return wav.Info{}, core.Errf(core.KindInvalid, CodeAudioFileRequired, MsgAudioEmptyBody)
	case len(data) > MaxAudioFile:
		return wav.Info{}, core.Errf(core.KindInvalid, CodeAudioFileTooLarge, MsgAudioFileTooLarge)
	}
	in, err := wav.Parse(data)
	if err != nil {
		return in, core.Errf(core.KindInvalid, CodeAudioFileInvalid, MsgAudioFileInvalid)
	}
	return in, nil
}

// ReplaceAudio replaces a ready entry's audio with an uploaded WAV, and
// with Settings its text and tuning (the entry is regenerated).
func (s *Service) ReplaceAudio(p *core.Principal, agent, id string, up AudioUpload) error {
	n, err := parseEntryID(id)
	if err != nil {
		return err
	}
	info, err := CheckAudioFile(up.Data)
	if err != nil {
		return err
	}
	if len(up.Filename) > MaxAudioFilename {
		return core.Invalid(core.CodeValidation, core.MsgValidationFailed, core.FieldError{Field: "filename", Message: "must be at most 255 bytes"})
	}
	ag, err := s.agents.AgentID(p, agent)
	if err != nil {
		return err
	}
	name := cmp.Or(up.Filename, id+".wav")
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	var d audioCacheDoc
	err = s.env.Store.UpdateDoc(DocAudioCache, p.Region, ag, &d, func() error {
		e := d.readyEntry(n)
		if e == nil {
			return errAudioNotFound()
		}
		e.Duration, e.Regenerated, e.Uploaded, e.Filename = info.Duration, true, true, &name
		if s := up.Settings; s != nil {
			e.Transcript, e.Config = s.Text, s.Config
		}
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return errAudioNotFound()
	}
	if err != nil {
		return err
	}
	return s.env.Store.PutDoc(DocAudioFile, p.Region, audioFileID(ag, n), &audioFile{Audio: up.Data})
}

// SynthesizeAudio previews the request's text in the entry's voice with
// its settings, deterministically; nothing is saved.
func (s *Service) SynthesizeAudio(p *core.Principal, agent, id string, in SynthesisRequest) ([]byte, error) {
	n, err := parseEntryID(id)
	if err != nil {
		return nil, err
	}
	_, d, err := s.audioOf(p, agent)
	if err != nil {
		return nil, err
	}
	e := d.readyEntry(n)
	if e == nil {
		return nil, errAudioNotFound()
	}
	cfg, err := json.Marshal(in.Config) // map keys sorted: one form per config
	if err != nil {
		return nil, err
	}
	return s.speech(e.Provider+"/"+e.ProviderVoiceID+"/"+in.Language+"/"+string(cfg), in.Text), nil
}

// VoiceTuningConfig documents the tuning settings: all optional, other
// keys kept.
type VoiceTuningConfig struct {
	Stability        *float64 `json:"stability,omitempty"`
	SimilarityBoost  *float64 `json:"similarityBoost,omitempty"`
	Speed            *float64 `json:"speed,omitempty"`
	ModelID          *string  `json:"modelId,omitempty"`
	Engine           *string  `json:"engine,omitempty"`
	Emotion          *string  `json:"emotion,omitempty"`
	Volume           *float64 `json:"volume,omitempty"`
	Version          *string  `json:"version,omitempty"`
	VoiceDescription *string  `json:"voiceDescription,omitempty"`
	InstantMode      *bool    `json:"instantMode,omitempty"`
}

// TuningConfig reads a VoiceTuningConfig; errors name field/key.
func TuningConfig(name string, raw json.RawMessage) (map[string]any, []core.FieldError) {
	var m map[string]json.RawMessage
	if b := bytes.TrimSpace(raw); len(b) == 0 || b[0] != '{' || json.Unmarshal(b, &m) != nil {
		return nil, []core.FieldError{{Field: name, Message: "must be an object"}}
	}
	var probe VoiceTuningConfig
	var errs []core.FieldError
	for _, k := range slices.Sorted(maps.Keys(m)) {
		key, _ := json.Marshal(k)
		if err := json.Unmarshal(fmt.Appendf(nil, `{%s:%s}`, key, m[k]), &probe); err != nil {
			errs = append(errs, core.FieldError{Field: name + "/" + k, Message: "has the wrong type"})
		}
	}
	if errs != nil {
		return nil, errs
	}
	var out map[string]any
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, []core.FieldError{{Field: name, Message: "must be an object"}}
	}
	return out, nil
}
