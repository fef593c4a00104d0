package store

// The decoder of the compact conversation records (convbin.go).

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"time"
	"unsafe"

	json "github.com/goccy/go-json"
)

// recDecoder reads one record.
type recDecoder struct {
	s     string
	i     int
	start time.Time
	tab   []string // the string table
	err   error

	// shared: the turns are never changed (decodeConvShared), so they
	// may share memory: one empty entities map, intents from arena.
	shared     bool
	noEntities map[string]string
	arena      []string
	turnsLeft  int
}

var errRecShort = errors.New("truncated record")

func (d *recDecoder) fail(err error) {
	if d.err == nil {
		d.err = err
	}
	d.i = len(d.s)
}

func (d *recDecoder) u() uint64 {
	if d.i >= len(d.s) {
		d.fail(errRecShort)
		return 0
	}
	if c := d.s[d.i]; c < 0x80 {
		d.i++
		return uint64(c)
	}
	v, n := binary.Uvarint(unsafe.Slice(unsafe.StringData(d.s[d.i:]), len(d.s)-d.i))
	if n <= 0 {
		d.fail(errors.New("malformed varint"))
		return 0
	}
	d.i += n
	return v
}

func (d *recDecoder) i64() int64 {
	v := d.u()
	return int64(v>>1) ^ -int64(v&1)
}

// count reads a count of items each of at least min bytes.
func (d *recDecoder) count(v uint64, minBytes int) int {
	if v > uint64(len(d.s)-d.i)/uint64(max(minBytes, 1)) {
		d.fail(errors.New("count beyond the record"))
		return 0
	}
	return int(v)
}

func (d *recDecoder) str() string {
	v := d.u()
	if v&1 != 0 {
		if v>>1 >= uint64(len(d.tab)) || d.tab[v>>1] == strMissing {
			d.fail(strLacking(v >> 1))
			return ""
		}
		return d.tab[v>>1]
	}
	n := d.count(v>>1, 1)
	if d.err != nil {
		return ""
	}
	s := d.s[d.i : d.i+n]
	d.i += n
	return s
}

func (d *recDecoder) time() time.Time {
	switch v := d.u(); v {
	case timeZero:
		return time.Time{}
	case timeText:
		var t time.Time
		if err := t.UnmarshalJSON([]byte(d.str())); err != nil {
			d.fail(err)
		}
		return t
	default:
		v -= timeUTC
		sec := int64(v>>1) ^ -int64(v&1)
		ns := d.u()
		if ns >= 1e9 {
			d.fail(errors.New("malformed time"))
			return time.Time{}
		}
		return time.Unix(d.start.Unix()+sec, int64(ns)).UTC()
	}
}

func (d *recDecoder) times() []time.Time {
	n := d.count(d.u(), 1)
	if n == 0 {
		return nil
	}
	out := make([]time.Time, n)
	for i := range out {
		out[i] = d.time()
	}
	return out
}

func (d *recDecoder) object() map[string]any {
	v := d.u()
	if v == 0 {
		return nil
	}
	return d.entries(d.count(v-1, 2), 0)
}

// entries reads n key/value pairs into a map with room for extra more.
func (d *recDecoder) entries(n, extra int) map[string]any {
	m := make(map[string]any, n+extra)
	for range n {
		k := d.str()
		m[k] = d.value(0)
	}
	return m
}

// maxValueDepth bounds the nesting of a record's free-form values.
const maxValueDepth = 10000

// value reads a free-form value. skipValue reads it the same way without
// making it: keep the two in step.
func (d *recDecoder) value(depth int) any {
	if depth > maxValueDepth {
		d.fail(errors.New("values nested too deeply"))
		return nil
	}
	if d.i >= len(d.s) {
		d.fail(errRecShort)
		return nil
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagNull:
		return nil
	case tagFalse:
		return false
	case tagTrue:
		return true
	case tagInt:
		return float64(d.i64())
	case tagFloat:
		if len(d.s)-d.i < 8 {
			d.fail(errRecShort)
			return nil
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(unsafe.Slice(unsafe.StringData(d.s[d.i:]), 8)))
		d.i += 8
		return v
	case tagString:
		return d.str()
	case tagArray:
		n := d.count(d.u(), 1)
		a := make([]any, n)
		for i := range a {
			a[i] = d.value(depth + 1)
		}
		return a
	case tagObject:
		n := d.count(d.u(), 2)
		m := make(map[string]any, n)
		for range n {
			k := d.str()
			m[k] = d.value(depth + 1)
		}
		return m
	}
	d.fail(fmt.Errorf("unknown value tag %d", tag))
	return nil
}

