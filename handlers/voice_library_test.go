package handlers

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/internal/wav"
)

const voiceBase = builderBase + "/v1/accounts/acme/voice-library"

// voiceDo sends a builder request below the default account's voice
// library and checks the status.
func (h *harness) voiceDo(method, path string, body any, status int) response {
	h.t.Helper()
	r := h.do(method, voiceBase+path, body, builderHeaders...)
	mustStatus(h.t, r, status)
	return r
}

// polyAnne and polyAria are the curated voices of the us region.
var (
	polyAnne = map[string]any{"id": "VOICE-6fad73f6", "name": "Anne", "provider": "GOOGLE", "providerVoiceId": "en-US-Neural2-F",
		"config": map[string]any{}, "metadata": map[string]any{"language": "en-US", "gender": "female"}, "isPolyVoice": true}
	polyAria = map[string]any{"id": "VOICE-071db756", "name": "Aria", "provider": "GOOGLE", "providerVoiceId": "en-US-Neural2-C",
		"config": map[string]any{}, "metadata": map[string]any{"language": "en-US", "gender": "female"}, "isPolyVoice": true}
)

var voiceIDRE = regexp.MustCompile(`^VOICE-[0-9a-f]{8}$`)

func TestVoiceLibraryListAndCreate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	// Every account sees its region's curated voices.
	mustBody(t, h.voiceDo("GET", "", nil, 200), map[string]any{"voices": []any{polyAnne, polyAria}})

	body := map[string]any{"name": "Nova", "provider": "ELEVENLABS", "providerVoiceId": "21m00Tcm4TlvDq8ikWAM",
		"config": map[string]any{"stability": 0.5}, "voiceMetadata": map[string]any{"language": "en-GB", "gender": "neutral"}}
	r := h.voiceDo("POST", "", body, 200)
	v, _ := r.Map(t)["voice"].(map[string]any)
	id, _ := v["id"].(string)
	if !voiceIDRE.MatchString(id) {
		t.Fatalf("voice id %q", id)
	}
	nova := map[string]any{"id": id, "name": "Nova", "provider": "ELEVENLABS", "providerVoiceId": "21m00Tcm4TlvDq8ikWAM",
		"config": map[string]any{"stability": 0.5}, "metadata": map[string]any{"language": "en-GB", "gender": "neutral"}, "isPolyVoice": false}
	mustBody(t, r, map[string]any{"voice": nova})
	mustBody(t, h.voiceDo("GET", "/"+id, nil, 200), map[string]any{"voice": nova})
	mustBody(t, h.voiceDo("GET", "/VOICE-6fad73f6", nil, 200), map[string]any{"voice": polyAnne})

	// Without voiceMetadata the metadata is {}.
	plain := h.voiceDo("POST", "", map[string]any{"name": "Plain", "provider": "google", "providerVoiceId": "en-US-Standard-B", "config": map[string]any{}}, 200)
	plainVoice := plain.Map(t)["voice"].(map[string]any)
	if plainVoice["metadata"] == nil || len(plainVoice["metadata"].(map[string]any)) != 0 {
		t.Fatalf("metadata %v", plainVoice["metadata"])
	}

	for _, tc := range []struct {
		query string
		want  []any
	}{
		{"", []any{polyAnne, polyAria, nova, plainVoice}},
		{"?isPolyVoice=true", []any{polyAnne, polyAria}},
		{"?isPolyVoice=false", []any{nova, plainVoice}},
		{"?gender=neutral", []any{nova}},
		{"?language=en-US", []any{polyAnne, polyAria}},
		{"?provider=Google", []any{polyAnne, polyAria, plainVoice}},
		{"?provider=GOOGLE&isPolyVoice=false", []any{plainVoice}},
		{"?gender=male", []any{}},
	} {
		mustBody(t, h.voiceDo("GET", tc.query, nil, 200), map[string]any{"voices": tc.want})
	}
	h.unchanged(t, func() {
		mustBody(t, h.voiceDo("GET", "?gender=other&isPolyVoice=maybe", nil, 400), builderError{Message: engine.MsgValidationFailed,
			Errors: []engine.FieldError{{Field: "isPolyVoice", Message: "must be a boolean"}, {Field: "gender", Message: "must be one of: male, female, neutral"}}})
	})
}

