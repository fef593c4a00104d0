package store

// The compact encoding of conversation records (the c/ values; why: the
// package comment). The key holds region, account, project, start and id,
// so the value does not: it is 0x01 (JSON records start with '{'), then
// the fields in the order head, turns and tail write them, as varints,
// times relative to the start, repeating strings as string-table
// references (strtab.go), state keys equal to the record's fields as bits,
// and a CRC-32C of key and value. Decoding gives what the JSON would; a
// value the encoder cannot write exactly takes a JSON round trip first.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"
	"time"
	"unicode/utf8"
	"unsafe"
)

// recBinary is the first byte of a compactly encoded record.
const recBinary = 0x01

// Record flags.
const (
	recInProgress = 1 << iota
	recHandoff
	recStartText // started_at is not UTC: its JSON text follows
)

// Turn flags.
const (
	turnBargeIn = 1 << iota
	turnOOD
	turnSilence
	turnIntentsNil
	turnEntitiesNil
)

// The state's built-in keys written as a bit when equal to the record's
// field of the same meaning.
var stateBuiltins = [...]string{"conversation_id", "channel", "client_env", "variant_id",
	"asr_lang_code", "tts_lang_code", "integration_attributes"}

// Value tags of free-form values.
const (
	tagNull = iota
	tagFalse
	tagTrue
	tagInt   // a float64 holding an integer: zig-zag varint
	tagFloat // 8 bytes, little endian
	tagString
	tagArray
	tagObject
)

// Time codes; from timeUTC on, code-2 is the zig-zag seconds since the
// start, followed by the nanoseconds.
const (
	timeZero = iota
	timeText
	timeUTC
)

// errRecFallback: the record needs a JSON round trip first.
var errRecFallback = errors.New("store: record needs a JSON round trip")

// recEncoder writes one record.
type recEncoder struct {
	b        []byte
	startSec int64
	tab      *strTab // interns strings (nil: every string inline)
	fail     bool
	turns    recTurns
}

// recTurns locates the encodings of a record's first n turns, bytes
// [at, end) of the value. They depend only on the turns, the record's
// start and the string table (whose entries stay), so an append may copy
// them (encodeRecordAppend).
type recTurns struct{ at, end, n int }

// encodeRecord returns the compact encoding of c under pk ("": convKey(c));
// tab, if set, interns strings under the write lock.
func encodeRecord(c *Conversation, pk string, tab *strTab, hint int) (string, error) {
	raw, _, err := encodeRecordAt(c, pk, tab, hint)
	return raw, err
}

// encodeRecordAt is encodeRecord also locating the turns.
func encodeRecordAt(c *Conversation, pk string, tab *strTab, hint int) (string, recTurns, error) {
	if pk == "" {
		pk = convKey(c)
	}
	e := recEncoder{b: make([]byte, 0, max(hint, 128)), tab: tab}
	e.conv(c)
	if e.fail {
		// Take the JSON round trip: its result holds only values the
		// encoder writes exactly, or JSON's error.
		raw, err := encodeConv(c, 0)
		if err != nil {
			return "", recTurns{}, err
		}
		n, err := decodeConvJSON(raw)
		if err != nil {
			return "", recTurns{}, err
		}
		// The key keeps the fields it holds as they are.
		n.Region, n.AccountID, n.ProjectID, n.ID = c.Region, c.AccountID, c.ProjectID, c.ID
		e = recEncoder{b: e.b[:0], tab: tab}
		e.conv(n)
		if e.fail {
			return "", recTurns{}, fmt.Errorf("store: encode conversation %s/%s: %w", c.Region, c.ID, errRecFallback)
		}
	}
	e.b = binary.LittleEndian.AppendUint32(e.b, recChecksum(pk, e.b))
	return string(e.b), e.turns, nil
}

// encodeRecordAppend is encodeRecordAt copying the encodings of c's first
// prev.n turns from old (the same record and start), which the caller
// guarantees unchanged since.
func encodeRecordAppend(c *Conversation, pk string, tab *strTab, old string, prev recTurns) (string, recTurns, error) {
	if len(c.Turns) >= prev.n {
		if raw, turns, ok := encodeRecordAdded(c, c.Turns[prev.n:], pk, tab, old, prev); ok {
			return raw, turns, nil
		}
	}
	return encodeRecordAt(c, pk, tab, len(old)+64)
}