// head reads the fields up to ended_at into c.
func (d *recDecoder) head(c *Conversation) uint64 {
	d.i = 1
	flags := d.u()
	c.InProgress = flags&recInProgress != 0
	c.Handoff = flags&recHandoff != 0
	if flags&recStartText != 0 {
		if err := c.StartedAt.UnmarshalJSON([]byte(d.str())); err != nil {
			d.fail(err)
		}
	}
	d.start = c.StartedAt
	c.VariantID, c.VariantName, c.Environment, c.Channel, c.ChatChannel = d.str(), d.str(), d.str(), d.str(), d.str()
	c.FromNumber, c.ToNumber, c.Language, c.TTSLanguage = d.str(), d.str(), d.str(), d.str()
	c.HandoffReason, c.HandoffDestination, c.SharedID = d.str(), d.str(), d.str()
	c.EndedAt = d.time()
	return flags
}

// keyFields fills the fields a record's key holds.
func keyFields(pk string, c *Conversation) error {
	k, ok := parseConvKey(pk)
	if !ok {
		return fmt.Errorf("not a conversation key: %.60q", pk)
	}
	start, ok := timeOfTS(k.ts)
	if !ok {
		return fmt.Errorf("malformed time in key %.60q", pk)
	}
	c.Region, c.AccountID, c.ProjectID, c.ID, c.StartedAt = k.region, k.account, k.project, k.id, start
	return nil
}

// checked checks a compact record's checksum and returns the rest.
func checked(pk, v string) (string, error) {
	if len(v) < 5 {
		return "", fmt.Errorf("decode conversation: %w", errRecShort)
	}
	body := v[:len(v)-4]
	sum := binary.LittleEndian.Uint32(unsafe.Slice(unsafe.StringData(v[len(v)-4:]), 4))
	if recChecksum(pk, unsafe.Slice(unsafe.StringData(body), len(body))) != sum {
		return "", errors.New("decode conversation: the record's checksum does not match (a damaged record or key)")
	}
	return body, nil
}

// decodeRecord decodes a compact record stored under pk.
func decodeRecord(pk, v string, tab []string) (*Conversation, error) {
	c, _, err := decodeRecordAt(pk, v, tab)
	return c, err
}

// decodeRecordAt is decodeRecord also locating the turns.
func decodeRecordAt(pk, v string, tab []string) (*Conversation, recTurns, error) {
	c, turns, _, err := decodeRecordWith(pk, v, tab, turnsOwn)
	return c, turns, err
}

// turnsMode is how decodeRecordWith reads a record's turns.
type turnsMode uint8

const (
	turnsOwn    turnsMode = iota // decoded, the caller's to change
	turnsShared                  // decoded, never changed: they may share memory (recDecoder.shared)
	// turnsSkipped: checked as turnsOwn, not made; the prior turns
	// returned describe them.
	turnsSkipped
)

