package handlers

// Voice library (docs/api.md#voice-library; docs/fidelity.md G24): the
// HTTP edge of engine/audio.

import (
	"cmp"
	"net/http"
	"net/url"
	"strings"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/audio"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famVoiceLibrary is the voice library of an account.
var famVoiceLibrary = &Family{
	Name: "voice_library", Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"}, Forbid: true,
	Marks:    []string{"/voice-library"},
	Doc:      "The voices an account owns, beside Poly's curated ones, and their samples (docs/api.md#voice-library).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes: []Route{
		route("GET /v1/accounts/:account/voice-library", (*API).handleVoiceList, opVoiceList),
		route("POST /v1/accounts/:account/voice-library", (*API).handleVoiceCreate, opVoiceCreate),
		route("GET /v1/accounts/:account/voice-library/:voice", (*API).handleVoiceGet, opVoiceGet),
		route("PATCH /v1/accounts/:account/voice-library/:voice", (*API).handleVoiceUpdate, opVoiceUpdate),
		route("GET /v1/accounts/:account/voice-library/:voice/sample", (*API).handleVoiceSample, opVoiceSample),
	},
	Counts: []Counted{{What: "voices", N: func(a *API) (int, error) { return a.Audio().CountVoices() }}},
	Codes: []ErrorCode{
		{Status: 400, Code: "VALIDATION_ERROR", Ops: []string{"voiceCreate", "voiceList", "voiceUpdate"}},
		{Status: 404, Code: "VOICE_NOT_FOUND", Ops: []string{"voiceGet", "voiceSample", "voiceUpdate"}},
		{Status: 403, Code: "VOICE_READ_ONLY", Ops: []string{"voiceUpdate"}},
	},
}

// famVoiceSamples serves the sample addresses: signed, without a key.
var famVoiceSamples = &Family{
	Name: "voice_library", Base: "builder", Shape: shapeBuilder,
	Schemes: map[string]Scheme{"sampleSignature": {Type: "apiKey", In: "query", Name: "signature",
		Doc: "The signature of a sample address (GET .../voice-library/{voiceId}/sample)."}},
	Security: [][]string{{"sampleSignature"}},
	Routes:   []Route{route("GET /v1/accounts/:account/voice-library/:voice/sample.wav", (*API).handleVoiceSampleAudio, opVoiceSampleAudio)},
	Codes: []ErrorCode{
		{Status: 403, Code: "SAMPLE_URL_EXPIRED", Ops: []string{"voiceSampleAudio"}},
		{Status: 403, Code: "SAMPLE_URL_INVALID", Ops: []string{"voiceSampleAudio"}},
	},
}

// fidVoices marks the voice library's choices where the real document is
// silent.
var fidVoices = &engine.Fidelity{ID: "G24", Note: "curated voices, voice ids, the sample address and body limits are the mock's choices"}

var (
	opVoiceList = &Op{ID: "voiceList", Summary: "List the voice library", Fidelity: fidVoices, Doc: "Poly's curated voices of the region, then the account's own.",
		Query: []Param{{Name: "language", Doc: "metadata.language equals it."}, {Name: "gender", Enum: audio.VoiceGenders},
			{Name: "provider", Doc: "Any case."}, {Name: "isPolyVoice", Type: "boolean"}},
		Responses: []Response{ok(200, audio.VoiceList{})}, Errors: []int{400}}
	opVoiceCreate = &Op{ID: "voiceCreate", Summary: "Add a voice", Fidelity: fidVoices, Body: audio.VoiceBody{},
		Responses: []Response{ok(200, audio.VoiceAnswer{})}, Errors: []int{400}}
	opVoiceGet    = &Op{ID: "voiceGet", Summary: "Read a voice", Fidelity: fidVoices, Responses: []Response{ok(200, audio.VoiceAnswer{})}}
	opVoiceUpdate = &Op{ID: "voiceUpdate", Summary: "Change a voice", Fidelity: fidVoices, Doc: "The fields given; a Poly voice is 403.",
		Body: audio.VoiceBody{}, BodyPartial: true, Responses: []Response{ok(200, audio.VoiceAnswer{})}, Errors: []int{400}}
	opVoiceSample = &Op{ID: "voiceSample", Summary: "A voice's sample", Fidelity: fidVoices, Doc: "Its text and a signed address of its audio, valid 1 hour.",
		Responses: []Response{ok(200, audio.VoiceSample{})}}
	opVoiceSampleAudio = &Op{ID: "voiceSampleAudio", Summary: "A sample's audio", Query: []Param{{Name: "expires", Type: "integer", Required: true},
		{Name: "signature", Required: true}}, Responses: []Response{ok(200, Media{Type: "audio/wav"})}, Errors: []int{403},
		Fidelity: &engine.Fidelity{ID: "G24", Note: "the sample's address: the real one is a storage service's"}}
)

