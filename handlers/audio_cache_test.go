package handlers

import (
	"bytes"
	"mime/multipart"
	"net/textproto"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/internal/wav"
)

const audioBase = agentsBase + "/support/audio-cache"

const (
	greeting = "Hi, how can I help you today?"
	hours    = "We are open 9am to 5pm, Monday to Friday."
)

// audioDo sends a builder request below the default agent's audio cache
// and checks the status.
func (h *harness) audioDo(method, path string, body any, status int, headers ...string) response {
	h.t.Helper()
	r := h.do(method, audioBase+path, body, append(append([]string{}, builderHeaders...), headers...)...)
	mustStatus(h.t, r, status)
	return r
}

// dial calls the default agent's number: its greeting is said.
func (h *harness) dial() string {
	h.t.Helper()
	res, err := h.api.CallNumber("+14155550150", "+14155550999")
	if err != nil {
		h.t.Fatal(err)
	}
	return res.ConversationID
}

func (h *harness) say(conv, text string) {
	h.t.Helper()
	if _, err := h.api.Say(conv, text); err != nil {
		h.t.Fatal(err)
	}
}

// audioEntry is an entry of the default agent's voice (its connector's).
func audioEntry(id int, text string, hits int, at time.Time) map[string]any {
	return map[string]any{"id": strconv.Itoa(id), "transcript": text, "cachedAt": engine.FmtAgentTime(at), "hitCount": hits,
		"duration": wav.SpeechDuration(text).Seconds(), "regenerated": false, "provider": "google", "providerVoiceId": "en-US-Neural2-A",
		"audioFilename": nil, "imported": false, "languageCode": "en-US"}
}

func audioList(entries ...any) map[string]any {
	return map[string]any{"entries": append([]any{}, entries...), "totalCount": len(entries)}
}

// TestAudioCacheFromVoiceCalls: what the agent says in a voice call is
// cached once synthesis ends on the virtual clock, and counts a hit each
// later time; chat replies are not cached.
func TestAudioCacheFromVoiceCalls(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList())
	conv := h.dial()
	h.say(conv, "what are your hours?")
	h.chatCreateN(1) // a chat greeting: not voice
	// Pending: not listed, and its file is 404.
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList())
	h.audioDo("GET", "/1/file", nil, 404)
	if n, _ := h.api.Audio().CountAudioEntries(); n != 2 {
		t.Fatalf("CountAudioEntries = %d, want 2 (pending)", n)
	}
	h.advance(999 * time.Millisecond)
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList())
	h.advance(time.Millisecond)
	ready := h.start.Add(time.Second)
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(audioEntry(1, greeting, 0, ready), audioEntry(2, hours, 0, ready)))

	// Said again: hits, no new entries.
	h.say(h.dial(), "hours please")
	h.say(conv, "and your hours?")
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(audioEntry(1, greeting, 1, ready), audioEntry(2, hours, 2, ready)))

	// A reply said while its entry is pending counts no hit.
	h.say(conv, "bye")
	h.say(h.dial(), "bye")
	h.advance(time.Second)
	got := h.audioDo("GET", "?sort=id:desc&limit=1", nil, 200)
	mustBody(t, got, map[string]any{"entries": []any{audioEntry(3, "Goodbye!", 0, ready.Add(time.Second))}, "totalCount": 3})
}

