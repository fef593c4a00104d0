package mockplatform

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/textproto"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/internal/wav"
)

// TestRealProfileVoiceAndAudio calls the voice library's and the audio
// cache's operations in the real documents' forms, under the real
// profile: the observer checks each exchange against the agents document
// (parity_test.go), as TestRealProfileTour does for the others.
func TestRealProfileVoiceAndAudio(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioYAML([]byte(realProfileLayer)))
	c := p.Client()
	bu := p.BuilderURL("us") + "/v1"
	key := []string{"x-api-key", "test-builder-key", "X-PolyAI-Correlation-Id", "adk-voice-tour"}
	call := func(want int, method, path string, body any, headers ...string) reply {
		t.Helper()
		r := send(t, c, method, bu+path, body, append(append([]string{}, key...), headers...)...)
		mustStatus(t, r, want)
		return r
	}

	// Voice library.
	lib := "/accounts/acme/voice-library"
	call(200, "GET", lib, nil)
	call(200, "GET", lib+"?language=en-US&gender=female&provider=GOOGLE&isPolyVoice=true", nil)
	made := call(200, "POST", lib, map[string]any{"name": "Tour", "provider": "ELEVENLABS", "providerVoiceId": "21m00Tcm4TlvDq8ikWAM",
		"config": map[string]any{"stability": 0.5}, "voiceMetadata": map[string]any{"language": "en-GB"}}).object(t)
	voice := lib + "/" + made["voice"].(map[string]any)["id"].(string)
	call(400, "POST", lib, map[string]any{"name": "No provider"})
	call(200, "GET", voice, nil)
	call(200, "PATCH", voice, map[string]any{"name": "Tour 2"})
	call(403, "PATCH", lib+"/VOICE-6fad73f6", map[string]any{"name": "Mine"})
	call(404, "GET", lib+"/VOICE-00000000", nil)
	call(404, "GET", "/accounts/nope/voice-library", nil)
	sample := call(200, "GET", voice+"/sample", nil).object(t)
	audio := send(t, c, "GET", sample["sampleUrl"].(string), nil)
	mustStatus(t, audio, 200)
	if _, err := wav.Parse(audio.Body); err != nil {
		t.Fatalf("sample: %v", err)
	}

	// Audio cache: a call to the agent's number caches its greeting.
	if _, err := p.Dial("+14155550150", "+14155550999"); err != nil {
		t.Fatal(err)
	}
	p.Advance(time.Second)
	ac := "/agents/support/audio-cache"
	list := call(200, "GET", ac+"?limit=10&offset=0&sort=hit_count:desc", nil).object(t)
	if list["totalCount"] != 1.0 {
		t.Fatalf("list %v", list)
	}
	call(400, "GET", ac+"?sort=volume:up", nil)
	file := call(200, "GET", ac+"/1/file", nil)
	if ct := file.Header.Get("Content-Type"); ct != "audio/wav" {
		t.Fatalf("Content-Type %q", ct)
	}
	call(400, "GET", ac+"/one/file", nil)
	call(204, "PATCH", ac+"/1/file", wav.Speech(3, "v", "Hello again."), "Content-Type", "audio/wav", "X-Filename", "hello.wav")
	call(400, "PATCH", ac+"/1/file", []byte("not a wav"), "Content-Type", "audio/wav")
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Disposition", `form-data; name="file"; filename="hello.wav"`)
	hdr.Set("Content-Type", "audio/wav")
	part, err := w.CreatePart(hdr)
	if err == nil {
		_, err = part.Write(wav.Speech(4, "v", "Hello there again."))
	}
	if err == nil {
		err = w.WriteField("settings", `{"text":"Hello there again.","config":{"stability":0.3}}`)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	call(204, "PUT", ac+"/1/details", b.Bytes(), "Content-Type", w.FormDataContentType())
	call(200, "POST", ac+"/1/synthesize", map[string]any{"text": "A preview.", "config": map[string]any{"speed": 1.1}, "language": "en-US"})
	call(400, "POST", ac+"/1/synthesize", map[string]any{"text": "A preview."})
	call(404, "POST", ac+"/9/synthesize", map[string]any{"text": "A preview.", "config": map[string]any{}})
	call(400, "POST", ac+"/bulk-delete", map[string]any{"ids": strings.Split(strings.Repeat("1,", 21), ",")[:21]})
	bulk := call(200, "POST", ac+"/bulk-delete", map[string]any{"ids": []string{"1", "2"}})
	var got struct{ Deleted, Failed []string }
	if err := json.Unmarshal(bulk.Body, &got); err != nil || len(got.Deleted) != 1 || len(got.Failed) != 1 {
		t.Fatalf("bulk delete %s", bulk.Body)
	}
	call(404, "DELETE", ac+"/1", nil)
	call(400, "DELETE", ac+"/first", nil)
	if _, err := p.Dial("+14155550150", ""); err != nil {
		t.Fatal(err)
	}
	p.Advance(time.Second)
	call(200, "DELETE", ac+"/2", nil)
}