// readVoice reads a voice body: all required unless partial.
func readVoice(c *gin.Context, partial bool) (audio.VoiceInput, error) {
	var in audio.VoiceInput
	f, err := readFields(c, false, engine.BodyFields(audio.VoiceBody{})...)
	if err != nil {
		return in, err
	}
	if !partial {
		f.requireAll(audio.VoiceBody{})
	}
	for _, x := range []struct {
		name string
		dst  **string
	}{{"name", &in.Name}, {"provider", &in.Provider}, {"providerVoiceId", &in.ProviderVoiceID}} {
		if s, ok := f.text(x.name, audio.VoiceRules[x.name]); ok {
			*x.dst = &s
		}
	}
	f.object("config", &in.Config, "must be an object")
	f.object("voiceMetadata", &in.Metadata, "must be an object")
	return in, f.err()
}

func (a *API) handleVoiceList(c *gin.Context) error {
	f, err := audio.ParseVoiceFilter(c.Request.URL.Query())
	if err != nil {
		return err
	}
	list, err := a.Audio().Voices(principal(c), f)
	return answer(c, audio.VoiceList{Voices: list}, err)
}

func (a *API) handleVoiceCreate(c *gin.Context) error {
	in, err := readVoice(c, false)
	if err != nil {
		return err
	}
	v, err := a.Audio().CreateVoice(principal(c), in)
	return voiceAnswer(c, v, err)
}

func (a *API) handleVoiceGet(c *gin.Context) error {
	v, err := a.Audio().Voice(principal(c), c.Param("voice"))
	return voiceAnswer(c, v, err)
}

func (a *API) handleVoiceUpdate(c *gin.Context) error {
	in, err := readVoice(c, true)
	if err != nil {
		return err
	}
	v, err := a.Audio().UpdateVoice(principal(c), c.Param("voice"), in)
	return voiceAnswer(c, v, err)
}

func voiceAnswer(c *gin.Context, v *audio.VoiceView, err error) error {
	if err != nil {
		return err
	}
	return answer(c, audio.VoiceAnswer{Voice: *v}, nil)
}

// handleVoiceSample answers the sample with the address of its audio on
// the address the client called.
func (a *API) handleVoiceSample(c *gin.Context) error {
	s, err := a.Audio().VoiceSample(principal(c), c.Param("voice"))
	if err != nil {
		return err
	}
	// {base}/builder/{region} as the client wrote it (RequestURI keeps a
	// world's /w/{id} that routing stripped).
	p := c.Request.URL.Path
	if u, err := url.ParseRequestURI(c.Request.RequestURI); err == nil {
		p = u.EscapedPath()
	}
	base, _, _ := strings.Cut(p, "/v1/")
	scheme := "http"
	if c.Request.TLS != nil {
		scheme = "https"
	}
	s.SampleURL = scheme + "://" + cmp.Or(c.Request.Host, c.Request.URL.Host) + base + s.SampleURL
	return answer(c, s, nil)
}

func (a *API) handleVoiceSampleAudio(c *gin.Context) error {
	region, _ := engine.RegionPair("builder", c.Param("region"))
	b, err := a.Audio().VoiceSampleAudio(region, c.Param("account"), c.Param("voice"), c.Query("expires"), c.Query("signature"))
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, "audio/wav", b)
	return nil
}

// answer writes a 200 JSON answer, or returns err.
func answer(c *gin.Context, v any, err error) error {
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, v)
	return nil
}
