package store

import (
	"encoding/binary"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
)

// TestRecordCodecEqualsRoundTrip: decoding a compact record gives exactly
// what decoding the record's JSON gave (types, nil versus empty, time
// locations), with strings inline and from the string table; a record
// JSON refuses is refused.
func TestRecordCodecEqualsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	var tab strTab
	check := func(name string, c *Conversation) {
		t.Helper()
		_, jsonErr := json.Marshal(c)
		for pass := range 2 { // the second time, repeated strings are in the table
			raw, err := encodeRecord(c, "", &tab, 0)
			tab.pending = tab.pending[:0]
			if (err != nil) != (jsonErr != nil) {
				t.Fatalf("%s: error %v, JSON's %v", name, err, jsonErr)
			}
			if err != nil {
				return
			}
			got, err := decodeConv(convKey(c), raw, tab.load())
			if err != nil {
				t.Fatalf("%s pass %d: %v", name, pass, err)
			}
			if d := cmp.Diff(roundTrip(t, c), got, exactTime); d != "" {
				t.Fatalf("%s pass %d: decoded record differs from a JSON round trip (-want +got):\n%s", name, pass, d)
			}
		}
	}
	check("empty", &Conversation{ID: "x", Region: "us", AccountID: "a", ProjectID: "p"})
	check("full", fullConv())
	for i := range 3000 {
		check(fmt.Sprint("random ", i), randConv(r, i))
	}
	chat := mkConv("us", "1001", "2001", "CONV-1", base)
	chat.IntegrationAttributes = map[string]any{"customer_id": "42"}
	chat.State = map[string]any{"conversation_id": chat.ID, "channel": chat.Channel, "client_env": chat.Environment,
		"variant_id": chat.VariantID, "asr_lang_code": chat.Language, "integration_attributes": map[string]any{"customer_id": "42"}}
	check("built-in state", chat)
	chat.State["integration_attributes"] = map[string]any{"customer_id": 42}
	chat.State["channel"] = "other"
	check("built-in keys with other values", chat)
	chat.IntegrationAttributes = map[string]any{}
	chat.State["integration_attributes"] = map[string]any{}
	check("empty attributes", chat)
	for name, v := range map[string]any{
		"NaN": math.NaN(), "channel": make(chan int), "large int": 1<<53 + 1, "struct": struct{ A int }{3},
		"invalid UTF-8": "\xff", "-0": math.Copysign(0, -1), "nested": []any{map[string]any{"\xff": 1, "k": 2}},
		"int64": int64(-1 << 40), "float32": float32(0.1), "time": base.In(time.FixedZone("Y", -7200)),
	} {
		c := mkConv("us", "a", "p", "x", base)
		c.State["v"] = v
		check(name, c)
	}
	for name, tm := range map[string]time.Time{"year 10000": time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC),
		"year -1": time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC), "zone": base.In(time.FixedZone("Z", 3600)),
		"zero zone": time.Time{}.In(time.FixedZone("", 0)), "before 1970": time.Date(1900, 5, 1, 0, 0, 0, 7, time.UTC)} {
		c := mkConv("us", "a", "p", "x", tm)
		check("start "+name, c)
		c = mkConv("us", "a", "p", "x", base)
		c.EndedAt = tm
		c.Turns[0].UserInputAt = tm
		check("time "+name, c)
	}
	bad := mkConv("us", "a/b%", "p/q", "x/y", base)
	check("escaped key", bad)
	bad.ID = "bad \xff id"
	raw, err := encodeRecord(bad, "", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	got, err := decodeConv(convKey(bad), raw, nil)
	if err != nil || got.ID != bad.ID {
		t.Fatalf("key fields are kept as the key holds them: %v %q", err, got.ID)
	}
}