func TestVoiceLibraryCreateValidation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	good := func(changes map[string]any) map[string]any {
		b := map[string]any{"name": "N", "provider": "GOOGLE", "providerVoiceId": "v", "config": map[string]any{}}
		for k, v := range changes {
			if v == nil {
				delete(b, k)
			} else {
				b[k] = v
			}
		}
		return b
	}
	for _, tc := range []struct {
		name string
		body any
		want []engine.FieldError
	}{
		{"empty", map[string]any{}, []engine.FieldError{{Field: "name", Message: "is required"}, {Field: "provider", Message: "is required"},
			{Field: "config", Message: "is required"}, {Field: "providerVoiceId", Message: "is required"}}},
		{"name type", good(map[string]any{"name": 7}), []engine.FieldError{{Field: "name", Message: "must be a string"}}},
		{"name long", good(map[string]any{"name": strings.Repeat("n", 101)}), []engine.FieldError{{Field: "name", Message: "must be 1 to 100 characters"}}},
		{"name empty", good(map[string]any{"name": ""}), []engine.FieldError{{Field: "name", Message: "must be 1 to 100 characters"}}},
		{"config", good(map[string]any{"config": "x"}), []engine.FieldError{{Field: "config", Message: "must be an object"}}},
		{"metadata", good(map[string]any{"voiceMetadata": []int{1}}), []engine.FieldError{{Field: "voiceMetadata", Message: "must be an object"}}},
		{"no provider voice", good(map[string]any{"providerVoiceId": nil}), []engine.FieldError{{Field: "providerVoiceId", Message: "is required"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.unchanged(t, func() {
				mustBody(t, h.voiceDo("POST", "", tc.body, 400), builderError{Message: engine.MsgValidationFailed, Errors: tc.want})
			})
		})
	}
	h.unchanged(t, func() {
		r := h.voiceDo("POST", "", "[1]", 400)
		mustBody(t, r, builderError{Message: MsgBodyNotObject, Errors: []engine.FieldError{}})
	})
	// An unknown field is accepted, with a journal warning.
	h.voiceDo("POST", "", good(map[string]any{"colour": "red"}), 200)
	if e := h.journal.List(Filter{})[len(h.journal.List(Filter{}))-1]; len(e.Warnings) != 1 || e.Family != "voice_library" {
		t.Fatalf("journal entry %+v", e)
	}
}

func TestVoiceLibraryUpdate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.voiceDo("POST", "", map[string]any{"name": "Nova", "provider": "ELEVENLABS", "providerVoiceId": "p1",
		"config": map[string]any{"a": 1}, "voiceMetadata": map[string]any{"language": "en-GB"}}, 200)
	id := r.Map(t)["voice"].(map[string]any)["id"].(string)
	// Only the fields given change; config and metadata are replaced whole.
	mustBody(t, h.voiceDo("PATCH", "/"+id, map[string]any{"name": "Nova 2", "config": map[string]any{"b": 2}}, 200),
		map[string]any{"voice": map[string]any{"id": id, "name": "Nova 2", "provider": "ELEVENLABS", "providerVoiceId": "p1",
			"config": map[string]any{"b": 2}, "metadata": map[string]any{"language": "en-GB"}, "isPolyVoice": false}})
	h.unchanged(t, func() {
		mustBody(t, h.voiceDo("PATCH", "/"+id, map[string]any{"provider": ""}, 400), builderError{Message: engine.MsgValidationFailed,
			Errors: []engine.FieldError{{Field: "provider", Message: "must be 1 to 100 characters"}}})
		mustBody(t, h.voiceDo("PATCH", "/VOICE-6fad73f6", map[string]any{"name": "Mine"}, 403),
			builderError{Message: audio.MsgPolyVoice, Errors: []engine.FieldError{}})
		mustBody(t, h.voiceDo("PATCH", "/VOICE-00000000", map[string]any{"name": "Mine"}, 404),
			builderError{Message: audio.MsgVoiceNotFound, Errors: []engine.FieldError{}})
		mustBody(t, h.voiceDo("GET", "/VOICE-00000000", nil, 404), builderError{Message: audio.MsgVoiceNotFound, Errors: []engine.FieldError{}})
	})
}

// TestVoiceLibraryAccounts: the account of the path must be the key's
// (slug, id, ACCOUNT- and ws- name it), and its errors come in the
// envelope under builder_errors: envelope, with the real example's code.
func TestVoiceLibraryAccounts(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario+"\nfidelity: {builder_errors: envelope}\n")
	for _, ref := range []string{"acme", "1001", "ACCOUNT-1001", "ws-1001"} {
		mustStatus(t, h.do("GET", builderBase+"/v1/accounts/"+ref+"/voice-library", nil, builderHeaders...), 200)
	}
	r := h.do("GET", builderBase+"/v1/accounts/globex/voice-library", nil, builderHeaders...)
	mustStatus(t, r, 403)
	mustBody(t, r, envelopeBody(r, "FORBIDDEN", engine.MsgNoPermission))
	r = h.do("POST", builderBase+"/v1/accounts/nope/voice-library", map[string]any{}, builderHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, envelopeBody(r, "ACCOUNT_NOT_FOUND", "Account ID does not exist."))
	mustStatus(t, h.do("GET", voiceBase, nil), 401)
	r = h.voiceDo("GET", "/VOICE-1", nil, 404)
	mustBody(t, r, envelopeBody(r, audio.CodeVoiceNotFound, audio.MsgVoiceNotFound))
	// Another account's voices are not this account's.
	g := h.do("POST", builderBase+"/v1/accounts/globex/voice-library", map[string]any{"name": "G", "provider": "GOOGLE",
		"providerVoiceId": "v", "config": map[string]any{}}, "x-api-key", "globex-builder-key")
	mustStatus(t, g, 200)
	h.voiceDo("GET", "/"+g.Map(t)["voice"].(map[string]any)["id"].(string), nil, 404)
}

