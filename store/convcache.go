package store

import (
	"maps"
	"math"
	"reflect"
	"slices"
	"strconv"
	"sync"
	"time"
	"unicode/utf8"
	"unsafe"
)

// Decoded-conversation cache: per conversation under way, its raw value and
// decoding, normalised (what its JSON decodes to), so a hot update or read
// does not decode again. An entry is used only when the raw value read
// equals its own, so a stale or rolled-back entry just misses. Readers get
// deep copies under the database's read lock; updates take entries out
// under the write lock. AppendNewTurns leaves head-only entries (no turns).

// convCacheMax and convCacheMaxBytes bound the number of cached
// conversations and the memory they keep alive (entrySize).
const (
	convCacheMax      = 4096
	convCacheMaxBytes = 64 << 20
)

type convCache struct {
	mu    sync.Mutex
	m     map[string]convCacheEntry // by primary key
	bytes int                       // the entries' sizes
}

type convCacheEntry struct {
	raw   string
	c     *Conversation // normalised, immutable
	turns recTurns      // where raw encodes the turns
	// shared: c's turns are shared with AppendTurns' result; whoever may
	// change them works on a deep copy.
	shared bool
	// headOnly: c.Turns is nil and prior describes raw's turns; a miss for
	// all but AppendNewTurns.
	headOnly bool
	prior    PriorTurns
	size     int // entrySize, when cached
}

// turnSize is the memory of a Turn itself.
const turnSize = int(unsafe.Sizeof(Turn{}))

// entrySize estimates the memory an entry keeps alive.
func entrySize(e *convCacheEntry) int {
	return len(e.raw) + cap(e.c.Turns)*turnSize + 1024
}

// removeLocked forgets the entry of pk, if any (cc.mu held).
func (cc *convCache) removeLocked(pk string) (convCacheEntry, bool) {
	e, ok := cc.m[pk]
	if ok {
		delete(cc.m, pk)
		cc.bytes -= e.size
	}
	return e, ok
}

// peek returns the whole cached decoding of pk for exactly raw, for
// reading only, else nil. The caller must hold the database's lock.
func (cc *convCache) peek(pk, raw string) *Conversation {
	cc.mu.Lock()
	e, ok := cc.m[pk]
	cc.mu.Unlock()
	if !ok || e.raw != raw || e.headOnly {
		return nil
	}
	return e.c
}

// copyOf returns a deep copy of peek's conversation, or nil.
func (cc *convCache) copyOf(pk, raw string) *Conversation {
	if c := cc.peek(pk, raw); c != nil {
		return copyConv(c)
	}
	return nil
}

// take removes pk's entry and returns its conversation, now the caller's
// to mutate, if cached for exactly raw. The caller must hold the write
// lock: readers copy entries under the read lock, so none can be copying it.
func (cc *convCache) take(pk, raw string) *Conversation {
	e, ok := cc.takeEntry(pk, raw, false)
	if !ok {
		return nil
	}
	if e.shared {
		return copyConv(e.c)
	}
	return e.c
}

// takeEntry is take returning the entry (a head-only one too if head);
// when e.shared its turns must be left as they are.
func (cc *convCache) takeEntry(pk, raw string, head bool) (e convCacheEntry, ok bool) {
	cc.mu.Lock()
	e, ok = cc.removeLocked(pk)
	cc.mu.Unlock()
	if !ok || e.raw != raw || e.headOnly && !head {
		return convCacheEntry{}, false
	}
	return e, true
}

// put caches e (normalised, no longer changed by the caller) under pk,
// evicting arbitrary entries to stay within the bounds.
func (cc *convCache) put(pk string, e convCacheEntry) {
	e.size = entrySize(&e)
	cc.mu.Lock()
	defer cc.mu.Unlock()
	cc.removeLocked(pk)
	if e.size > convCacheMaxBytes {
		return
	}
	if cc.m == nil {
		cc.m = make(map[string]convCacheEntry)
	}
	for len(cc.m) >= convCacheMax || cc.bytes+e.size > convCacheMaxBytes {
		for k := range cc.m { // evict an arbitrary entry
			cc.removeLocked(k)
			break
		}
	}
	cc.m[pk] = e
	cc.bytes += e.size
}

func (cc *convCache) drop(pk string) {
	cc.mu.Lock()
	cc.removeLocked(pk)
	cc.mu.Unlock()
}

func (cc *convCache) clear() {
	cc.mu.Lock()
	cc.m, cc.bytes = nil, 0
	cc.mu.Unlock()
}

