package mockplatform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/internal/wav"
)

// kitAudioClient makes the requests of the official agent development kit's
// PlatformAPIHandler (polyai/adk, src/poly/handlers/platform_api.py) as
// it makes them: the region's builder base, X-API-KEY, a correlation id
// adk-<uuid4>, X-Poly-Source: adk; JSON calls (make_request) also send
// Content-Type: application/json and a body only when there is data;
// file calls set their own headers.
type kitAudioClient struct {
	t    *testing.T
	c    *http.Client
	base string // https://api.us.poly.ai, here the mock's builder base
	n    int
}

func (k *kitAudioClient) headers(req *http.Request, json bool) {
	k.n++
	req.Header.Set("X-API-KEY", "test-builder-key")
	req.Header.Set("X-PolyAI-Correlation-Id", fmt.Sprintf("adk-00000000-0000-4000-8000-%012d", k.n))
	req.Header.Set("X-Poly-Source", "adk")
	if json {
		req.Header.Set("Content-Type", "application/json")
	}
}

// do sends a request and fails on a status >= 400 (raise_for_status).
func (k *kitAudioClient) do(req *http.Request) ([]byte, int) {
	k.t.Helper()
	resp, err := k.c.Do(req)
	if err != nil {
		k.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		k.t.Fatal(err)
	}
	if resp.StatusCode >= 400 {
		k.t.Fatalf("%s %s: %d %s", req.Method, req.URL, resp.StatusCode, b)
	}
	return b, resp.StatusCode
}

// makeRequest is PlatformAPIHandler.make_request: JSON in, JSON out ({}
// for a 204).
func (k *kitAudioClient) makeRequest(method, endpoint string, data any, params url.Values) map[string]any {
	k.t.Helper()
	u := k.base + endpoint
	if params != nil {
		u += "?" + params.Encode()
	}
	var body io.Reader
	if data != nil {
		b, err := json.Marshal(data)
		if err != nil {
			k.t.Fatal(err)
		}
		body = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, u, body)
	if err != nil {
		k.t.Fatal(err)
	}
	k.headers(req, true)
	b, status := k.do(req)
	out := map[string]any{}
	if status == http.StatusNoContent {
		return out
	}
	if err := json.Unmarshal(b, &out); err != nil {
		k.t.Fatalf("%s %s: not JSON: %s", method, endpoint, b)
	}
	return out
}

// listAudioCache is list_audio_cache(limit=50, offset=0, sort=None).
func (k *kitAudioClient) listAudioCache(project string, limit, offset int, sort string) map[string]any {
	params := url.Values{"limit": {fmt.Sprint(limit)}, "offset": {fmt.Sprint(offset)}}
	if sort != "" {
		params.Set("sort", sort)
	}
	return k.makeRequest("GET", "/v1/agents/"+project+"/audio-cache", nil, params)
}

// getAudioCacheFile is get_audio_cache_file: the raw bytes.
func (k *kitAudioClient) getAudioCacheFile(project, entry string) []byte {
	req, _ := http.NewRequest("GET", k.base+"/v1/agents/"+project+"/audio-cache/"+entry+"/file", nil)
	k.headers(req, false)
	b, _ := k.do(req)
	return b
}

// updateAudioCacheFile is update_audio_cache_file: raw WAV bytes,
// Content-Type audio/wav, X-Filename when given.
func (k *kitAudioClient) updateAudioCacheFile(project, entry string, audio []byte, filename string) {
	req, _ := http.NewRequest("PATCH", k.base+"/v1/agents/"+project+"/audio-cache/"+entry+"/file", bytes.NewReader(audio))
	k.headers(req, false)
	req.Header.Set("Content-Type", "audio/wav")
	if filename != "" {
		req.Header.Set("X-Filename", filename)
	}
	k.do(req)
}

// updateAudioCacheDetails is update_audio_cache_details: requests'
// multipart form of data={"settings": json.dumps(settings)} then
// files={"file": (filename, audio, "audio/wav")}.
func (k *kitAudioClient) updateAudioCacheDetails(project, entry string, audio []byte, settings map[string]any, filename string) {
	var b bytes.Buffer
	w := multipart.NewWriter(&b)
	s, _ := json.Marshal(settings)
	err := w.WriteField("settings", string(s))
	hdr := textproto.MIMEHeader{}
	hdr.Set("Content-Disposition", fmt.Sprintf(`form-data; name="file"; filename=%q`, filename))
	hdr.Set("Content-Type", "audio/wav")
	var part io.Writer
	if err == nil {
		part, err = w.CreatePart(hdr)
	}
	if err == nil {
		_, err = part.Write(audio)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		k.t.Fatal(err)
	}
	req, _ := http.NewRequest("PUT", k.base+"/v1/agents/"+project+"/audio-cache/"+entry+"/details", &b)
	k.headers(req, false)
	req.Header.Set("Content-Type", w.FormDataContentType())
	k.do(req)
}

