package store

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	json "github.com/goccy/go-json"
	"github.com/google/go-cmp/cmp"
	"github.com/tidwall/buntdb"
)

// exactTime compares times including their location (cmp would use
// time.Time.Equal, which ignores it).
var exactTime = cmp.Comparer(func(a, b time.Time) bool { return a == b })

// randString returns strings that exercise the encoder's escaping.
func randString(r *rand.Rand) string {
	pool := []string{"", "plain", "Hello, world.", "<b>&amp;</b>", "quote \" back \\ slash",
		"new\nline\ttab\r", "\x00\x01\x1f\x7f", "é ü 日本語 🎉", "\u2028\u2029", "bad \xff\xfe utf8",
		"/path/to", "{\"json\":1}"}
	return pool[r.IntN(len(pool))]
}

func randTime(r *rand.Rand) time.Time {
	switch r.IntN(5) {
	case 0:
		return time.Time{}
	case 1:
		return base.Add(time.Duration(r.Int64N(1e15))).In(time.FixedZone("X", 3600))
	case 2:
		return base.In(time.FixedZone("", 0))
	default:
		return base.Add(time.Duration(r.Int64N(1e15)))
	}
}

// randValue returns a free-form value of a JSON or common Go type.
func randValue(r *rand.Rand, depth int) any {
	n := 14
	if depth > 2 {
		n = 10
	}
	switch r.IntN(n) {
	case 0:
		return nil
	case 1:
		return r.IntN(2) == 0
	case 2:
		return randString(r)
	case 3:
		fs := []float64{0, math.Copysign(0, -1), 1, -2.5, 1e-7, 123456789, 1e21, 1e20, 0.1, 1.0 / 3, math.MaxFloat64, 5e-324}
		return fs[r.IntN(len(fs))]
	case 4:
		is := []int{0, 7, -3, 1 << 40, 1<<53 + 1}
		return is[r.IntN(len(is))]
	case 5:
		return int64(r.IntN(1000))
	case 6:
		return float32(0.1)
	case 7:
		return []string{"a", randString(r)}
	case 8:
		return map[string]string{"k": randString(r)}
	case 9:
		return uint8(200)
	case 10, 11:
		m := map[string]any{}
		for range r.IntN(4) {
			m[randString(r)] = randValue(r, depth+1)
		}
		if r.IntN(6) == 0 {
			return map[string]any(nil)
		}
		return m
	default:
		if r.IntN(6) == 0 {
			return []any(nil)
		}
		l := make([]any, r.IntN(4))
		for i := range l {
			l[i] = randValue(r, depth+1)
		}
		return l
	}
}

func randObject(r *rand.Rand) map[string]any {
	switch r.IntN(4) {
	case 0:
		return nil
	case 1:
		return map[string]any{}
	}
	m := map[string]any{}
	for range 1 + r.IntN(5) {
		m[randString(r)+fmt.Sprint(r.IntN(3))] = randValue(r, 0)
	}
	return m
}