// TestRecordSkippedTurns: a record read with its turns skipped
// (AppendNewTurns' misses) is the record decoded but for its turns, which
// its prior turns describe as priorOf describes the decoded ones, found
// at the same place; a damaged record fails with the same error.
func TestRecordSkippedTurns(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 14))
	var tab strTab
	// check compares the two readings of raw and says whether it decodes.
	check := func(name, pk, raw string, strs []string) (recTurns, bool) {
		t.Helper()
		want, wantAt, _, wantErr := decodeRecordWith(pk, raw, strs, turnsOwn)
		got, gotAt, prior, err := decodeRecordWith(pk, raw, strs, turnsSkipped)
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Fatalf("%s: error %v, decoding's %v", name, err, wantErr)
		}
		if err != nil {
			return recTurns{}, false
		}
		if wantPrior := priorOf(want.Turns); prior != wantPrior {
			t.Fatalf("%s: prior turns %+v, want %+v", name, prior, wantPrior)
		}
		if gotAt != wantAt {
			t.Fatalf("%s: turns at %+v, want %+v", name, gotAt, wantAt)
		}
		want.Turns = nil
		if d := cmp.Diff(want, got, exactTime); d != "" {
			t.Fatalf("%s: differs from the decoded record (-want +got):\n%s", name, d)
		}
		return wantAt, true
	}
	// damage changes raw's bytes at (byte i: x) and mends the checksum,
	// so that the decoder itself meets the damage.
	damage := func(pk, raw string, at map[int]byte) string {
		b := []byte(raw)
		for i, x := range at {
			b[i] ^= x
		}
		binary.LittleEndian.PutUint32(b[len(b)-4:], recChecksum(pk, b[:len(b)-4]))
		return string(b)
	}
	decoded := map[bool]int{} // damaged records: how many decode, how many fail
	for i := range 3001 {
		c := fullConv() // every field set, then random records
		if i > 0 {
			c = randConv(r, i)
		}
		if len(c.Turns) > 0 && r.IntN(2) == 0 { // a greeting, or a first turn that is not one
			t0 := &c.Turns[0]
			t0.UserInput, t0.IsSilence, t0.IsOOD = "", r.IntN(3) == 0, r.IntN(3) == 0
		}
		c.Region, c.AccountID, c.ProjectID = "us", "a", "p"
		raw, err := encodeRecord(c, "", &tab, 0)
		tab.pending = tab.pending[:0]
		if err != nil {
			continue // a value JSON refuses
		}
		pk, strs := convKey(c), tab.load()
		at, _ := check(fmt.Sprint("record ", i), pk, raw, strs)
		if at.n > 0 {
			// The first turn's flags (one byte) saying that its
			// intents or entities are null, or are not.
			for _, flag := range []byte{turnIntentsNil, turnEntitiesNil} {
				_, ok := check(fmt.Sprint("record ", i, " flag ", flag), pk, damage(pk, raw, map[int]byte{at.at: flag}), strs)
				decoded[ok]++
			}
		}
		for range 5 {
			at := map[int]byte{}
			for range 1 + r.IntN(3) {
				at[1+r.IntN(len(raw)-5)] = byte(1 + r.IntN(255))
			}
			_, ok := check(fmt.Sprint("damaged ", i), pk, damage(pk, raw, at), strs[:r.IntN(len(strs)+1)])
			decoded[ok]++
		}
	}
	if decoded[true] == 0 || decoded[false] == 0 {
		t.Fatalf("damaged records: %d decode, %d fail; want some of each", decoded[true], decoded[false])
	}
}

// TestRecordDecodeDamaged: a damaged compact record is an error, never a
// panic, whatever its bytes.
func TestRecordDecodeDamaged(t *testing.T) {
	c := fullConv()
	c.Region, c.AccountID, c.ProjectID, c.ID, c.StartedAt = "us", "a", "p", "x", base
	var tab strTab
	var raw string
	for range 2 {
		var err error
		if raw, err = encodeRecord(c, "", &tab, 0); err != nil {
			t.Fatal(err)
		}
	}
	pk := convKey(c)
	strs := tab.load()
	for i := 1; i < len(raw); i++ {
		if _, err := decodeConv(pk, raw[:i], strs); err == nil {
			t.Fatalf("record cut at %d decodes", i)
		}
	}
	r := rand.New(rand.NewPCG(9, 10))
	for range 20000 {
		b := []byte(raw)
		for range 1 + r.IntN(3) {
			b[1+r.IntN(len(b)-5)] = byte(r.Uint32())
		}
		// A checksum that matches: the decoder itself meets the damage.
		binary.LittleEndian.PutUint32(b[len(b)-4:], recChecksum(pk, b[:len(b)-4]))
		_, _ = decodeConv(pk, string(b), strs[:r.IntN(len(strs)+1)])
		var sp Span
		_ = decodeStoredSpan(pk, string(b), strs, &sp)
	}
	if _, err := decodeConv("c/us/a", raw, strs); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Fatalf("another key: %v", err)
	}
	if _, err := decodeConv(pk+"x", raw, strs); err == nil {
		t.Fatal("a record decodes under another key")
	}
	// Every damaged byte is found.
	for i := 1; i < len(raw); i++ {
		b := []byte(raw)
		b[i] ^= 0x10
		if _, err := decodeConv(pk, string(b), strs); err == nil {
			t.Fatalf("a record with byte %d damaged decodes", i)
		}
	}
	if _, err := decodeConv(pk, raw, []string{strMissing}); err == nil {
		t.Fatal("a record referring to a missing string decodes")
	}
}

func FuzzRecordDecode(f *testing.F) {
	c := fullConv()
	c.Region, c.AccountID, c.ProjectID, c.ID, c.StartedAt = "us", "a", "p", "x", base
	raw, err := encodeRecord(c, "", nil, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	f.Fuzz(func(t *testing.T, raw string) {
		if raw == "" || raw[0] != recBinary {
			return
		}
		b := binary.LittleEndian.AppendUint32([]byte(raw), recChecksum(convKey(c), []byte(raw)))
		_, _ = decodeConv(convKey(c), string(b), []string{"a", "b"})
	})
}