// decodeRecordWith is decodeRecordAt reading turns as mode says, also
// describing them (priorOf).
func decodeRecordWith(pk, v string, tab []string, mode turnsMode) (*Conversation, recTurns, PriorTurns, error) {
	var turns recTurns
	var prior PriorTurns
	v, err := checked(pk, v)
	if err != nil {
		return nil, turns, prior, err
	}
	c := new(Conversation)
	if err := keyFields(pk, c); err != nil {
		return nil, turns, prior, err
	}
	d := recDecoder{s: v, tab: tab, shared: mode == turnsShared}
	d.head(c)
	c.NumSilences, c.NumOOD = int(d.i64()), int(d.i64())
	c.Metrics = d.object()
	if bits := d.u(); bits > 0 {
		bits--
		n := d.count(d.u(), 2)
		c.State = d.entries(n, popcount(bits))
		for k, name := range stateBuiltins {
			if bits&(1<<k) == 0 {
				continue
			}
			if v, ok := builtinValue(c, k); ok {
				c.State[name] = v
			}
		}
		c.IntegrationAttributes = d.object()
		if bits&(1<<(len(stateBuiltins)-1)) != 0 {
			if c.IntegrationAttributes == nil {
				d.fail(errors.New("state's integration attributes without any"))
			} else {
				c.State["integration_attributes"] = copyObject(c.IntegrationAttributes)
			}
		}
	} else {
		c.IntegrationAttributes = d.object()
	}
	if v := d.u(); v > 0 {
		n := d.count(v-1, 11)
		turns.at = d.i
		if mode == turnsSkipped {
			for i := range n {
				if flags, userInput := d.skipTurn(); i == 0 {
					prior.Greeting = isGreeting(userInput, flags&turnSilence != 0, flags&turnOOD != 0)
				}
			}
			prior.N = n
		} else {
			c.Turns = make([]Turn, n)
			for i := range c.Turns {
				d.turnsLeft = len(c.Turns) - i
				d.turn(&c.Turns[i])
			}
			prior = priorOf(c.Turns)
		}
		turns.end, turns.n = d.i, n
	}
	c.FunctionErrors = d.times()
	c.Crashes = d.times()
	if n := d.count(d.u(), 1); n > 0 {
		c.AwaitedEvents = make([]string, n)
		for i := range c.AwaitedEvents {
			c.AwaitedEvents[i] = d.str()
		}
	}
	if n := d.count(d.u(), 4); n > 0 {
		c.Events = make([]Event, n)
		for i := range c.Events {
			ev := &c.Events[i]
			ev.ID = d.str()
			ev.ReceivedAt = d.time()
			ev.ContentType = d.str()
			if p := d.u(); p > 0 {
				n := d.count(p-1, 1)
				ev.Payload = []byte(d.s[d.i : d.i+n])
				d.i += n
			}
		}
	}
	if d.err == nil && d.i != len(d.s) {
		d.fail(errors.New("bytes after the record"))
	}
	if d.err != nil {
		return nil, recTurns{}, PriorTurns{}, fmt.Errorf("decode conversation: %w", d.err)
	}
	return c, turns, prior, nil
}

// turn reads a turn into t. skipTurn reads it the same way without
// making it: keep the two in step.
func (d *recDecoder) turn(t *Turn) {
	flags := d.u()
	t.BargeIn, t.IsOOD, t.IsSilence = flags&turnBargeIn != 0, flags&turnOOD != 0, flags&turnSilence != 0
	t.UserInput = d.str()
	t.UserInputAt = d.time()
	t.AgentResponse = d.str()
	t.AgentResponseAt = d.time()
	n := d.count(d.u(), 1)
	if flags&turnIntentsNil == 0 {
		t.Intents = d.strings(n)
		for i := range t.Intents {
			t.Intents[i] = d.str()
		}
	}
	n = d.count(d.u(), 2)
	switch {
	case flags&turnEntitiesNil != 0:
	case n == 0 && d.shared:
		if d.noEntities == nil {
			d.noEntities = map[string]string{}
		}
		t.Entities = d.noEntities
	default:
		t.Entities = make(map[string]string, n)
		for range n {
			k := d.str()
			t.Entities[k] = d.str()
		}
	}
	t.TranslatedUserInput = d.str()
	t.EnglishAgentResponse = d.str()
	t.Latency = time.Duration(d.i64())
	t.Metadata = d.object()
}

