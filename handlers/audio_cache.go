package handlers

// Audio cache (docs/api.md#audio-cache; docs/fidelity.md G25): the HTTP
// edge of the engine's audio_cache*.go. Files come and go as raw WAV
// bytes (audio/wav) or a multipart form.

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/audio"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famAudioCache is an agent's audio cache.
var famAudioCache = &Family{
	Name: "audio_cache", Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"}, Forbid: true,
	Marks:    []string{"/audio-cache"},
	Doc:      "An agent's synthesized utterances: list, download, replace, preview, delete (docs/api.md#audio-cache).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes: []Route{
		route("GET /v1/agents/:agent/audio-cache", (*API).handleAudioList, opAudioList),
		route("POST /v1/agents/:agent/audio-cache/bulk-delete", (*API).handleAudioBulkDelete, opAudioBulkDelete),
		route("DELETE /v1/agents/:agent/audio-cache/:entry", (*API).handleAudioDelete, opAudioDelete),
		route("GET /v1/agents/:agent/audio-cache/:entry/file", (*API).handleAudioFile, opAudioFile),
		route("PATCH /v1/agents/:agent/audio-cache/:entry/file", (*API).handleAudioUpload, opAudioUpload),
		route("PUT /v1/agents/:agent/audio-cache/:entry/details", (*API).handleAudioDetails, opAudioDetails),
		route("POST /v1/agents/:agent/audio-cache/:entry/synthesize", (*API).handleAudioSynthesize, opAudioSynthesize),
	},
	Counts: []Counted{{What: "audio cache entries", N: func(a *API) (int, error) { return a.Audio().CountAudioEntries() }}},
	Codes: []ErrorCode{
		{Status: 400, Code: "VALIDATION_ERROR", Ops: []string{"audioCacheBulkDelete", "audioCacheDetails", "audioCacheList", "audioCacheSynthesize", "audioCacheUpload"}},
		{Status: 400, Code: "AUDIO_CACHE_INVALID_ID", Ops: []string{"audioCacheDelete", "audioCacheFile", "audioCacheSynthesize", "audioCacheUpload", "audioCacheDetails"}},
		{Status: 404, Code: "AGENT_NOT_FOUND", Ops: []string{"audioCacheDelete", "audioCacheList", "audioCacheBulkDelete", "audioCacheFile", "audioCacheUpload", "audioCacheDetails", "audioCacheSynthesize"}},
		{Status: 404, Code: "AUDIO_CACHE_ENTRY_NOT_FOUND", Ops: []string{"audioCacheDelete", "audioCacheDetails", "audioCacheFile", "audioCacheSynthesize", "audioCacheUpload"}},
		{Status: 400, Code: "AUDIO_CACHE_FILE_REQUIRED", Ops: []string{"audioCacheDetails", "audioCacheUpload"}},
		{Status: 400, Code: "AUDIO_CACHE_INVALID_FILE", Ops: []string{"audioCacheDetails", "audioCacheUpload"}},
		{Status: 400, Code: "AUDIO_CACHE_INVALID_SETTINGS", Ops: []string{"audioCacheDetails"}},
		{Status: 400, Code: "AUDIO_CACHE_FILE_TOO_LARGE", Ops: []string{"audioCacheUpload", "audioCacheDetails"}},
		{Status: 400, Code: "AUDIO_CACHE_INVALID_SORT", Ops: []string{"audioCacheList"}},
	},
}

// audioBodyLimit is the body limit of the upload routes: the 6 MB file
// and room for a form around it.
const audioBodyLimit = audio.MaxAudioFile + 1<<20

// fidAudio marks the audio cache's choices where the real document is
// silent.
var fidAudio = &engine.Fidelity{ID: "G25", Note: "entries from voice replies, synthesis on the virtual clock, sort, upload checks and the audio are the mock's choices"}