// remember caches the normalised form of c, just encoded as raw, under pk
// (or drops pk if c cannot be normalised exactly).
func (cc *convCache) remember(pk, raw string, turns recTurns, c *Conversation) {
	if n, ok := normConv(c); ok {
		cc.put(pk, convCacheEntry{raw: raw, c: n, turns: turns})
	} else {
		cc.drop(pk)
	}
}

// rememberAppended caches c after an AppendTurns: its first n turns
// (already normalised) stay shared with c, the rest is normalised. It
// returns c with its turns clipped, so a later append never shows in it.
func (cc *convCache) rememberAppended(pk, raw string, turns recTurns, c *Conversation, n int) *Conversation {
	d, ok := normConvHead(c)
	if !ok || !normNewTurns(c, n) {
		cc.drop(pk)
		return c
	}
	d.Turns = c.Turns
	cc.put(pk, convCacheEntry{raw: raw, c: d, turns: turns, shared: true})
	c.Turns = slices.Clip(c.Turns) // d's keep their capacity
	return c
}

// rememberHead caches c without its turns after an AppendNewTurns (prior
// describes raw's turns); c's maps become the cache's, normalised in
// place. It returns the head the caller keeps, without maps and slices.
func (cc *convCache) rememberHead(pk, raw string, turns recTurns, c *Conversation, prior PriorTurns) *Conversation {
	d := *c
	d.Turns = nil
	if !normHead(&d, true) {
		cc.drop(pk)
		return headOf(c)
	}
	cc.put(pk, convCacheEntry{raw: raw, c: &d, turns: turns, headOnly: true, prior: prior})
	return headOf(&d)
}

// normNewTurns normalises c's turns from n on in place, all or (false) none.
func normNewTurns(c *Conversation, n int) bool {
	var fresh [4]Turn
	added := fresh[:0]
	for i := n; i < len(c.Turns); i++ {
		t, ok := normTurn(&c.Turns[i])
		if !ok {
			return false
		}
		added = append(added, t)
	}
	copy(c.Turns[n:], added)
	return true
}

// headOf returns a copy of c without its maps and slices.
func headOf(c *Conversation) *Conversation {
	h := *c
	h.Metrics, h.State, h.IntegrationAttributes, h.Turns = nil, nil, nil, nil
	h.FunctionErrors, h.Crashes, h.AwaitedEvents, h.Events = nil, nil, nil, nil
	return &h
}

// copyConv returns a deep copy of a normalised conversation.
func copyConv(c *Conversation) *Conversation {
	d := *c
	d.Metrics = copyObject(c.Metrics)
	d.State = copyObject(c.State)
	d.IntegrationAttributes = copyObject(c.IntegrationAttributes)
	if c.Turns != nil {
		d.Turns = make([]Turn, len(c.Turns))
		for i := range c.Turns {
			t := &d.Turns[i]
			*t = c.Turns[i]
			if t.Intents != nil {
				t.Intents = append(make([]string, 0, len(t.Intents)), t.Intents...)
			}
			if t.Entities != nil {
				e := make(map[string]string, len(t.Entities))
				for k, v := range t.Entities {
					e[k] = v
				}
				t.Entities = e
			}
			t.Metadata = copyObject(t.Metadata)
		}
	}
	if c.FunctionErrors != nil {
		d.FunctionErrors = append(make([]time.Time, 0, len(c.FunctionErrors)), c.FunctionErrors...)
	}
	if c.Crashes != nil {
		d.Crashes = append(make([]time.Time, 0, len(c.Crashes)), c.Crashes...)
	}
	if c.AwaitedEvents != nil {
		d.AwaitedEvents = append(make([]string, 0, len(c.AwaitedEvents)), c.AwaitedEvents...)
	}
	if c.Events != nil {
		d.Events = make([]Event, len(c.Events))
		for i, e := range c.Events {
			if e.Payload != nil {
				e.Payload = append(make([]byte, 0, len(e.Payload)), e.Payload...)
			}
			d.Events[i] = e
		}
	}
	return &d
}

// copyObject deep-copies a JSON object (nil stays nil).
func copyObject(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	d := make(map[string]any, len(m))
	for k, v := range m {
		d[k] = copyValue(v)
	}
	return d
}

// copyValue deep-copies a decoded JSON value.
func copyValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		return copyObject(v)
	case []any:
		if v == nil {
			return v
		}
		d := make([]any, len(v))
		for i, e := range v {
			d[i] = copyValue(e)
		}
		return d
	default: // nil, bool, float64, string: immutable
		return v
	}
}