// skipTurn reads a turn without making it, returning what priorOf needs.
func (d *recDecoder) skipTurn() (flags uint64, userInput string) {
	flags = d.u()
	userInput = d.str()
	d.time()
	d.str()
	d.time()
	n := d.count(d.u(), 1)
	if flags&turnIntentsNil == 0 {
		for range n {
			d.str()
		}
	}
	n = d.count(d.u(), 2)
	if flags&turnEntitiesNil == 0 {
		for range 2 * n {
			d.str()
		}
	}
	d.str()
	d.str()
	d.i64()
	if v := d.u(); v > 0 {
		for range d.count(v-1, 2) {
			d.str()
			d.skipValue(0)
		}
	}
	return flags, userInput
}

// skipValue reads a value as value does, without making it.
func (d *recDecoder) skipValue(depth int) {
	if depth > maxValueDepth {
		d.fail(errors.New("values nested too deeply"))
		return
	}
	if d.i >= len(d.s) {
		d.fail(errRecShort)
		return
	}
	tag := d.s[d.i]
	d.i++
	switch tag {
	case tagNull, tagFalse, tagTrue:
	case tagInt:
		d.i64()
	case tagFloat:
		if len(d.s)-d.i < 8 {
			d.fail(errRecShort)
			return
		}
		d.i += 8
	case tagString:
		d.str()
	case tagArray:
		for range d.count(d.u(), 1) {
			d.skipValue(depth + 1)
		}
	case tagObject:
		for range d.count(d.u(), 2) {
			d.str()
			d.skipValue(depth + 1)
		}
	default:
		d.fail(fmt.Errorf("unknown value tag %d", tag))
	}
}

// strings returns n strings to fill, for shared turns cut from the arena
// (capped, so an append never writes into the next).
func (d *recDecoder) strings(n int) []string {
	if !d.shared || n == 0 {
		return make([]string, n)
	}
	if cap(d.arena)-len(d.arena) < n {
		d.arena = make([]string, 0, max(n*d.turnsLeft, 2*n))
	}
	at := len(d.arena)
	d.arena = d.arena[:at+n]
	return d.arena[at : at+n : at+n]
}

// decodeRecordSpan reads the span of a compact record.
func decodeRecordSpan(pk, v string, tab []string, r *Span) error {
	v, err := checked(pk, v)
	if err != nil {
		return err
	}
	var c Conversation
	if err := keyFields(pk, &c); err != nil {
		return err
	}
	d := recDecoder{s: v, tab: tab}
	d.head(&c)
	if d.err != nil {
		return fmt.Errorf("decode conversation: %w", d.err)
	}
	*r = Span{ID: c.ID, StartedAt: c.StartedAt, EndedAt: c.EndedAt, InProgress: c.InProgress,
		Environment: c.Environment, VariantID: c.VariantID, VariantName: c.VariantName,
		Language: c.Language, FromNumber: c.FromNumber, ToNumber: c.ToNumber}
	return nil
}

// convKeyParts are the parts of a conversation's key.
type convKeyParts struct{ region, account, project, ts, id string }

// parseConvKey splits c/{region}/{account}/{project}/{ts}/{id}.
func parseConvKey(pk string) (convKeyParts, bool) {
	rest, ok := cutPrefix(pk, pfxConv)
	if !ok {
		return convKeyParts{}, false
	}
	var seg [3]string
	for n := range seg {
		i := indexByte(rest, '/')
		if i < 0 {
			return convKeyParts{}, false
		}
		seg[n], rest = unesc(rest[:i]), rest[i+1:]
	}
	if len(rest) < tsLen+2 || rest[tsLen] != '/' {
		return convKeyParts{}, false
	}
	return convKeyParts{region: seg[0], account: seg[1], project: seg[2], ts: rest[:tsLen], id: rest[tsLen+1:]}, true
}

func cutPrefix(s, p string) (string, bool) {
	if len(s) < len(p) || s[:len(p)] != p {
		return s, false
	}
	return s[len(p):], true
}

func indexByte(s string, c byte) int {
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			return i
		}
	}
	return -1
}

// decodeConvJSON decodes a JSON record (older files, encodeRecord's round
// trip).
func decodeConvJSON(v string) (*Conversation, error) {
	c := new(Conversation)
	if err := json.Unmarshal([]byte(v), c); err != nil {
		return nil, fmt.Errorf("decode conversation: %w", err)
	}
	return c, nil
}
