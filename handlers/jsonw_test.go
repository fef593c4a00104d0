package handlers

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/agentplatform/mockplatform/store"
)

// randJSONString draws strings with every kind of byte: ASCII, escapes,
// HTML characters, multi-byte runes, U+2028/9 and invalid UTF-8.
func randJSONString(r *rand.Rand) string {
	parts := []string{"a", "Z", " ", `"`, `\`, "<", ">", "&", "\n", "\t", "\b", "\f", "\r", "\x00", "\x1f", "\x7f",
		"é", "☃", "😀", "\u2028", "\u2029", "\xff", "\xc3", "\xe2\x80", "ok"}
	n := r.IntN(8)
	s := ""
	for range n {
		s += parts[r.IntN(len(parts))]
	}
	return s
}

func randJSONValue(r *rand.Rand, depth int) any {
	switch k := r.IntN(9); {
	case k == 0:
		return nil
	case k == 1:
		return r.IntN(2) == 0
	case k == 2:
		return randJSONString(r)
	case k == 3:
		return []float64{0, 1, -1, 1.5, 1e21, 1e20, 1e-6, 1e-7, -2.5e-9, 123456789012345678, math.MaxFloat64,
			math.SmallestNonzeroFloat64, r.NormFloat64() * math.Pow(10, float64(r.IntN(60)-30))}[r.IntN(13)]
	case k == 4:
		return r.IntN(1000) - 500
	case k == 5 && depth < 3:
		m := map[string]any{}
		for range r.IntN(5) {
			m[randJSONString(r)] = randJSONValue(r, depth+1)
		}
		return m
	case k == 6 && depth < 3:
		var l []any
		for range r.IntN(4) {
			l = append(l, randJSONValue(r, depth+1))
		}
		return l
	case k == 7:
		return []string{randJSONString(r)}
	default:
		return time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC) // a type the writer hands to encoding/json
	}
}

// TestJSONWriterMatches: the one-pass writer gives encoding/json's bytes,
// for values and for whole conversation records.
func TestJSONWriterMatches(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 20000 {
		v := randJSONValue(r, 0)
		want, err := json.Marshal(v)
		got, ok := jsonw.AppendValue(nil, v)
		if ok != (err == nil) || (ok && string(got) != string(want)) {
			t.Fatalf("value %d %#v:\n got %s (%v)\nwant %s (%v)", i, v, got, ok, want, err)
		}
	}
	for _, f := range []float64{math.NaN(), math.Inf(1)} {
		if _, ok := jsonw.AppendValue(nil, map[string]any{"x": f}); ok {
			t.Fatalf("%v written", f)
		}
	}
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for i := range 2000 {
		c := &store.Conversation{ID: randJSONString(r), AccountID: "1001", ProjectID: "PROJECT-x", VariantID: randJSONString(r),
			VariantName: randJSONString(r), Environment: "live", Channel: randJSONString(r), StartedAt: now.Add(-time.Duration(r.IntN(1e9)) * time.Millisecond),
			InProgress: r.IntN(2) == 0, FromNumber: randJSONString(r), HandoffReason: randJSONString(r),
			NumSilences: r.IntN(3), NumOOD: r.IntN(3)}
		if r.IntN(2) == 0 {
			c.EndedAt = c.StartedAt.Add(time.Duration(r.IntN(1e6)) * time.Millisecond)
		}
		if m, ok := randJSONValue(r, 1).(map[string]any); ok {
			c.State = m
		}
		if m, ok := randJSONValue(r, 1).(map[string]any); ok {
			c.Metrics = m
		}
		for range r.IntN(4) {
			at := c.StartedAt.Add(time.Duration(r.IntN(1e6)) * time.Microsecond)
			tn := store.Turn{UserInput: randJSONString(r), UserInputAt: at, AgentResponse: randJSONString(r),
				AgentResponseAt: at.Add(time.Duration(r.IntN(5000)) * time.Millisecond), BargeIn: r.IntN(2) == 0,
				IsOOD: r.IntN(2) == 0, Latency: time.Duration(r.IntN(3e9)), TranslatedUserInput: randJSONString(r)}
			if r.IntN(2) == 0 {
				tn.Intents = []string{randJSONString(r)}
			}
			if r.IntN(2) == 0 {
				tn.Entities = map[string]string{randJSONString(r): randJSONString(r), "k": "v"}
			}
			c.Turns = append(c.Turns, tn)
		}
		acc := convquery.DataAccess{Transcripts: r.IntN(4) != 0, Metrics: r.IntN(4) != 0}
		cur := "abc"
		off := 7
		page := &convquery.ConvPage{List: []*store.Conversation{c, c}, Cursor: []*string{nil, &cur}[r.IntN(2)], NextOffset: []*int{nil, &off}[r.IntN(2)]}
		for _, version := range []int{1, 2, 3} {
			latency := r.IntN(2) == 0
			want, err := json.Marshal(renderConvPage(version, page, now, acc, latency))
			got, ok := appendConvPage(nil, version, page, now, acc, latency)
			if ok != (err == nil) || (ok && string(got) != string(want)) {
				t.Fatalf("record %d v%d:\n got %s\nwant %s", i, version, got, want)
			}
		}
	}
}

// TestWSEventWriterMatches compares appendWSEvent with encoding/json over
// random payloads and metadata.
func TestWSEventWriterMatches(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 5000 {
		ev := wsEvent{ID: randJSONString(r), Timestamp: randJSONString(r), Type: randJSONString(r),
			Payload: randJSONValue(r, 0)}
		if r.IntN(2) == 0 {
			n := r.IntN(100)
			ev.Sequence = &n
		}
		if m, ok := randJSONValue(r, 1).(map[string]any); ok || r.IntN(2) == 0 {
			ev.Metadata = m
		}
		want, err := json.Marshal(ev)
		got, ok := appendWSEvent(nil, &ev)
		if ok != (err == nil) || (ok && string(got) != string(want)) {
			t.Fatalf("event %d %#v:\n got %s (%v)\nwant %s (%v)", i, ev, got, ok, want, err)
		}
	}
}

// TestEnvelopeBytes: the error envelope written in one pass is what
// encoding/json writes for it (what gin's c.JSON answered before), for
// awkward strings too.
func TestEnvelopeBytes(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 5000 {
		v := envelope{Success: i%7 == 0, Error: randJSONString(r), ErrorID: randJSONString(r), ErrorCode: randJSONString(r),
			ErrorMessage: randJSONString(r), Data: json.RawMessage(`{"ignored":true}`)}
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := appendEnvelope(nil, v); string(got) != string(want) {
			t.Fatalf("envelope %d %#v:\n got %s\nwant %s", i, v, got, want)
		}
	}
}

// TestAppendJSONRef: a reference is written as the string accountRef or
// projectRef makes.
func TestAppendJSONRef(t *testing.T) {
	t.Parallel()
	for _, id := range []string{"1001", "", "ACCOUNT-", "PROJECT-", "ACCOUNT-x1", "account-x1", "PROJECT-f76d75c2",
		"project-<&>", "2001\u2028", "Prefix-\"q\""} {
		for prefix, ref := range map[string]func(string) string{"ACCOUNT-": accountRef, "PROJECT-": projectRef} {
			if got, want := appendJSONRef(nil, prefix, id), jsonw.AppendString(nil, ref(id)); string(got) != string(want) {
				t.Errorf("%s%q: %s, want %s", prefix, id, got, want)
			}
		}
	}
}
