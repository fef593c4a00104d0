package store

// The compact encoding of stored conversation records (the values of the
// c/ keys; why: the package comment in store.go).
//
// A record's key already holds its region, account, project, start
// instant and id (convKey), so the value does not repeat them: the
// decoder takes them from the key. The value is a byte 0x01 (a JSON
// record, the format before, starts with '{') and then the fields in a
// fixed order, with varints for numbers, times as the difference to the
// start, and strings either inline or as a reference to the store's
// string table (strtab.go): variant, environment, channel, languages,
// agent responses, intents and the keys of free-form objects repeat from
// record to record and are held once. The state's built-in keys
// (conversation_id, channel, client_env, variant_id, languages,
// integration_attributes) are a bit each when they equal the record's
// own fields.
//
// What decoding a record gives is exactly what decoding the record's JSON
// gave before: the encoder writes the JSON types (float64 numbers, []any
// and map[string]any, nil for empty omitempty fields, times as decoded
// from RFC 3339), converting the common Go types as a JSON round trip
// would; for anything it cannot convert exactly (invalid UTF-8, an odd
// type, a time in another zone than UTC that JSON cannot write) it takes
// a real round trip through JSON first, so errors are JSON's too.
// TestRecordCodecEqualsRoundTrip keeps the two in step.
//
// Layout after the format byte (u: unsigned varint, i: signed varint,
// s: string, t: time, o: object, v: value):
//
//	u flags (recIn*), [s start as JSON text when not UTC]
//	s variant_id, variant_name, environment, channel, chat_channel,
//	  from_number, to_number, language, tts_language, handoff_reason,
//	  handoff_destination, shared_id
//	t ended_at; i num_silences, num_ood
//	o metrics; u state's built-in bits, o the state's other keys;
//	o integration_attributes
//	u turns (0: null, else 1+n), each: u flags, s user_input,
//	  t user_input_datetime, s agent_response, t agent_response_datetime,
//	  strings intents, entities, s translated_user_input,
//	  s english_agent_response, i latency, o metadata
//	times function_errors, crashes; strings awaited_events;
//	u events (n), each: s id, t received_at, s content_type, payload
//	4 bytes: CRC-32C of the key and the value before it (little endian)

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

// The state's built-in keys that may be written as a bit: the value
// equals the record's field of the same meaning.
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

// Time codes: 0 the zero time, 1 a time as its JSON text, else UTC:
// (code-2) is the zig-zag difference in seconds to the start, followed
// by the nanoseconds.
const (
	timeZero = iota
	timeText
	timeUTC
)

// errRecFallback: the encoder cannot write the record exactly; a JSON
// round trip goes first.
var errRecFallback = errors.New("store: record needs a JSON round trip")

// recEncoder writes one record.
type recEncoder struct {
	b        []byte
	startSec int64
	tab      *strTab // interns strings (nil: every string inline)
	fail     bool
	turns    recTurns
}

// recTurns locates the turns in a record's encoding: the encodings of
// its first n turns are the bytes [at, end) of the value, which depend on
// nothing but the turns themselves, the record's start and the string
// table (whose entries stay). Appending a turn keeps them (see
// encodeRecordAppend).
type recTurns struct{ at, end, n int }

// encodeRecord returns the compact encoding of c, to be stored under pk
// ("": convKey(c)); tab interns its strings (the caller holds the write
// lock when tab is set).
func encodeRecord(c *Conversation, pk string, tab *strTab, hint int) (string, error) {
	raw, _, err := encodeRecordAt(c, pk, tab, hint)
	return raw, err
}

// encodeRecordAt is encodeRecord, and says where the turns are in the
// encoding.
func encodeRecordAt(c *Conversation, pk string, tab *strTab, hint int) (string, recTurns, error) {
	if pk == "" {
		pk = convKey(c)
	}
	e := recEncoder{b: make([]byte, 0, max(hint, 128)), tab: tab}
	e.conv(c)
	if e.fail {
		// Take the JSON round trip: its result holds only values the
		// encoder writes exactly (or JSON refuses c, with its error).
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

// encodeRecordAppend encodes c as encodeRecordAt does, taking the
// encodings of its first prev.n turns from old, a value (of the same
// record, with the same start) where prev located them: the caller
// guarantees that those turns are as they were when old was encoded. The
// other fields and the turns after them are encoded from c. A record the
// encoder cannot write exactly is encoded in full.
func encodeRecordAppend(c *Conversation, pk string, tab *strTab, old string, prev recTurns) (string, recTurns, error) {
	if len(c.Turns) >= prev.n {
		if raw, turns, ok := encodeRecordAdded(c, c.Turns[prev.n:], pk, tab, old, prev); ok {
			return raw, turns, nil
		}
	}
	return encodeRecordAt(c, pk, tab, len(old)+64)
}

// encodeRecordAdded encodes the fields of c but its turns, and as its
// turns the prev.n that prev locates in old followed by added (c.Turns is
// not read). ok false: prev does not locate turns in old, or the record
// cannot be written exactly (encodeRecordAt's JSON round trip is for the
// caller, which has the turns).
func encodeRecordAdded(c *Conversation, added []Turn, pk string, tab *strTab, old string, prev recTurns) (string, recTurns, bool) {
	if prev.n <= 0 || prev.at > prev.end || prev.end > len(old) {
		return "", recTurns{}, false
	}
	// The size: the old value and as much again per new turn as an old
	// turn takes (most values fit exactly, and are not copied below).
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

// recChecksum is the checksum of a record's key and value (without the
// checksum), which ends the value: a damaged record or key does not
// decode.
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

// word writes a string that repeats from record to record: a reference
// ((index<<1)|1) to the string table when it is there (or enters it now),
// else inline.
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
// where the turns begin.
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

// head writes the fields before the turns; false: the record cannot be
// written (e.fail is set).
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

// builtinValue is the value a built-in state key has when it is written
// as a bit (ok false: the record has none).
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

// state writes the state: the built-in keys equal to the record's fields
// as bits, then the other keys.
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

// sameObject reports whether two free-form objects hold the same JSON
// values (only JSON types; anything else is not the same).
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

// object writes a free-form object: 0 for null (and for an empty one when
// omitEmpty), else 1+n and the entries.
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