// encodeRecordAdded encodes c's fields but its turns, and as turns the
// prev.n located in old followed by added. ok false: prev locates nothing,
// or the record needs a JSON round trip (the caller's, which has the turns).
func encodeRecordAdded(c *Conversation, added []Turn, pk string, tab *strTab, old string, prev recTurns) (string, recTurns, bool) {
	if prev.n <= 0 || prev.at > prev.end || prev.end > len(old) {
		return "", recTurns{}, false
	}
	// The old value plus an average old turn per new one.
	size := len(old) + 8 + ((prev.end-prev.at)/prev.n+16)*len(added)
	e := recEncoder{b: make([]byte, 0, size), tab: tab}
	if e.head(c) {
		e.beginTurnsOf(prev.n + len(added))
		e.b = append(e.b, old[prev.at:prev.end]...)
		for i := range added {
			e.turn(&added[i])
		}
		e.turns.end, e.turns.n = len(e.b), prev.n+len(added)
		e.tail(c)
	}
	if e.fail {
		return "", recTurns{}, false
	}
	e.b = binary.LittleEndian.AppendUint32(e.b, recChecksum(pk, e.b))
	if cap(e.b)-len(e.b) > 32+len(e.b)/16 {
		return string(e.b), e.turns, true // do not keep much unused capacity alive
	}
	// e.b is not used after this: the string shares its memory.
	return unsafe.String(unsafe.SliceData(e.b), len(e.b)), e.turns, true
}

// crcTable is CRC-32C's (computed by the CPU where it can).
var crcTable = crc32.MakeTable(crc32.Castagnoli)

// recChecksum is the checksum ending a record's value, over its key and
// value, so a damaged record or key does not decode.
func recChecksum(pk string, v []byte) uint32 {
	return crc32.Update(crc32.Update(0, crcTable, unsafe.Slice(unsafe.StringData(pk), len(pk))), crcTable, v)
}

func (e *recEncoder) u(v uint64) { e.b = binary.AppendUvarint(e.b, v) }
func (e *recEncoder) i(v int64)  { e.b = binary.AppendVarint(e.b, v) }

// str writes a string inline ((len<<1) then the bytes).
func (e *recEncoder) str(s string) {
	if !utf8.ValidString(s) {
		e.fail = true // JSON would replace the invalid bytes
	}
	e.u(uint64(len(s)) << 1)
	e.b = append(e.b, s...)
}

// word writes a string that repeats between records: a string-table
// reference ((index<<1)|1) when it can, else inline.
func (e *recEncoder) word(s string) {
	if e.tab != nil && s != "" && utf8.ValidString(s) {
		if n, ok := e.tab.intern(s); ok {
			e.u(uint64(n)<<1 | 1)
			return
		}
	}
	e.str(s)
}

func (e *recEncoder) time(t time.Time) {
	if t.IsZero() && t.Location() == time.UTC {
		e.u(timeZero)
		return
	}
	if y := t.Year(); y < 0 || y > 9999 {
		e.fail = true // JSON refuses it
		return
	}
	if t.Location() != time.UTC {
		b, err := t.MarshalJSON()
		if err != nil {
			e.fail = true
			return
		}
		e.u(timeText)
		e.str(string(b))
		return
	}
	d := t.Unix() - e.startSec
	e.u(timeUTC + uint64(d<<1^d>>63))
	e.u(uint64(t.Nanosecond()))
}

func (e *recEncoder) conv(c *Conversation) {
	if !e.head(c) {
		return
	}
	e.beginTurns(c)
	for i := range c.Turns {
		e.turn(&c.Turns[i])
	}
	e.turns.end, e.turns.n = len(e.b), len(c.Turns)
	e.tail(c)
}