func TestVoiceLibrarySeeded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: euro
    id: "7"
    region: eu
    voices:
      - {id: VOICE-0000beef, name: Seeded, provider: GOOGLE, provider_voice_id: en-GB-Neural2-A, metadata: {gender: female}}
      - {name: Auto, provider: GOOGLE, provider_voice_id: en-GB-Neural2-B}
credentials:
  - {kind: builder, key: eu-key, account: euro}
`)
	r := h.do("GET", "/builder/eu/v1/accounts/euro/voice-library", nil, "x-api-key", "eu-key")
	mustStatus(t, r, 200)
	mustBody(t, r, map[string]any{"voices": []any{
		map[string]any{"id": "VOICE-8b814724", "name": "Ben", "provider": "GOOGLE", "providerVoiceId": "en-GB-Neural2-B",
			"config": map[string]any{}, "metadata": map[string]any{"language": "en-GB", "gender": "male"}, "isPolyVoice": true},
		map[string]any{"id": "VOICE-0000beef", "name": "Seeded", "provider": "GOOGLE", "providerVoiceId": "en-GB-Neural2-A",
			"config": map[string]any{}, "metadata": map[string]any{"gender": "female"}, "isPolyVoice": false},
		// The id of a voice seeded without one is derived from the account and its place.
		map[string]any{"id": "VOICE-d3d2f579", "name": "Auto", "provider": "GOOGLE", "providerVoiceId": "en-GB-Neural2-B",
			"config": map[string]any{}, "metadata": map[string]any{}, "isPolyVoice": false},
	}})
	if n, err := h.api.Audio().CountVoices(); err != nil || n != 2 {
		t.Fatalf("CountVoices = %d, %v", n, err)
	}
}

func TestVoiceSample(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("GET", "http://mock.test"+voiceBase+"/VOICE-6fad73f6/sample", nil, builderHeaders...)
	mustStatus(t, r, 200)
	m := r.Map(t)
	u, err := url.Parse(m["sampleUrl"].(string))
	if err != nil {
		t.Fatal(err)
	}
	exp := h.start.Add(time.Hour).Unix()
	if u.Scheme != "http" || u.Host != "mock.test" || u.Path != "/builder/us/v1/accounts/1001/voice-library/VOICE-6fad73f6/sample.wav" ||
		u.Query().Get("expires") != strconv.FormatInt(exp, 10) {
		t.Fatalf("sampleUrl %v", u)
	}
	delete(m, "sampleUrl")
	mustBody(t, r, map[string]any{"voiceId": "VOICE-6fad73f6", "expiresInSeconds": 3600, "text": "Hello, I am Anne.", "sampleUrl": u.String()})

	// The address serves the audio without a key: the voice saying the text.
	sample := h.do("GET", u.RequestURI(), nil)
	mustStatus(t, sample, 200)
	if ct := sample.Header.Get("Content-Type"); ct != "audio/wav" {
		t.Fatalf("Content-Type %q", ct)
	}
	in, err := wav.Parse(sample.Body)
	if err != nil || in.Duration != wav.SpeechDuration("Hello, I am Anne.") {
		t.Fatalf("sample audio %+v, %v", in, err)
	}
	// An altered address is refused, and so is an expired one.
	q := u.Query()
	q.Set("expires", strconv.FormatInt(exp+1, 10))
	mustBody(t, h.do("GET", u.Path+"?"+q.Encode(), nil), builderError{Message: audio.MsgSampleSignature, Errors: []engine.FieldError{}})
	mustStatus(t, h.do("GET", strings.Replace(u.RequestURI(), "VOICE-6fad73f6", "VOICE-071db756", 1), nil), 403)
	mustStatus(t, h.do("GET", strings.Replace(u.RequestURI(), "/us/", "/eu/", 1), nil), 403)
	h.advance(time.Hour)
	mustStatus(t, h.do("GET", u.RequestURI(), nil), 200)
	h.advance(time.Second)
	mustBody(t, h.do("GET", u.RequestURI(), nil), builderError{Message: audio.MsgSampleExpired, Errors: []engine.FieldError{}})
	h.voiceDo("GET", "/VOICE-nope/sample", nil, 404)
}
