package store

import (
	"encoding/json"
	"fmt"
	"testing"
	"time"

	gojson "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
)

// decodeSpanCases are records decodeSpan must read exactly as
// the store's decoder does: plain ones, reordered keys, escapes, nulls, nested
// values with quotes and brackets in strings, missing fields, malformed.
var decodeSpanCases = []string{
	`{"id":"A","variant_id":"V","variant_name":"Spring Promo","environment":"live","started_at":"2026-02-01T00:00:00Z","ended_at":"2026-02-01T00:05:00.5Z","in_progress":false,"from_number":"+1","to_number":"+2","language":"en-GB","turns":[{"user_input":"x"}]}`,
	`{"turns":[{"user_input":"a \"quoted\" ] } { [ text","n":[1,[2,{"x":"}"}]]}],"metrics":{"a":{"b":null}},"started_at":"2026-02-01T00:00:00+01:00","in_progress":true,"environment":"sandbox"}`,
	` { "started_at" : "2026-02-01T00:00:00Z" ,	"variant_name" : "Caf\u00e9" , "to_number":"+44"}`,
	`{"variant_name":"a\\b","started_at":"2026-02-01T00:00:00Z"}`,
	`{"variant_name":null,"started_at":"2026-02-01T00:00:00Z","ended_at":"0001-01-01T00:00:00Z"}`,
	`{"num_ood":12,"handoff":true,"x":-1.5e3,"started_at":"2026-02-01T00:00:00Z","in_progress":false}`,
	`{"started_at":"2026-02-01T00:00:00Z","started_at":"2026-02-02T00:00:00Z"}`,
	`{}`,
	`{"started_at":"not a time"}`,
	`{"started_at":"2026-02-01T00:00:00Z"`,
	`{"started_at":}`,
	`{"in_progress":1}`,
	`[1,2]`,
	``,
	"{\"0\":0,\"0)\":true,\"7\":0,\"\\", // goccy/go-json panics on it
}

// decodeSpanCheck: for valid JSON decodeSpan gives the result and error of
// the store's decoder (goccy/go-json); invalid JSON (which the store never
// holds) must only not panic, since the fast path stops reading once it
// has its fields.
func decodeSpanCheck(t *testing.T, raw string) {
	t.Helper()
	if !json.Valid([]byte(raw)) { // the strict check of encoding/json
		var r Span
		_ = decodeSpan(raw, &r)
		return
	}
	var want Span
	wantErr := func() (err error) {
		defer func() {
			if p := recover(); p != nil {
				err = fmt.Errorf("panic: %v", p)
			}
		}()
		return gojson.Unmarshal([]byte(raw), &want)
	}()
	var got Span
	gotErr := decodeSpan(raw, &got)
	if (wantErr == nil) != (gotErr == nil) {
		t.Fatalf("%q: error %v, goccy/go-json says %v", raw, gotErr, wantErr)
	}
	if wantErr == nil {
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(Span{})); diff != "" {
			t.Errorf("%q (-goccy/go-json +decodeSpan):\n%s", raw, diff)
		}
	}
}

func FuzzDecodeSpan(f *testing.F) {
	for _, raw := range decodeSpanCases {
		f.Add(raw)
	}
	f.Fuzz(func(t *testing.T, raw string) { decodeSpanCheck(t, raw) })
}

func TestDecodeSpan(t *testing.T) {
	t.Parallel()
	for _, raw := range decodeSpanCases {
		decodeSpanCheck(t, raw)
	}
}

// Every record the store's encoder writes is read by the fast path (the
// encoder writes the span's fields before the turns) and as the full
// decoder reads it: records with every field set, turns, free-form values
// and strings that need escapes.
func TestSpanFastPathOnStoredRecords(t *testing.T) {
	t.Parallel()
	st := openMem(t)
	start := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	for i := range 300 {
		c := &Conversation{ID: fmt.Sprintf("CONV-%010d", i), Region: "us", AccountID: "1001", ProjectID: "2001",
			VariantID: "VARIANT-A", VariantName: []string{"Spring Promo", "Café", "naïve"}[i%3],
			Environment: []string{"live", "sandbox", "pre-release"}[i%3], Channel: "VOICE-SIP",
			StartedAt: start.Add(time.Duration(i) * time.Minute), InProgress: i%4 == 0,
			FromNumber: "+14155550100", ToNumber: "+447700900123", Language: "en-GB",
			Metrics: map[string]any{"csat": float64(i % 5), "nested": map[string]any{"a": []any{"}", "]"}}},
			State:   map[string]any{"customer_id": fmt.Sprintf("C-%d", i)},
			Turns: []Turn{{UserInput: `a "quoted" ] } { [ text`, AgentResponse: "ok", UserInputAt: start, AgentResponseAt: start.Add(time.Second),
				Intents: []string{"x"}, Entities: map[string]string{"k": "v"}}}}
		if !c.InProgress {
			c.EndedAt = c.StartedAt.Add(time.Duration(1+i%9) * time.Minute)
		}
		if err := st.PutConversation(c); err != nil {
			t.Fatal(err)
		}
	}
	n := 0
	tab := st.tab.load()
	err := st.scanConversations("us", "1001", "2001", time.Time{}, time.Time{}, func(key, raw string) bool {
		n++
		// The record's JSON (the format of data files before the compact
		// one) is read by the fast path.
		c, err := decodeConv(key, raw, tab)
		if err != nil {
			t.Fatal(err)
		}
		js, err := encodeConv(c, 0)
		if err != nil {
			t.Fatal(err)
		}
		decodeSpanCheck(t, js)
		var r Span
		if !decodeSpanFast(js, &r) {
			t.Errorf("%s: stored record not read by the fast path", key)
		}
		// The compact record's span is the full decoding's.
		var got Span
		if err := decodeStoredSpan(key, raw, tab, &got); err != nil {
			t.Fatal(err)
		}
		want := Span{ID: c.ID, StartedAt: c.StartedAt, EndedAt: c.EndedAt, InProgress: c.InProgress,
			Environment: c.Environment, VariantID: c.VariantID, VariantName: c.VariantName,
			Language: c.Language, FromNumber: c.FromNumber, ToNumber: c.ToNumber}
		if got != want || got != r {
			t.Errorf("%s: span %+v, want %+v (JSON fast path %+v)", key, got, want, r)
		}
		return true
	})
	if err != nil || n != 300 {
		t.Fatalf("scanned %d records: %v", n, err)
	}
}