var (
	wavAnswer   = []Response{ok(200, Media{Type: "audio/wav"})}
	opAudioList = &Op{ID: "audioCacheList", Summary: "List cached audio",
		Fidelity: &engine.Fidelity{ID: "D28", Note: "the document's camelCase field names, not the ones the kit reads"}, Doc: "Ready entries, sorted (default cached_at:desc), one page.",
		Query: []Param{{Name: "limit", Type: "integer", Min: engine.I64(1), Max: engine.I64(audio.AudioListMax), Doc: "Default 50."},
			{Name: "offset", Type: "integer", Min: engine.I64(0)},
			{Name: "sort", Doc: "<field>:asc|desc, field hit_count, duration, cached_at, transcript or id.", Fidelity: fidAudio}},
		Responses: []Response{ok(200, audio.AudioCacheList{})}, Errors: []int{400}}
	opAudioBulkDelete = &Op{ID: "audioCacheBulkDelete", Fidelity: fidAudio, Summary: "Delete cached audio entries", Doc: "Best effort: each id deleted or failed.",
		Body: audio.BulkDeleteBody{}, Responses: []Response{ok(200, audio.AudioBulkDeleted{})}}
	opAudioDelete = &Op{ID: "audioCacheDelete", Fidelity: fidAudio, Summary: "Delete a cached audio entry",
		Responses: []Response{ok(200, audio.AudioDeleted{})}, Errors: []int{400}}
	opAudioFile   = &Op{ID: "audioCacheFile", Fidelity: fidAudio, Summary: "Download cached audio", Responses: wavAnswer, Errors: []int{400}}
	opAudioUpload = &Op{ID: "audioCacheUpload", Fidelity: fidAudio, Summary: "Replace cached audio", Body: Media{Type: "audio/wav"}, MaxBody: audioBodyLimit,
		Headers:   []Param{{Name: "X-Filename", Doc: "The file's name (default <entryId>.wav), at most 255 bytes."}},
		Responses: []Response{{Status: 204}}}
	opAudioDetails = &Op{ID: "audioCacheDetails", Fidelity: fidAudio, Summary: "Replace cached audio, text and tuning settings", MaxBody: audioBodyLimit,
		Body: Media{Type: "multipart/form-data", Parts: []MediaPart{{Name: "file", Binary: true, Doc: "The WAV file (at most 6 MB)."},
			{Name: "settings", Doc: `JSON {"text": string, "config": VoiceTuningConfig}.`}}},
		Responses: []Response{{Status: 204}}}
	opAudioSynthesize = &Op{ID: "audioCacheSynthesize", Fidelity: fidAudio, Summary: "Preview a synthesis", Doc: "The entry's voice saying text; nothing is saved.",
		Body: audio.SynthesizeBody{}, Responses: wavAnswer}
)

func (a *API) handleAudioList(c *gin.Context) error {
	q, err := audio.ParseAudioQuery(c.Request.URL.Query())
	if err != nil {
		return err
	}
	l, err := a.Audio().AudioCache(principal(c), c.Param("agent"), q)
	return answer(c, l, err)
}

func (a *API) handleAudioBulkDelete(c *gin.Context) error {
	f, err := readFields(c, false, "ids")
	if err != nil {
		return err
	}
	ids, _ := stringList(f, "ids")
	if len(ids) > audio.AudioBulkMax {
		f.fail("ids", "must contain between 1 and %d entries", audio.AudioBulkMax)
	}
	if err := f.err(); err != nil {
		return err
	}
	res, err := a.Audio().BulkDeleteAudio(principal(c), c.Param("agent"), ids)
	return answer(c, res, err)
}

func (a *API) handleAudioDelete(c *gin.Context) error {
	return answer(c, audio.AudioDeleted{Success: true}, a.Audio().DeleteAudioEntry(principal(c), c.Param("agent"), c.Param("entry")))
}

func (a *API) handleAudioFile(c *gin.Context) error {
	b, err := a.Audio().AudioFile(principal(c), c.Param("agent"), c.Param("entry"))
	return wavData(c, b, err)
}

func (a *API) handleAudioSynthesize(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(audio.SynthesizeBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(audio.SynthesizeBody{})
	var in audio.SynthesisRequest
	in.Text, _ = f.text("text", audio.SynthesizeRules["text"])
	if lang, ok := f.str("language"); ok && !scenario.LangCodeRE.MatchString(lang) {
		f.fail("language", "must be a language tag, e.g. en-US")
	} else {
		in.Language = lang
	}
	if f.has("config") {
		var errs []engine.FieldError
		in.Config, errs = audio.TuningConfig("config", f.raw["config"])
		f.errs = append(f.errs, errs...)
	}
	if err := f.err(); err != nil {
		return err
	}
	b, err := a.Audio().SynthesizeAudio(principal(c), c.Param("agent"), c.Param("entry"), in)
	return wavData(c, b, err)
}

func wavData(c *gin.Context, b []byte, err error) error {
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, "audio/wav", b)
	return nil
}

// handleAudioUpload takes the raw WAV body and the X-Filename header.
func (a *API) handleAudioUpload(c *gin.Context) error {
	up := audio.AudioUpload{Data: stateOf(c).body, Filename: c.GetHeader("X-Filename")}
	return noContent(c, a.Audio().ReplaceAudio(principal(c), c.Param("agent"), c.Param("entry"), up))
}

// handleAudioDetails takes a multipart form: the file part and the
// settings part.
func (a *API) handleAudioDetails(c *gin.Context) error {
	up, err := audio.ParseAudioForm(c.GetHeader("Content-Type"), stateOf(c).body)
	if err != nil {
		return err
	}
	return noContent(c, a.Audio().ReplaceAudio(principal(c), c.Param("agent"), c.Param("entry"), up))
}

func noContent(c *gin.Context, err error) error {
	if err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