func randConv(r *rand.Rand, i int) *Conversation {
	c := mkConv("us", "acc", "proj", fmt.Sprintf("r%04d", i), base.Add(time.Duration(i)*time.Second))
	if r.IntN(3) == 0 {
		return c
	}
	c.VariantName = randString(r)
	c.ChatChannel = []string{"", "webchat"}[r.IntN(2)]
	c.TTSLanguage = []string{"", "en-US"}[r.IntN(2)]
	c.HandoffReason = randString(r)
	c.StartedAt, c.EndedAt = randTime(r), randTime(r)
	c.Metrics, c.State, c.IntegrationAttributes = randObject(r), randObject(r), randObject(r)
	c.SharedID = randString(r)
	switch r.IntN(3) {
	case 0:
		c.Turns = nil
	case 1:
		c.Turns = []Turn{}
	}
	for j := range c.Turns {
		t := &c.Turns[j]
		t.UserInput, t.AgentResponse = randString(r), randString(r)
		t.TranslatedUserInput = randString(r)
		t.UserInputAt = randTime(r)
		t.Metadata = randObject(r)
		switch r.IntN(3) {
		case 0:
			t.Intents, t.Entities = nil, nil
		case 1:
			t.Intents, t.Entities = []string{}, map[string]string{}
		default:
			t.Intents = []string{randString(r), "b"}
			t.Entities = map[string]string{randString(r): randString(r), "z": "y"}
		}
	}
	c.FunctionErrors = [][]time.Time{nil, {}, {randTime(r)}}[r.IntN(3)]
	c.Crashes = [][]time.Time{nil, {}, {randTime(r), randTime(r)}}[r.IntN(3)]
	c.AwaitedEvents = [][]string{nil, {}, {randString(r)}}[r.IntN(3)]
	switch r.IntN(3) {
	case 0:
		c.Events = nil
	case 1:
		c.Events = []Event{}
	default:
		c.Events = []Event{{ID: randString(r), ReceivedAt: randTime(r), ContentType: "text/plain",
			Payload: [][]byte{nil, {}, []byte("\x00\xffhi")}[r.IntN(3)]}}
	}
	return c
}

// TestEncodeConvMatchesGoccy: the hand-written encoder produces exactly
// goccy's bytes, for realistic and for awkward values.
func TestEncodeConvMatchesGoccy(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	check := func(name string, c *Conversation) {
		t.Helper()
		want, wantErr := json.Marshal(c)
		got, err := encodeConv(c, 0)
		if (err != nil) != (wantErr != nil) {
			t.Fatalf("%s: error %v, goccy's %v", name, err, wantErr)
		}
		if err == nil && got != string(want) {
			t.Fatalf("%s: encoding differs from goccy's:\n got %s\nwant %s", name, got, want)
		}
	}
	check("empty", &Conversation{})
	check("full", fullConv())
	for i := range 2000 {
		check(fmt.Sprint("random ", i), randConv(r, i))
	}
	bad := mkConv("us", "a", "p", "x", base)
	bad.State["nan"] = math.NaN()
	check("NaN", bad)
	bad = mkConv("us", "a", "p", "x", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC))
	check("year 10000", bad)
	bad = mkConv("us", "a", "p", "x", base)
	bad.Metrics["ch"] = make(chan int)
	check("channel", bad)
}

// fullConv sets every field of Conversation, Turn and Event (by
// reflection, so that a field added later is covered) to a non-zero value.
func fullConv() *Conversation {
	c := new(Conversation)
	fillAll(reflect.ValueOf(c).Elem(), 0)
	return c
}

func fillAll(v reflect.Value, n int) {
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprint("s", n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int64:
		v.SetInt(int64(n + 1))
	case reflect.Slice:
		if v.Type().Elem().Kind() == reflect.Uint8 {
			v.SetBytes([]byte("payload"))
			return
		}
		s := reflect.MakeSlice(v.Type(), 2, 2)
		for i := range 2 {
			fillAll(s.Index(i), n+i)
		}
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		e := reflect.New(v.Type().Elem()).Elem()
		if v.Type().Elem().Kind() == reflect.Interface {
			e.Set(reflect.ValueOf(map[string]any{"n": 3, "l": []any{"x", 1.5}}))
		} else {
			fillAll(e, n)
		}
		m.SetMapIndex(reflect.ValueOf(fmt.Sprint("k", n)), e)
		v.Set(m)
	case reflect.Struct:
		if v.Type() == reflect.TypeFor[time.Time]() {
			v.Set(reflect.ValueOf(base.Add(time.Duration(n) * time.Millisecond)))
			return
		}
		for i := range v.NumField() {
			fillAll(v.Field(i), n+i)
		}
	default:
		panic("fill: unhandled kind " + v.Kind().String())
	}
}