// beginTurns writes the number of turns (0: null, else 1+n) and notes
// where they begin.
func (e *recEncoder) beginTurns(c *Conversation) {
	if c.Turns == nil {
		e.u(0)
		e.turns.at = len(e.b)
	} else {
		e.beginTurnsOf(len(c.Turns))
	}
}

// beginTurnsOf is beginTurns for n turns (not null).
func (e *recEncoder) beginTurnsOf(n int) {
	e.u(1 + uint64(n))
	e.turns.at = len(e.b)
}

// head writes the fields before the turns; false: e.fail.
func (e *recEncoder) head(c *Conversation) bool {
	e.b = append(e.b, recBinary)
	var flags uint64
	if c.InProgress {
		flags |= recInProgress
	}
	if c.Handoff {
		flags |= recHandoff
	}
	if c.StartedAt.Location() != time.UTC {
		flags |= recStartText
	}
	if y := c.StartedAt.Year(); y < 0 || y > 9999 {
		e.fail = true
		return false
	}
	e.startSec = c.StartedAt.Unix()
	e.u(flags)
	if flags&recStartText != 0 {
		b, err := c.StartedAt.MarshalJSON()
		if err != nil {
			e.fail = true
			return false
		}
		e.str(string(b))
	}
	for _, s := range [...]string{c.VariantID, c.VariantName, c.Environment, c.Channel, c.ChatChannel} {
		e.word(s)
	}
	e.str(c.FromNumber)
	for _, s := range [...]string{c.ToNumber, c.Language, c.TTSLanguage, c.HandoffReason, c.HandoffDestination} {
		e.word(s)
	}
	e.str(c.SharedID)
	e.time(c.EndedAt)
	e.i(int64(c.NumSilences))
	e.i(int64(c.NumOOD))
	e.object(c.Metrics, false)
	e.state(c)
	e.object(c.IntegrationAttributes, true)
	return true
}

// tail writes the fields after the turns.
func (e *recEncoder) tail(c *Conversation) {
	e.times(c.FunctionErrors)
	e.times(c.Crashes)
	e.u(uint64(len(c.AwaitedEvents)))
	for _, s := range c.AwaitedEvents {
		e.str(s)
	}
	e.u(uint64(len(c.Events)))
	for _, ev := range c.Events {
		e.str(ev.ID)
		e.time(ev.ReceivedAt)
		e.word(ev.ContentType)
		if ev.Payload == nil {
			e.u(0)
		} else {
			e.u(1 + uint64(len(ev.Payload)))
			e.b = append(e.b, ev.Payload...)
		}
	}
}

// builtinValue is the record's field for built-in state key k (ok: one).
func builtinValue(c *Conversation, k int) (string, bool) {
	switch k {
	case 0:
		return c.ID, true
	case 1:
		return c.Channel, true
	case 2:
		return c.Environment, true
	case 3:
		return c.VariantID, true
	case 4:
		return c.Language, true
	case 5:
		return c.TTSLanguage, true
	}
	return "", false
}

// state writes the state: built-in keys as bits, then the others.
func (e *recEncoder) state(c *Conversation) {
	m := c.State
	if m == nil {
		e.u(0)
		return
	}
	var bits uint64
	for k, name := range stateBuiltins {
		v, ok := m[name]
		if !ok {
			continue
		}
		if k == len(stateBuiltins)-1 {
			if ia, isMap := v.(map[string]any); isMap && len(c.IntegrationAttributes) > 0 && sameObject(ia, c.IntegrationAttributes) {
				bits |= 1 << k
			}
			continue
		}
		if s, isStr := v.(string); isStr {
			if want, _ := builtinValue(c, k); s == want && utf8.ValidString(s) {
				bits |= 1 << k
			}
		}
	}
	e.u(1 + bits)
	e.u(uint64(len(m) - popcount(bits)))
	for k, v := range m {
		if bits != 0 && isBuiltin(k, bits) {
			continue
		}
		e.word(k)
		e.value(v)
	}
}

func popcount(b uint64) int {
	n := 0
	for ; b != 0; b &= b - 1 {
		n++
	}
	return n
}

func isBuiltin(k string, bits uint64) bool {
	for i, name := range stateBuiltins {
		if bits&(1<<i) != 0 && k == name {
			return true
		}
	}
	return false
}