func TestAudioCacheList(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        agent:
          audio_cache:
            entries:
              - {transcript: "Hello there.", hit_count: 5, cached_at: 2026-01-01T10:00:00Z}
              - {transcript: "A much longer sentence than the others.", language: en-GB, provider_voice_id: en-GB-Neural2-B, hit_count: 1, cached_at: 2026-01-01T09:00:00Z}
              - {transcript: "Bye.", provider: eleven_labs, provider_voice_id: 21m00Tcm4TlvDq8ikWAM, hit_count: 9}
credentials:
  - {kind: builder, key: test-builder-key, account: acme}
`)
	seeded := func(id int, text, lang, provider, voice string, hits int, at time.Time) map[string]any {
		return map[string]any{"id": strconv.Itoa(id), "transcript": text, "cachedAt": engine.FmtAgentTime(at), "hitCount": hits,
			"duration": wav.SpeechDuration(text).Seconds(), "regenerated": false, "provider": provider, "providerVoiceId": voice,
			"audioFilename": nil, "imported": true, "languageCode": lang}
	}
	e1 := seeded(1, "Hello there.", "", "google", "en-US-Standard-A", 5, time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC))
	e2 := seeded(2, "A much longer sentence than the others.", "en-GB", "google", "en-GB-Neural2-B", 1, time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC))
	e3 := seeded(3, "Bye.", "", "eleven_labs", "21m00Tcm4TlvDq8ikWAM", 9, h.start) // cached at the clock's start
	for _, tc := range []struct {
		query string
		want  []any
	}{
		{"", []any{e1, e2, e3}}, // cached_at:desc (the seeded clock starts 2026-01-01T00:00Z)
		{"?sort=hit_count:desc", []any{e3, e1, e2}},
		{"?sort=hitCount", []any{e2, e1, e3}},
		{"?sort=duration:asc", []any{e3, e1, e2}},
		{"?sort=duration:desc", []any{e2, e1, e3}},
		{"?sort=transcript:asc", []any{e2, e3, e1}},
		{"?sort=cached_at:asc", []any{e3, e2, e1}},
		{"?limit=1&offset=1&sort=id", []any{e2}},
		{"?offset=3", []any{}},
		{"?offset=99&limit=200", []any{}},
	} {
		r := h.audioDo("GET", tc.query, nil, 200)
		mustBody(t, r, map[string]any{"entries": tc.want, "totalCount": 3})
	}
	for query, want := range map[string]builderError{
		"?sort=loudness:desc": {Message: `Invalid sort expression "loudness:desc": want <field>:asc or <field>:desc, field one of cached_at, hit_count, duration, transcript, id.`},
		"?sort=hit_count:up":  {Message: `Invalid sort expression "hit_count:up": want <field>:asc or <field>:desc, field one of cached_at, hit_count, duration, transcript, id.`},
		"?limit=0":            {Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "limit", Message: "must be an integer from 1 to 200"}}},
		"?limit=201&offset=-1": {Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "limit", Message: "must be an integer from 1 to 200"},
			{Field: "offset", Message: "must be an integer from 0 to 2147483647"}}},
		"?limit=ten": {Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "limit", Message: "must be an integer from 1 to 200"}}},
	} {
		if want.Errors == nil {
			want.Errors = []engine.FieldError{}
		}
		mustBody(t, h.audioDo("GET", query, nil, 400), want)
	}
	// Agents: another account's is 403, an unknown one 404; no key 401.
	mustStatus(t, h.do("GET", agentsBase+"/nope/audio-cache", nil, builderHeaders...), 404)
	mustStatus(t, h.do("GET", audioBase, nil), 401)
	// The agent's id and PROJECT-<id> name it too.
	mustBody(t, h.do("GET", agentsBase+"/PROJECT-2001/audio-cache?sort=id", nil, builderHeaders...), audioList(e1, e2, e3))
}

func TestAudioCacheOtherAccount(t *testing.T) {
	t.Parallel()
	h := newHarness(t, telScenario)
	r := h.do("GET", agentsBase+"/help/audio-cache", nil, builderHeaders...)
	mustStatus(t, r, 404) // a slug of another account names no agent of this one
	r = h.do("GET", agentsBase+"/4001/audio-cache", nil, builderHeaders...)
	mustStatus(t, r, 403)
	mustBody(t, r, builderError{Message: engine.MsgNoPermission, Errors: []engine.FieldError{}})
}

// TestAudioCacheFile: the audio of an entry is the speech of its text in
// its voice, the same bytes for the same seed.
func TestAudioCacheFile(t *testing.T) {
	t.Parallel()
	file := func(seed string) []byte {
		t.Helper()
		h := newHarness(t, strings.Replace(string(scenarioDefaultYAML()), "seed: 1\n", "seed: "+seed+"\n", 1))
		h.dial()
		h.advance(time.Second)
		r := h.audioDo("GET", "/1/file", nil, 200)
		if ct := r.Header.Get("Content-Type"); ct != "audio/wav" {
			t.Fatalf("Content-Type %q", ct)
		}
		return r.Body
	}
	a := file("1")
	in, err := wav.Parse(a)
	if err != nil || in.Duration != wav.SpeechDuration(greeting) || in.SampleRate != 16000 {
		t.Fatalf("file %+v, %v", in, err)
	}
	if !bytes.Equal(a, file("1")) {
		t.Fatal("the same seed gave other bytes")
	}
	if bytes.Equal(a, file("2")) {
		t.Fatal("another seed gave the same bytes")
	}
	h := newHarness(t)
	h.unchanged(t, func() {
		mustBody(t, h.audioDo("GET", "/one/file", nil, 400), builderError{Message: audio.MsgAudioInvalidID, Errors: []engine.FieldError{}})
		mustBody(t, h.audioDo("GET", "/7/file", nil, 404), builderError{Message: audio.MsgAudioNotFound, Errors: []engine.FieldError{}})
	})
}

func TestAudioCacheDelete(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	conv := h.dial()
	h.say(conv, "hours")
	h.say(conv, "order 12")
	h.advance(time.Second)
	h.unchanged(t, func() {
		r := h.audioDo("DELETE", "/x1", nil, 400)
		mustBody(t, r, builderError{Message: audio.MsgAudioInvalidID, Errors: []engine.FieldError{}})
		h.audioDo("DELETE", "/9", nil, 404)
		mustStatus(t, h.do("DELETE", agentsBase+"/nope/audio-cache/1", nil, builderHeaders...), 404)
		for name, body := range map[string]any{
			"none": map[string]any{"ids": []string{}}, "many": map[string]any{"ids": strings.Split(strings.Repeat("1,", 20)+"2", ",")},
			"type": map[string]any{"ids": "1"}, "missing": map[string]any{},
		} {
			r := h.audioDo("POST", "/bulk-delete", body, 400)
			if len(r.Map(t)["errors"].([]any)) != 1 {
				t.Errorf("%s: %s", name, r.Body)
			}
		}
	})
	mustBody(t, h.audioDo("DELETE", "/2", nil, 200), map[string]any{"success": true})
	h.audioDo("DELETE", "/2", nil, 404)
	mustBody(t, h.audioDo("POST", "/bulk-delete", map[string]any{"ids": []string{"3", "x", "2", "3", "03", "1", "99"}}, 200),
		map[string]any{"deleted": []string{"3", "1"}, "failed": []string{"x", "2", "03", "99"}})
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList())
	if n, _ := h.api.Audio().CountAudioEntries(); n != 0 {
		t.Fatalf("CountAudioEntries = %d", n)
	}
	// The ids go on: a deleted entry's id is not given again.
	h.say(conv, "hours")
	h.advance(time.Second)
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(audioEntry(4, hours, 0, h.clock.Now())))
}

// TestAudioCacheUpload replaces an entry's audio with a WAV file.
func TestAudioCacheUpload(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.dial()
	h.advance(time.Second)
	up := wav.Speech(42, "mine", "one two three") // 1.5 s
	h.audioDo("PATCH", "/1/file", up, 204, "Content-Type", "audio/wav", "X-Filename", "greeting-v2.wav")
	want := audioEntry(1, greeting, 0, h.start.Add(time.Second))
	want["duration"], want["regenerated"], want["audioFilename"] = 1.5, true, "greeting-v2.wav"
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(want))
	if got := h.audioDo("GET", "/1/file", nil, 200).Body; !bytes.Equal(got, up) {
		t.Fatal("the file is not the upload")
	}
	// Without X-Filename the name is <entryId>.wav.
	h.audioDo("PATCH", "/1/file", wav.Speech(1, "v", "a"), 204, "Content-Type", "audio/wav")
	want["duration"], want["audioFilename"] = 0.7, "1.wav"
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(want))

	// A file of 6 MB is taken; one byte more is 400; past the route's
	// limit the body is 413.
	big := wav.Speech(1, "v", strings.Repeat("word ", 490)) // 196.3 s, 6,281,644 bytes
	if len(big) > audio.MaxAudioFile {
		t.Fatalf("%d bytes", len(big))
	}
	big = append(big, make([]byte, audio.MaxAudioFile-len(big))...)
	h.audioDo("PATCH", "/1/file", big, 204, "Content-Type", "audio/wav")
	h.unchanged(t, func() {
		for name, tc := range map[string]struct {
			body    []byte
			status  int
			message string
		}{
			"empty":     {nil, 400, audio.MsgAudioEmptyBody},
			"not wav":   {[]byte("RIFF....AVI LIST"), 400, audio.MsgAudioFileInvalid},
			"too large": {append(big, 0), 400, audio.MsgAudioFileTooLarge},
			"over body": {make([]byte, audioBodyLimit+1), 413, "Request body exceeds 7340032 bytes."},
		} {
			r := h.audioDo("PATCH", "/1/file", tc.body, tc.status, "Content-Type", "audio/wav")
			if msg := r.Map(t)["message"]; msg != tc.message {
				t.Errorf("%s: message %q, want %q", name, msg, tc.message)
			}
		}
		h.audioDo("PATCH", "/2/file", up, 404, "Content-Type", "audio/wav")
		h.audioDo("PATCH", "/two/file", up, 400, "Content-Type", "audio/wav")
		h.audioDo("PATCH", "/1/file", up, 400, "Content-Type", "audio/wav", "X-Filename", strings.Repeat("n", 256))
	})
}

// form is a multipart body of the details update.
func form(t *testing.T, file []byte, settings string, parts ...string) ([]byte, string) {
	t.Helper()
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	if file != nil {
		hdr := textproto.MIMEHeader{}
		hdr.Set("Content-Disposition", `form-data; name="file"; filename="new.wav"`)
		hdr.Set("Content-Type", "audio/wav")
		p, err := w.CreatePart(hdr)
		if err != nil {
			t.Fatal(err)
		}
		p.Write(file)
	}
	if settings != "" {
		if err := w.WriteField("settings", settings); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i+1 < len(parts); i += 2 {
		if err := w.WriteField(parts[i], parts[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes(), w.FormDataContentType()
}

func TestAudioCacheDetails(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.dial()
	h.advance(time.Second)
	up := wav.Speech(42, "mine", "Hello and welcome")
	body, ct := form(t, up, `{"text":"Hello and welcome","config":{"stability":0.4,"instantMode":true,"custom":"kept"}}`, "other", "ignored")
	h.audioDo("PUT", "/1/details", body, 204, "Content-Type", ct)
	want := audioEntry(1, "Hello and welcome", 0, h.start.Add(time.Second))
	want["regenerated"], want["audioFilename"] = true, "new.wav"
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(want))
	if got := h.audioDo("GET", "/1/file", nil, 200).Body; !bytes.Equal(got, up) {
		t.Fatal("the file is not the upload")
	}
	h.unchanged(t, func() {
		for name, tc := range map[string]struct {
			file     []byte
			settings string
			message  string
		}{
			"no file":       {nil, `{"text":"a"}`, audio.MsgAudioFilePart},
			"no settings":   {up, "", audio.MsgAudioSettings},
			"not json":      {up, "{text", audio.MsgAudioSettings},
			"no text":       {up, `{"config":{}}`, audio.MsgAudioSettings},
			"config type":   {up, `{"text":"a","config":{"speed":"fast"}}`, audio.MsgAudioSettings},
			"config object": {up, `{"text":"a","config":[]}`, audio.MsgAudioSettings},
			"not wav":       {[]byte("hello"), `{"text":"a"}`, audio.MsgAudioFileInvalid},
		} {
			b, ct := form(t, tc.file, tc.settings)
			r := h.audioDo("PUT", "/1/details", b, 400, "Content-Type", ct)
			if msg := r.Map(t)["message"]; msg != tc.message {
				t.Errorf("%s: message %q, want %q (%s)", name, msg, tc.message, r.Body)
			}
		}
		r := h.audioDo("PUT", "/1/details", up, 400, "Content-Type", "audio/wav")
		mustBody(t, r, builderError{Message: "Request body must be multipart/form-data with a file part and a settings part.", Errors: []engine.FieldError{}})
		h.audioDo("PUT", "/1/details", []byte("--x\r\nbroken"), 400, "Content-Type", "multipart/form-data; boundary=x")
		b, ct := form(t, up, `{"text":"a"}`)
		h.audioDo("PUT", "/5/details", b, 404, "Content-Type", ct)
	})
	b, ct := form(t, up, `{"text":"a","config":{"speed":"fast","volume":true}}`)
	mustBody(t, h.audioDo("PUT", "/1/details", b, 400, "Content-Type", ct), builderError{Message: audio.MsgAudioSettings,
		Errors: []engine.FieldError{{Field: "settings/config/speed", Message: "has the wrong type"}, {Field: "settings/config/volume", Message: "has the wrong type"}}})
}

func TestAudioCacheSynthesize(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.dial()
	h.advance(time.Second)
	preview := func(body map[string]any) []byte {
		t.Helper()
		var out []byte
		h.unchanged(t, func() { out = h.audioDo("POST", "/1/synthesize", body, 200).Body })
		return out
	}
	a := preview(map[string]any{"text": "Welcome to the new line.", "config": map[string]any{"speed": 1.1}})
	if in, err := wav.Parse(a); err != nil || in.Duration != wav.SpeechDuration("Welcome to the new line.") {
		t.Fatalf("preview %+v, %v", in, err)
	}
	if !bytes.Equal(a, preview(map[string]any{"text": "Welcome to the new line.", "config": map[string]any{"speed": 1.1}})) {
		t.Fatal("the same request gave other bytes")
	}
	if bytes.Equal(a, preview(map[string]any{"text": "Welcome to the new line.", "config": map[string]any{"speed": 1.2}})) {
		t.Fatal("other settings gave the same bytes")
	}
	if bytes.Equal(a, preview(map[string]any{"text": "Welcome to the new line.", "config": map[string]any{"speed": 1.1}, "language": "en-GB"})) {
		t.Fatal("another language gave the same bytes")
	}
	// Nothing is saved: the entry is as it was.
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList(audioEntry(1, greeting, 0, h.start.Add(time.Second))))
	h.unchanged(t, func() {
		mustBody(t, h.audioDo("POST", "/1/synthesize", map[string]any{}, 400), builderError{Message: engine.MsgValidationFailed,
			Errors: []engine.FieldError{{Field: "text", Message: "is required"}, {Field: "config", Message: "is required"}}})
		mustBody(t, h.audioDo("POST", "/1/synthesize", map[string]any{"text": "", "config": map[string]any{"speed": "fast", "modelId": 3}, "language": "English"}, 400),
			builderError{Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "text", Message: "must be 1 to 5000 characters"},
				{Field: "language", Message: "must be a language tag, e.g. en-US"},
				{Field: "config/modelId", Message: "has the wrong type"}, {Field: "config/speed", Message: "has the wrong type"}}})
		h.audioDo("POST", "/1/synthesize", map[string]any{"text": "a", "config": "x"}, 400)
		h.audioDo("POST", "/8/synthesize", map[string]any{"text": "a", "config": map[string]any{}}, 404)
		h.audioDo("POST", "/a/synthesize", map[string]any{"text": "a", "config": map[string]any{}}, 400)
	})
}

// TestAudioCacheWorld: deleting the agent drops its cache and files; a
// reset brings back the scenario's; fault rules name the family; the
// journal records it.
func TestAudioCacheWorld(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.dial()
	h.advance(time.Second)
	h.audioDo("PATCH", "/1/file", wav.Speech(1, "v", "hi"), 204, "Content-Type", "audio/wav")
	if e := h.journal.List(Filter{}); e[len(e)-1].Family != "audio_cache" {
		t.Fatalf("journal family %q", e[len(e)-1].Family)
	}
	h.mwAdd(faults.Rule{Match: faults.Match{Family: "audio_cache"}, Times: 1, Action: faults.Action{Status: 503}})
	h.audioDo("GET", "", nil, 503)
	h.audioDo("GET", "", nil, 200)

	mustStatus(t, h.do("DELETE", agentsBase+"/support", nil, builderHeaders...), 204)
	for _, kind := range []string{audio.DocAudioCache, audio.DocAudioFile} {
		if n, err := h.api.CountDocs(kind); err != nil || n != 0 {
			t.Fatalf("%s documents: %d, %v", kind, n, err)
		}
	}
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	mustBody(t, h.audioDo("GET", "", nil, 200), audioList())
}

func TestAudioCacheEnvelope(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {builder_errors: envelope}\n")
	r := h.audioDo("DELETE", "/abc", nil, 400)
	mustBody(t, r, envelopeBody(r, audio.CodeAudioInvalidID, audio.MsgAudioInvalidID))
	r = h.audioDo("GET", "/3/file", nil, 404)
	mustBody(t, r, envelopeBody(r, audio.CodeAudioNotFound, audio.MsgAudioNotFound))
	r = h.audioDo("GET", "?sort=nope", nil, 400)
	if r.Map(t)["error_code"] != audio.CodeAudioInvalidSort {
		t.Fatalf("body %s", r.Body)
	}
}