// roundTrip is the reference: what decoding c's JSON yields.
func roundTrip(t *testing.T, c *Conversation) *Conversation {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	d, err := decodeConvJSON(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestNormConvEqualsRoundTrip: normConv yields exactly the decoded JSON
// (types, nil versus empty, time locations), or refuses.
func TestNormConvEqualsRoundTrip(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	refused := 0
	for i := range 2000 {
		c := randConv(r, i)
		n, ok := normConv(c)
		if !ok {
			refused++
			continue
		}
		if d := cmp.Diff(roundTrip(t, c), n, exactTime); d != "" {
			t.Fatalf("conversation %d: normConv differs from a JSON round trip (-want +got):\n%s", i, d)
		}
		if d := cmp.Diff(n, copyConv(n), exactTime); d != "" {
			t.Fatalf("conversation %d: copyConv differs (-want +got):\n%s", i, d)
		}
	}
	if refused == 0 || refused > 1800 {
		t.Errorf("normConv refused %d of 2000 random conversations: the test does not cover both paths", refused)
	}
	c := fullConv()
	n, ok := normConv(c)
	if !ok {
		t.Fatal("normConv refused the full conversation")
	}
	if d := cmp.Diff(roundTrip(t, c), n, exactTime); d != "" {
		t.Fatalf("full conversation: normConv differs from a JSON round trip (-want +got):\n%s", d)
	}
	for name, v := range map[string]any{
		"invalid UTF-8": "\xff", "large int": 1<<53 + 1, "struct": struct{}{}, "NaN": math.NaN(),
		"nested invalid": []any{map[string]any{"\xff": 1}},
	} {
		c := mkConv("us", "a", "p", "x", base)
		c.State["v"] = v
		if _, ok := normConv(c); ok {
			t.Errorf("%s: normConv accepted a value it cannot normalise exactly", name)
		}
	}
}

// mutables collects the addresses of the maps, slices and their backing
// arrays reachable from v.
func mutables(v reflect.Value, out map[uintptr]string, path string) {
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if !v.IsNil() {
			mutables(v.Elem(), out, path)
		}
	case reflect.Map:
		if v.IsNil() {
			return
		}
		out[v.Pointer()] = path
		it := v.MapRange()
		for it.Next() {
			mutables(it.Value(), out, path+"."+it.Key().String())
		}
	case reflect.Slice:
		if v.Cap() == 0 {
			return
		}
		out[v.Pointer()] = path
		for i := range v.Len() {
			mutables(v.Index(i), out, fmt.Sprint(path, "[", i, "]"))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			mutables(v.Field(i), out, path+"."+v.Type().Field(i).Name)
		}
	}
}

// TestCopiesShareNothing: copyConv and normConv share no map or slice
// with their input (a new reference field not copied fails here).
func TestCopiesShareNothing(t *testing.T) {
	c := fullConv()
	n, ok := normConv(c)
	if !ok {
		t.Fatal("normConv refused the full conversation")
	}
	for name, d := range map[string]*Conversation{"normConv": n, "copyConv": copyConv(n)} {
		src := map[uintptr]string{}
		src2 := map[uintptr]string{}
		mutables(reflect.ValueOf(c), src, "c")
		mutables(reflect.ValueOf(n), src2, "n")
		got := map[uintptr]string{}
		mutables(reflect.ValueOf(d), got, "copy")
		for p, path := range got {
			if name == "normConv" && src[p] != "" {
				t.Errorf("%s: %s shares memory with the input's %s", name, path, src[p])
			}
			if name == "copyConv" && src2[p] != "" {
				t.Errorf("%s: %s shares memory with the cached %s", name, path, src2[p])
			}
		}
	}
}

// rawDecoded reads the stored record bypassing the cache.
func rawDecoded(t *testing.T, s *Store, region, id string) *Conversation {
	t.Helper()
	var pk, raw string
	var tab []string
	err := s.view(func(tx *buntdb.Tx) error {
		var err error
		if pk, _, err = s.convPKLocked(tx, region, id); err != nil {
			return err
		}
		tab = s.tab.load()
		raw, _, err = get(tx, pk)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	c, err := decodeConv(pk, raw, tab)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// updateFunc is UpdateConversation or AppendTurns.
type updateFunc func(region, id string, fn func(*Conversation) error) (*Conversation, error)

// mustSee checks that each update's fn is given want (the stored record)
// for (region, id); fn fails, so nothing changes (but the cache entry).
func mustSee(t *testing.T, op int, want *Conversation, region, id string, updates ...updateFunc) {
	t.Helper()
	for _, update := range updates {
		if _, err := update(region, id, func(c *Conversation) error {
			if d := cmp.Diff(want, c, exactTime); d != "" {
				return fmt.Errorf("fn's value differs from the stored record (-want +got):\n%s", d)
			}
			return errors.New("read only")
		}); err == nil || err.Error() != "read only" {
			t.Fatalf("op %d: %v", op, err)
		}
	}
}

func mustGet(t *testing.T, s *Store, region, id string) *Conversation {
	t.Helper()
	c, err := s.GetConversation(region, id)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestConversationCacheSemantics: with the cache, reads are exactly what
// decoding the stored JSON gives, and no caller can reach cached memory.
func TestConversationCacheSemantics(t *testing.T) {
	s := openMem(t)
	in := mkConv("us", "acc", "proj", "c1", base)
	in.State["count"] = 1 // an int: reads must give float64
	if err := s.InsertConversation(in); err != nil {
		t.Fatal(err)
	}
	// The caller's value is not retained.
	in.State["count"] = 99
	in.Turns[0].Intents[0] = "changed"
	got := mustGet(t, s, "us", "c1")
	if got.State["count"] != 1.0 || got.Turns[0].Intents[0] == "changed" {
		t.Fatalf("insert: cache keeps the caller's value: state %v, intents %v", got.State["count"], got.Turns[0].Intents)
	}
	// Values read back as from JSON.
	if d := cmp.Diff(rawDecoded(t, s, "us", "c1"), got, exactTime); d != "" {
		t.Fatalf("get differs from the decoded record (-want +got):\n%s", d)
	}
	// Mutating what Get returned changes nothing stored.
	got.State["count"] = 5.0
	got.Metrics["tags"].([]any)[0] = "zz"
	got.Turns[0].Entities["x"] = "y"
	if again := mustGet(t, s, "us", "c1"); again.State["count"] != 1.0 || again.Metrics["tags"].([]any)[0] != "a" || again.Turns[0].Entities["x"] != "" {
		t.Fatalf("get returned cached memory: %v %v %v", again.State["count"], again.Metrics["tags"], again.Turns[0].Entities)
	}
	// Update: fn sees JSON types; an int set by fn reads back as float64;
	// the returned value is fn's and not the cache's.
	out, err := s.UpdateConversation("us", "c1", func(c *Conversation) error {
		if _, ok := c.State["count"].(float64); !ok {
			return fmt.Errorf("fn sees count as %T", c.State["count"])
		}
		c.State["count"] = 2
		c.State["nested"] = map[string]any{"list": []string{"p", "q"}}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out.State["count"] = 100
	out.State["nested"].(map[string]any)["list"] = nil
	got = mustGet(t, s, "us", "c1")
	if d := cmp.Diff(rawDecoded(t, s, "us", "c1"), got, exactTime); d != "" {
		t.Fatalf("get after update differs from the decoded record (-want +got):\n%s", d)
	}
	if got.State["count"] != 2.0 {
		t.Fatalf("count = %#v, want float64 2", got.State["count"])
	}
	// A failing fn's changes, even deep ones, are never seen.
	boom := errors.New("boom")
	for _, failing := range []func(c *Conversation) error{
		func(c *Conversation) error {
			c.State["nested"].(map[string]any)["list"].([]any)[0] = "mutated"
			c.Turns[0].Intents[0] = "mutated"
			c.NumOOD = 42
			return boom
		},
		func(c *Conversation) error { c.State["count"] = 7.0; c.ID = "other"; return nil },
		func(c *Conversation) error { c.State["count"] = 7.0; c.State["bad"] = math.NaN(); return nil },
	} {
		if _, err := s.UpdateConversation("us", "c1", failing); err == nil {
			t.Fatal("failing update succeeded")
		}
		got := mustGet(t, s, "us", "c1")
		if got.NumOOD == 42 || got.State["count"] != 2.0 || got.Turns[0].Intents[0] == "mutated" ||
			got.State["nested"].(map[string]any)["list"].([]any)[0] != "p" {
			t.Fatalf("a failed update's changes are visible: %+v", got.State)
		}
		if _, err := s.UpdateConversation("us", "c1", func(c *Conversation) error {
			if c.NumOOD == 42 || c.State["count"] != 2.0 || c.Turns[0].Intents[0] == "mutated" {
				return errors.New("fn sees a failed update's changes")
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	// A value the cache cannot normalise is still read back exactly.
	if _, err := s.UpdateConversation("us", "c1", func(c *Conversation) error {
		c.State["big"] = int64(1<<53 + 1)
		c.State["odd"] = struct{ A int }{3}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(rawDecoded(t, s, "us", "c1"), mustGet(t, s, "us", "c1"), exactTime); d != "" {
		t.Fatalf("uncacheable values (-want +got):\n%s", d)
	}
}

// TestConversationCacheRandomOps compares every read with a decoding of
// the stored record over random inserts, puts, updates (moving keys,
// failing), bulk puts, snapshots and restores.
func TestConversationCacheRandomOps(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	s := openMem(t)
	var snaps []*Snapshot
	exists := map[string]bool{}
	for i := range 3000 {
		id := fmt.Sprint("c", r.IntN(12))
		switch op := r.IntN(10); op {
		case 0:
			c := randConv(r, i)
			c.ID = id
			if err := s.PutConversation(c); err == nil {
				exists[id] = true
			}
		case 1:
			c := randConv(r, i)
			c.ID = id
			if err := s.PutConversations([]*Conversation{c}); err == nil {
				exists[id] = true
			}
		case 2:
			snap, err := s.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, snap)
		case 3:
			if len(snaps) > 0 && r.IntN(4) == 0 {
				if err := s.Restore(snaps[r.IntN(len(snaps))]); err != nil {
					t.Fatal(err)
				}
				clear(exists)
				n, _ := s.CountConversations("us")
				for j := range 12 {
					if _, err := s.GetConversation("us", fmt.Sprint("c", j)); err == nil {
						exists[fmt.Sprint("c", j)] = true
					}
				}
				if n != len(exists) {
					t.Fatalf("count %d, found %d", n, len(exists))
				}
			}
		default:
			if !exists[id] {
				continue
			}
			fail := r.IntN(4) == 0
			v := randValue(r, 0)
			_, err := s.UpdateConversation("us", id, func(c *Conversation) error {
				c.State = map[string]any{"v": v, "n": i}
				c.NumOOD++
				if r.IntN(5) == 0 {
					c.StartedAt = c.StartedAt.Add(time.Hour) // moves the key
				}
				c.Turns = append(c.Turns, Turn{UserInput: randString(r), Intents: []string{}, Metadata: randObject(r)})
				if fail {
					return errors.New("fail")
				}
				return nil
			})
			if fail != (err != nil) {
				t.Fatalf("op %d: update err = %v, fail %v", i, err, fail)
			}
		}
		if exists[id] {
			if d := cmp.Diff(rawDecoded(t, s, "us", id), mustGet(t, s, "us", id), exactTime); d != "" {
				t.Fatalf("op %d: get %s differs from the decoded record (-want +got):\n%s", i, id, d)
			}
			mustSee(t, i, rawDecoded(t, s, "us", id), "us", id, s.UpdateConversation)
		}
	}
}

// TestConversationCacheConcurrent: readers and writers of the same
// conversations in parallel (run with -race).
func TestConversationCacheConcurrent(t *testing.T) {
	s := openMem(t)
	for i := range 4 {
		if err := s.InsertConversation(mkConv("us", "acc", "proj", fmt.Sprint("c", i), base)); err != nil {
			t.Fatal(err)
		}
	}
	const n = 200
	done := make(chan error, 8)
	for w := range 8 {
		go func() {
			for i := range n {
				id := fmt.Sprint("c", (w+i)%4)
				if w%2 == 0 {
					c, err := s.GetConversation("us", id)
					if err != nil {
						done <- err
						return
					}
					c.State["x"] = i // must not race with anything
					c.Turns = append(c.Turns[:1], Turn{})
					continue
				}
				_, err := s.UpdateConversation("us", id, func(c *Conversation) error {
					c.NumOOD++
					c.State["w"] = w
					if i%5 == 0 {
						return errors.New("skip")
					}
					return nil
				})
				if err != nil && err.Error() != "skip" {
					done <- err
					return
				}
			}
			done <- nil
		}()
	}
	for range 8 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	total := 0
	for i := range 4 {
		total += mustGet(t, s, "us", fmt.Sprint("c", i)).NumOOD - 1
	}
	if want := 4 * n * 4 / 5; total != want {
		t.Fatalf("NumOOD increments = %d, want %d", total, want)
	}
}

// TestConvCacheBounds: the cache holds at most convCacheMax entries and
// convCacheMaxBytes of them (an entry larger than that is not cached), and
// its byte count follows every put, take, drop and clear.
func TestConvCacheBounds(t *testing.T) {
	var cc convCache
	entry := func(rawLen, turns int) convCacheEntry {
		return convCacheEntry{raw: strings.Repeat("r", rawLen), c: &Conversation{Turns: make([]Turn, turns)}}
	}
	check := func(step string) {
		t.Helper()
		sum := 0
		for _, e := range cc.m {
			sum += e.size
		}
		if sum != cc.bytes || cc.bytes > convCacheMaxBytes || len(cc.m) > convCacheMax {
			t.Fatalf("%s: %d entries, %d bytes counted, %d summed", step, len(cc.m), cc.bytes, sum)
		}
	}
	for i := range convCacheMax + 10 { // short conversations: the count bounds
		cc.put(fmt.Sprint("short", i), entry(100, 3))
	}
	check("short")
	if len(cc.m) != convCacheMax {
		t.Errorf("%d short conversations cached, want %d", len(cc.m), convCacheMax)
	}
	long := entry(1<<20, 500) // a long conversation: the bytes bound
	for i := range 100 {
		cc.put(fmt.Sprint("long", i), long)
	}
	check("long")
	longs := 0
	for k := range cc.m {
		if strings.HasPrefix(k, "long") {
			longs++
		}
	}
	if n := convCacheMaxBytes / entrySize(&long); longs == 0 || longs > n {
		t.Errorf("%d long conversations cached, want 1 to %d", longs, n)
	}
	cc.put("huge", entry(convCacheMaxBytes, 0))
	if _, ok := cc.m["huge"]; ok {
		t.Error("an entry larger than the byte bound is cached")
	}
	check("huge")
	for k, e := range cc.m {
		if _, ok := cc.takeEntry(k, e.raw, false); !ok {
			t.Fatalf("take %s: not cached", k)
		}
		break
	}
	check("take")
	for k := range cc.m {
		cc.drop(k)
		break
	}
	check("drop")
	cc.clear()
	if cc.bytes != 0 || len(cc.m) != 0 {
		t.Errorf("after clear: %d entries, %d bytes", len(cc.m), cc.bytes)
	}
}