// sameObject reports whether two objects hold the same JSON values.
func sameObject(a, b map[string]any) bool {
	if len(a) != len(b) {
		return false
	}
	for k, va := range a {
		vb, ok := b[k]
		if !ok || !sameValue(va, vb) {
			return false
		}
	}
	return true
}

func sameValue(a, b any) bool {
	switch a := a.(type) {
	case nil:
		return b == nil
	case bool:
		v, ok := b.(bool)
		return ok && v == a
	case string:
		v, ok := b.(string)
		return ok && v == a
	case float64:
		v, ok := b.(float64)
		return ok && math.Float64bits(v) == math.Float64bits(a)
	case map[string]any:
		v, ok := b.(map[string]any)
		return ok && a != nil && v != nil && sameObject(a, v)
	case []any:
		v, ok := b.([]any)
		if !ok || a == nil || v == nil || len(a) != len(v) {
			return false
		}
		for i := range a {
			if !sameValue(a[i], v[i]) {
				return false
			}
		}
		return true
	}
	return false
}

// object writes a free-form object: 0 for null (or empty with omitEmpty),
// else 1+n and the entries.
func (e *recEncoder) object(m map[string]any, omitEmpty bool) {
	if m == nil || (omitEmpty && len(m) == 0) {
		e.u(0)
		return
	}
	e.u(1 + uint64(len(m)))
	for k, v := range m {
		e.word(k)
		e.value(v)
	}
}

func (e *recEncoder) value(v any) {
	switch v := v.(type) {
	case nil:
		e.b = append(e.b, tagNull)
	case bool:
		if v {
			e.b = append(e.b, tagTrue)
		} else {
			e.b = append(e.b, tagFalse)
		}
	case string:
		e.b = append(e.b, tagString)
		e.str(v)
	case float64:
		switch {
		case math.IsNaN(v) || math.IsInf(v, 0):
			e.fail = true
		case v == math.Trunc(v) && math.Abs(v) < maxExactInt && (v != 0 || !math.Signbit(v)):
			e.b = append(e.b, tagInt)
			e.i(int64(v))
		default:
			e.b = append(e.b, tagFloat)
			e.b = binary.LittleEndian.AppendUint64(e.b, math.Float64bits(v))
		}
	case map[string]any:
		if v == nil {
			e.b = append(e.b, tagNull)
			return
		}
		e.b = append(e.b, tagObject)
		e.u(uint64(len(v)))
		for k, x := range v {
			e.word(k)
			e.value(x)
		}
	case []any:
		if v == nil {
			e.b = append(e.b, tagNull)
			return
		}
		e.b = append(e.b, tagArray)
		e.u(uint64(len(v)))
		for _, x := range v {
			e.value(x)
		}
	default:
		n, ok := normValue(v)
		if !ok {
			e.fail = true
			return
		}
		e.value(n)
	}
}

func (e *recEncoder) turn(t *Turn) {
	var flags uint64
	if t.BargeIn {
		flags |= turnBargeIn
	}
	if t.IsOOD {
		flags |= turnOOD
	}
	if t.IsSilence {
		flags |= turnSilence
	}
	if t.Intents == nil {
		flags |= turnIntentsNil
	}
	if t.Entities == nil {
		flags |= turnEntitiesNil
	}
	e.u(flags)
	e.str(t.UserInput)
	e.time(t.UserInputAt)
	e.word(t.AgentResponse)
	e.time(t.AgentResponseAt)
	e.u(uint64(len(t.Intents)))
	for _, s := range t.Intents {
		e.word(s)
	}
	e.u(uint64(len(t.Entities)))
	for k, v := range t.Entities {
		e.word(k)
		e.str(v)
	}
	e.str(t.TranslatedUserInput)
	e.word(t.EnglishAgentResponse)
	e.i(int64(t.Latency))
	e.object(t.Metadata, true)
}

func (e *recEncoder) times(ts []time.Time) {
	e.u(uint64(len(ts)))
	for _, t := range ts {
		e.time(t)
	}
}