// normConv returns a deep copy of c equal to what a JSON round trip of c
// decodes to, or ok=false when some value cannot be converted exactly.
func normConv(c *Conversation) (*Conversation, bool) {
	d, ok := normConvHead(c)
	if !ok {
		return nil, false
	}
	if c.Turns != nil {
		d.Turns = make([]Turn, len(c.Turns))
		for i := range c.Turns {
			if ok {
				d.Turns[i], ok = normTurn(&c.Turns[i])
			}
		}
	}
	if !ok {
		return nil, false
	}
	return d, true
}

// normConvHead is normConv leaving the turns as they are.
func normConvHead(c *Conversation) (*Conversation, bool) {
	d := *c
	if !normHead(&d, false) {
		return nil, false
	}
	return &d, true
}

// normHead normalises d's fields but its turns into fresh memory, or with
// adopt, the maps in place (a map that is two fields at once becomes two).
func normHead(d *Conversation, adopt bool) bool {
	ok := validStrings(d.ID, d.Region, d.AccountID, d.ProjectID, d.VariantID, d.VariantName,
		d.Environment, d.Channel, d.ChatChannel, d.FromNumber, d.ToNumber, d.Language,
		d.TTSLanguage, d.HandoffReason, d.HandoffDestination, d.SharedID)
	d.StartedAt, ok = normTime(d.StartedAt, ok)
	d.EndedAt, ok = normTime(d.EndedAt, ok)
	norm := normObject
	if adopt {
		if sameMap(d.State, d.Metrics) {
			d.State = maps.Clone(d.State)
		}
		if sameMap(d.IntegrationAttributes, d.Metrics) || sameMap(d.IntegrationAttributes, d.State) {
			d.IntegrationAttributes = maps.Clone(d.IntegrationAttributes)
		}
		norm = normObjectInPlace
	}
	d.Metrics, ok = norm(d.Metrics, false, ok)
	d.State, ok = norm(d.State, false, ok)
	d.IntegrationAttributes, ok = norm(d.IntegrationAttributes, true, ok)
	d.FunctionErrors, ok = normTimes(d.FunctionErrors, ok)
	d.Crashes, ok = normTimes(d.Crashes, ok)
	if len(d.AwaitedEvents) > 0 {
		ok = ok && validStrings(d.AwaitedEvents...)
		d.AwaitedEvents = append(make([]string, 0, len(d.AwaitedEvents)), d.AwaitedEvents...)
	} else {
		d.AwaitedEvents = nil
	}
	if len(d.Events) > 0 {
		events := make([]Event, len(d.Events))
		for i, e := range d.Events {
			ok = ok && validStrings(e.ID, e.ContentType)
			e.ReceivedAt, ok = normTime(e.ReceivedAt, ok)
			if e.Payload != nil {
				e.Payload = append(make([]byte, 0, len(e.Payload)), e.Payload...)
			}
			events[i] = e
		}
		d.Events = events
	} else {
		d.Events = nil
	}
	return ok
}