// synthesizeAudioCache is synthesize_audio_cache: JSON in, WAV out.
func (k *kitAudioClient) synthesizeAudioCache(project, entry, text string, config map[string]any, language string) []byte {
	body := map[string]any{"text": text, "config": config}
	if language != "" {
		body["language"] = language
	}
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", k.base+"/v1/agents/"+project+"/audio-cache/"+entry+"/synthesize", bytes.NewReader(b))
	k.headers(req, true)
	out, _ := k.do(req)
	return out
}

// TestKitAudioCacheCalls runs the kit's audio cache calls, with the kit's
// paths, parameters, headers and bodies, as its CLI chains them (poly
// audio-cache list, get-file, update-file, update-details, synthesize,
// delete, bulk-delete), against the mock under the real profile.
func TestKitAudioCacheCalls(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioYAML([]byte(realProfileLayer)))
	k := &kitAudioClient{t: t, c: p.Client(), base: p.BuilderURL("us")}
	const project = "support"

	// No calls yet: the CLI prints "No audio cache entries found."
	if got := k.listAudioCache(project, 50, 0, ""); len(got["entries"].([]any)) != 0 {
		t.Fatalf("list %v", got)
	}
	// What the agent says on calls fills the cache.
	call, err := p.Dial("+14155550150", "+14155550999")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Say(call.ConversationID, "what are your hours?"); err != nil {
		t.Fatal(err)
	}
	p.Advance(time.Second)
	if _, err := p.Dial("+14155550150", "+14155550998"); err != nil {
		t.Fatal(err)
	}
	list := k.listAudioCache(project, 20, 0, "hit_count:desc")
	entries := list["entries"].([]any)
	if len(entries) != 2 || list["totalCount"] != 2.0 {
		t.Fatalf("list %v", list)
	}
	top := entries[0].(map[string]any)
	if top["transcript"] != "Hi, how can I help you today?" || top["hitCount"] != 1.0 || top["id"] != "1" {
		t.Fatalf("most hit entry %v", top)
	}
	if page := k.listAudioCache(project, 1, 1, ""); len(page["entries"].([]any)) != 1 {
		t.Fatalf("page %v", page)
	}

	// get-file writes <entry_id>.wav: a WAV file.
	if _, err := wav.Parse(k.getAudioCacheFile(project, "1")); err != nil {
		t.Fatalf("get-file: %v", err)
	}
	// update-file sends the file's base name.
	replacement := wav.Speech(9, "studio", "Hello, thanks for calling.")
	k.updateAudioCacheFile(project, "1", replacement, "replacement.wav")
	if got := k.getAudioCacheFile(project, "1"); !bytes.Equal(got, replacement) {
		t.Fatal("get-file after update-file is not the upload")
	}
	// update-details sends --text and --config (default "{}").
	k.updateAudioCacheDetails(project, "2", wav.Speech(9, "studio", "We open at nine."), map[string]any{"text": "We open at nine.", "config": map[string]any{}}, "r.wav")
	// synthesize writes <entry_id>-preview.wav.
	if _, err := wav.Parse(k.synthesizeAudioCache(project, "2", "Hello there", map[string]any{}, "en-US")); err != nil {
		t.Fatalf("synthesize: %v", err)
	}
	after := k.listAudioCache(project, 50, 0, "")
	byID := map[string]map[string]any{}
	for _, e := range after["entries"].([]any) {
		byID[e.(map[string]any)["id"].(string)] = e.(map[string]any)
	}
	if e := byID["1"]; e["regenerated"] != true || e["audioFilename"] != "replacement.wav" {
		t.Fatalf("entry 1 %v", e)
	}
	if e := byID["2"]; e["transcript"] != "We open at nine." || e["audioFilename"] != "r.wav" {
		t.Fatalf("entry 2 %v", e)
	}

	// delete answers {"success": true}; bulk-delete splits --ids on commas.
	if got := k.makeRequest("DELETE", "/v1/agents/"+project+"/audio-cache/1", nil, nil); got["success"] != true {
		t.Fatalf("delete %v", got)
	}
	got := k.makeRequest("POST", "/v1/agents/"+project+"/audio-cache/bulk-delete", map[string]any{"ids": strings.Split("1,2", ",")}, nil)
	if fmt.Sprint(got["deleted"]) != "[2]" || fmt.Sprint(got["failed"]) != "[1]" {
		t.Fatalf("bulk-delete %v", got)
	}
	if left := k.listAudioCache(project, 50, 0, ""); left["totalCount"] != 0.0 {
		t.Fatalf("left %v", left)
	}
}