// sameMap reports whether a and b are one map (not nil).
func sameMap(a, b map[string]any) bool {
	return a != nil && b != nil && reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

func normTurn(t *Turn) (Turn, bool) {
	d := *t
	ok := validStrings(t.UserInput, t.AgentResponse, t.TranslatedUserInput, t.EnglishAgentResponse)
	d.UserInputAt, ok = normTime(t.UserInputAt, ok)
	d.AgentResponseAt, ok = normTime(t.AgentResponseAt, ok)
	if t.Intents != nil {
		ok = ok && validStrings(t.Intents...)
		d.Intents = append(make([]string, 0, len(t.Intents)), t.Intents...)
	}
	if t.Entities != nil {
		e := make(map[string]string, len(t.Entities))
		for k, v := range t.Entities {
			ok = ok && validStrings(k, v)
			e[k] = v
		}
		d.Entities = e
	}
	d.Metadata, ok = normObject(t.Metadata, true, ok)
	return d, ok
}

func validStrings(ss ...string) bool {
	for _, s := range ss {
		if !utf8.ValidString(s) {
			return false // the encoder would replace the invalid bytes
		}
	}
	return true
}

// normTime returns t as its JSON decodes (ok false passes through).
func normTime(t time.Time, ok bool) (time.Time, bool) {
	if !ok {
		return time.Time{}, false
	}
	if t.Location() == time.UTC {
		return t.Round(0), true // drops the monotonic reading only
	}
	b, err := t.MarshalJSON()
	if err != nil {
		return time.Time{}, false
	}
	var d time.Time
	if err := d.UnmarshalJSON(b); err != nil {
		return time.Time{}, false
	}
	return d, true
}

// normTimes normalises an omitempty []time.Time.
func normTimes(ts []time.Time, ok bool) ([]time.Time, bool) {
	if !ok || len(ts) == 0 {
		return nil, ok
	}
	d := make([]time.Time, len(ts))
	for i, t := range ts {
		if d[i], ok = normTime(t, ok); !ok {
			return nil, false
		}
	}
	return d, true
}

// normObject normalises a map field into fresh memory; omitEmpty: the
// field is omitempty (an empty map decodes as nil).
func normObject(m map[string]any, omitEmpty, ok bool) (map[string]any, bool) {
	if !ok || m == nil || (omitEmpty && len(m) == 0) {
		return normObjectInPlace(m, omitEmpty, ok)
	}
	// A copy of the table (no key hashed again), normalised in place.
	return normObjectInPlace(maps.Clone(m), omitEmpty, ok)
}

// normObjectInPlace is normObject changing m: values not already what
// decoding yields are replaced.
func normObjectInPlace(m map[string]any, omitEmpty, ok bool) (map[string]any, bool) {
	if !ok {
		return nil, false
	}
	if m == nil || (omitEmpty && len(m) == 0) {
		return nil, true
	}
	for k, v := range m {
		if !utf8.ValidString(k) {
			return nil, false
		}
		if scalar, ok := normScalar(v); scalar {
			if !ok {
				return nil, false
			}
			continue
		}
		n, ok := normValue(v)
		if !ok {
			return nil, false
		}
		m[k] = n
	}
	return m, true
}

// normScalar says whether normValue would return v as it is, and if so
// whether v is valid, sparing the caller a boxing.
func normScalar(v any) (scalar, ok bool) {
	switch v := v.(type) {
	case nil, bool:
		return true, true
	case string:
		return true, utf8.ValidString(v)
	case float64:
		return true, !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	return false, false
}

// maxExactInt is the largest integer magnitude float64 holds exactly.
const maxExactInt = 1 << 53

// normValue converts a free-form value to what decoding its JSON encoding
// into an `any` yields, for the common Go types; ok=false for others.
func normValue(v any) (any, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case bool:
		return v, true
	case string:
		return v, utf8.ValidString(v)
	case float64:
		return v, !math.IsNaN(v) && !math.IsInf(v, 0)
	case float32:
		f := float64(v)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, false
		}
		// The shortest decimal of the float32, decoded as a float64.
		f, err := strconv.ParseFloat(strconv.FormatFloat(f, 'g', -1, 32), 64)
		return f, err == nil
	case int:
		return normInt(int64(v))
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return normInt(v)
	case uint:
		return normUint(uint64(v))
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return normUint(v)
	case time.Time:
		b, err := v.MarshalJSON() // a quoted RFC 3339 string without escapes
		if err != nil {
			return nil, false
		}
		return string(b[1 : len(b)-1]), true
	case map[string]any:
		if v == nil {
			return nil, true // null
		}
		return normObject(v, false, true)
	case []any:
		if v == nil {
			return nil, true
		}
		d := make([]any, len(v))
		for i, e := range v {
			if scalar, ok := normScalar(e); scalar {
				if !ok {
					return nil, false
				}
				d[i] = e
				continue
			}
			var ok bool
			if d[i], ok = normValue(e); !ok {
				return nil, false
			}
		}
		return d, true
	case []string:
		if v == nil {
			return nil, true
		}
		if !validStrings(v...) {
			return nil, false
		}
		d := make([]any, len(v))
		for i, e := range v {
			d[i] = e
		}
		return d, true
	case map[string]string:
		if v == nil {
			return nil, true
		}
		d := make(map[string]any, len(v))
		for k, e := range v {
			if !validStrings(k, e) {
				return nil, false
			}
			d[k] = e
		}
		return d, true
	default:
		return nil, false
	}
}

func normInt(i int64) (any, bool) {
	if i > maxExactInt || i < -maxExactInt {
		return nil, false
	}
	return float64(i), true
}

func normUint(u uint64) (any, bool) {
	if u > maxExactInt {
		return nil, false
	}
	return float64(u), true
}
