package store

// Generated conversation records, kept as their generator (GenSpec,
// persisted) plus, per record, what queries need without the record
// (genRec: order, span, filter fields, and the random state at its first
// draw, from which genRecord makes it again, byte for byte). A written
// generated record becomes a stored one and the generated one is shadowed.

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"time"
)

// GenSpec is everything a generator's records depend on, built from a
// scenario's generate block; the store persists it.
type GenSpec struct {
	Region    string `json:"region"`
	AccountID string `json:"account_id"`
	ProjectID string `json:"project_id"`
	// Seed1 and Seed2 seed the generator's PCG.
	Seed1 uint64 `json:"seed1"`
	Seed2 uint64 `json:"seed2"`
	Count int    `json:"count"`
	// From and To bound started_at: [From, To).
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
	// Now is the clock's start: a record running at Now is in progress,
	// with the turns up to Now.
	Now time.Time `json:"now"`
	// Weighted picks: keys in a stable order with their weights.
	Channels     GenWeights `json:"channels"`
	Environments GenWeights `json:"environments"`
	Languages    GenWeights `json:"languages"`
	Variants     GenWeights `json:"variants"`
	// VariantIDs and VariantNames are the variant of each key of Variants
	// ("" and "" when the key names no variant of the project).
	VariantIDs   []string `json:"variant_ids"`
	VariantNames []string `json:"variant_names"`
	// Handoff and OOD are the fractions of handed-off conversations and of
	// out-of-domain user turns.
	Handoff float64 `json:"handoff"`
	OOD     float64 `json:"ood"`
	// DurationMin, DurationMax, TurnsMin and TurnsMax bound each record.
	DurationMin time.Duration `json:"duration_min"`
	DurationMax time.Duration `json:"duration_max"`
	TurnsMin    int           `json:"turns_min"`
	TurnsMax    int           `json:"turns_max"`
	// AgentNumber is the to_number of voice records.
	AgentNumber string `json:"agent_number"`
	// Vocab is what callers and agent say.
	Vocab GenVocab `json:"vocab"`
	// Redraws lists the records whose id was drawn again because it was
	// taken (record index → extra draws), so they come out the same later.
	Redraws map[int]int `json:"redraws,omitempty"`
}

// GenWeights are weighted keys.
type GenWeights struct {
	Keys    []string `json:"keys"`
	Weights []int    `json:"weights"`
}

// GenVocab is a generator's texts.
type GenVocab struct {
	Topics    []GenTopic `json:"topics"`
	Greetings []string   `json:"greetings"`
	OOD       []string   `json:"ood"`
	Fallback  string     `json:"fallback"`
	// HumanAsk and HumanReply are the last turn of a handed-off record,
	// with HumanIntent; HandoffDestination is its destination.
	HumanAsk           string `json:"human_ask"`
	HumanReply         string `json:"human_reply"`
	HumanIntent        string `json:"human_intent"`
	HandoffDestination string `json:"handoff_destination"`
}

// GenTopic is one reason to call, with what the caller and agent say.
type GenTopic struct {
	Intent string   `json:"intent"`
	User   []string `json:"user"`
	Agent  []string `json:"agent"`
}

// maxIDDraws is how often a taken id is drawn again before giving up.
const maxIDDraws = 10

// genRand is a generator's seeded random source.
type genRand struct {
	*rand.Rand
	src *rand.PCG
}

// genRandState holds a genRand's generator and source in one allocation.
type genRandState struct {
	pcg rand.PCG
	r   rand.Rand
}

func newGenRand(s1, s2 uint64) genRand {
	st := &genRandState{pcg: *rand.NewPCG(s1, s2)}
	st.r = *rand.New(&st.pcg)
	return genRand{&st.r, &st.pcg}
}

// IntN, Int64N and Float64 are math/rand/v2's algorithms (the same
// results) called on the PCG directly, avoiding the Source interface.

// IntN returns a number in [0, n); it panics if n <= 0.
func (r genRand) IntN(n int) int {
	if n <= 0 {
		panic("invalid argument to IntN")
	}
	return int(r.uint64n(uint64(n)))
}

// Int64N returns a number in [0, n); it panics if n <= 0.
func (r genRand) Int64N(n int64) int64 {
	if n <= 0 {
		panic("invalid argument to Int64N")
	}
	return int64(r.uint64n(uint64(n)))
}

// Float64 returns a number in [0.0, 1.0).
func (r genRand) Float64() float64 {
	return float64(r.src.Uint64()<<11>>11) / (1 << 53)
}

// uint64n is math/rand/v2's (Lemire's multiply and reject).
func (r genRand) uint64n(n uint64) uint64 {
	if n&(n-1) == 0 {
		return r.src.Uint64() & (n - 1)
	}
	hi, lo := bits.Mul64(r.src.Uint64(), n)
	if lo < n {
		thresh := -n % n
		for lo < thresh {
			hi, lo = bits.Mul64(r.src.Uint64(), n)
		}
	}
	return hi
}

// state is the PCG's state.
func (r genRand) state() (hi, lo uint64) {
	var buf [20]byte
	b, _ := r.src.AppendBinary(buf[:0]) // "pcg:" + hi + lo; cannot fail
	return binary.BigEndian.Uint64(b[4:]), binary.BigEndian.Uint64(b[12:])
}

// setState moves the PCG to a state.
func (r genRand) setState(hi, lo uint64) {
	var buf [20]byte
	copy(buf[:], "pcg:")
	binary.BigEndian.PutUint64(buf[4:], hi)
	binary.BigEndian.PutUint64(buf[12:], lo)
	_ = r.src.UnmarshalBinary(buf[:]) // a well-formed state cannot fail
}

func (r genRand) pick(w *GenWeights) int {
	total := 0
	for _, x := range w.Weights {
		total += max(x, 0)
	}
	if total == 0 || len(w.Keys) == 0 {
		return -1
	}
	n := r.IntN(total)
	for i, x := range w.Weights {
		if x <= 0 {
			continue
		}
		if n < x {
			return i
		}
		n -= x
	}
	return len(w.Keys) - 1
}

func (r genRand) between(lo, hi int64) int64 {
	if hi <= lo {
		return lo
	}
	return lo + r.Int64N(hi-lo+1)
}

func (r genRand) hex(b []byte) {
	const alpha = "0123456789abcdef"
	for i := range b {
		b[i] = alpha[r.IntN(16)]
	}
}

func (r genRand) digits(b []byte) {
	for i := range b {
		b[i] = byte('0' + r.IntN(10))
	}
}

// genOut collects what making a record yields besides the record.
type genOut struct {
	rec genRec
	id  [34]byte
	idN int
	// topic is the record's topic (its handoff state's).
	topic int
	// boxed, when set, are the spec's keys boxed (the record's state
	// shares them).
	boxed *genBoxed
	// events, when wantEvents, collects the record's metric events (as
	// convEvents, unsorted).
	wantEvents bool
	events     []mevent
	// scratch, when set, is the reused record c is (recordInto).
	scratch *genScratch
}

// genMake makes the record whose draws start at r's state (c nil: only
// draws). taken reports ids not to use; redraws is given, or found.
func genMake(sp *GenSpec, r genRand, c *Conversation, o *genOut, redraws int, taken func([]byte) bool) (int, error) {
	o.rec.env = int8(r.pick(&sp.Environments))
	o.rec.ch = int8(r.pick(&sp.Channels))
	off := r.Int64N(sp.To.Sub(sp.From).Nanoseconds())
	o.rec.off = off
	o.rec.lang = int8(r.pick(&sp.Languages))
	o.rec.vari = int8(r.pick(&sp.Variants))
	start := sp.From.Add(time.Duration(off)).UTC()
	channel := keyOf(&sp.Channels, int(o.rec.ch))
	voice := len(channel) >= 5 && channel[:5] == "VOICE"
	var fromDigits [4]byte
	if voice {
		o.rec.flags |= grVoice
		r.digits(fromDigits[:])
		o.rec.from = uint16((int(fromDigits[0]-'0')*10+int(fromDigits[1]-'0'))*100 + int(fromDigits[2]-'0')*10 + int(fromDigits[3]-'0'))
	}
	dur := time.Duration(r.between(int64(sp.DurationMin), int64(sp.DurationMax))).Truncate(time.Second)
	o.rec.dur = int64(dur)
	nTurns := int(r.between(int64(sp.TurnsMin), int64(sp.TurnsMax)))
	o.topic = r.IntN(len(sp.Vocab.Topics))
	topic := &sp.Vocab.Topics[o.topic]
	handedOff := r.Float64() < sp.Handoff
	end := start.Add(dur)
	now := sp.Now
	var startTP tpoint
	if o.wantEvents {
		startTP = tp(start)
		o.events = append(o.events, mevent{kind: evStart, at: startTP, start: startTP})
	}
	live := !now.Before(start) && now.Before(end)
	if c != nil {
		var (
			turns   []Turn
			metrics map[string]any
			state   map[string]any
		)
		if o.scratch != nil {
			turns, metrics, state = c.Turns[:0], c.Metrics, c.State
		}
		if turns == nil || cap(turns) < nTurns {
			turns = make([]Turn, 0, nTurns) // never nil: no turns is []
		}
		if metrics == nil {
			metrics = map[string]any{}
		}
		*c = Conversation{Region: sp.Region, AccountID: sp.AccountID, ProjectID: sp.ProjectID,
			Environment: keyOf(&sp.Environments, int(o.rec.env)), Channel: channel, StartedAt: start,
			Language: keyOf(&sp.Languages, int(o.rec.lang)), Metrics: metrics, Turns: turns, State: state}
		if o.rec.vari >= 0 && sp.VariantIDs[o.rec.vari] != "" {
			c.VariantID, c.VariantName = sp.VariantIDs[o.rec.vari], sp.VariantNames[o.rec.vari]
		}
		if voice {
			c.FromNumber = "+1415555" + string(fromDigits[:])
			c.ToNumber = sp.AgentNumber
		}
	}
	// The turns' intents share one array (each turn's slice is capped to
	// its own element).
	var intents []string
	for t := range nTurns {
		at := start
		if nTurns > 1 {
			at = start.Add(dur * time.Duration(t) / time.Duration(nTurns))
		}
		lat := time.Duration(r.between(400, 1500)) * time.Millisecond
		var user, agent string
		var intent string
		ood := false
		switch {
		case t == 0:
			agent = sp.Vocab.Greetings[r.IntN(len(sp.Vocab.Greetings))]
			lat = 0
		case handedOff && t == nTurns-1:
			user, agent, intent = sp.Vocab.HumanAsk, sp.Vocab.HumanReply, sp.Vocab.HumanIntent
		case r.Float64() < sp.OOD:
			user, agent, ood = sp.Vocab.OOD[r.IntN(len(sp.Vocab.OOD))], sp.Vocab.Fallback, true
		default:
			user = topic.User[r.IntN(len(topic.User))]
			agent = topic.Agent[r.IntN(len(topic.Agent))]
			intent = topic.Intent
		}
		if live && at.After(now) {
			break
		}
		if o.wantEvents && t > 0 { // the greeting (turn 0) has no user turn, no latency
			o.events = append(o.events, mevent{kind: evTurn, at: tp(at), ms: lat.Milliseconds(), start: startTP})
		}
		if c != nil {
			if ood {
				c.NumOOD++
			}
			turn := Turn{UserInput: user, UserInputAt: at, AgentResponse: agent, AgentResponseAt: at.Add(lat), Latency: lat,
				IsOOD: ood, Intents: []string{}}
			if o.scratch == nil {
				turn.Entities = map[string]string{}
			}
			if intent != "" {
				if intents == nil {
					intents = o.intentsFor(nTurns)
				}
				intents[t] = intent
				turn.Intents = intents[t : t+1 : t+1]
			}
			c.Turns = append(c.Turns, turn)
		}
	}
	if live {
		o.rec.flags |= grInProgress
	} else if handedOff {
		o.rec.flags |= grHandoff
	}
	if c != nil {
		if live {
			c.InProgress = true
		} else {
			c.EndedAt = end
			if handedOff {
				c.Handoff, c.HandoffDestination, c.HandoffReason = true, sp.Vocab.HandoffDestination, topic.Intent
			}
		}
	}
	// The id: voice records CA + 32 hex, as real voice calls; text ones
	// CONV- + 16 digits. A taken id is drawn again.
	for attempt := 0; ; attempt++ {
		if attempt == maxIDDraws || (taken == nil && attempt > redraws) {
			return 0, fmt.Errorf("generate: could not allocate a conversation id in %s", sp.Region)
		}
		if voice {
			o.idN = 34
			copy(o.id[:], "CA")
			r.hex(o.id[2:34])
		} else {
			o.idN = 21
			copy(o.id[:], "CONV-")
			r.digits(o.id[5:21])
		}
		if taken != nil {
			if isTaken(taken, o.id, o.idN) {
				continue
			}
			redraws = attempt
		} else if attempt < redraws {
			continue
		}
		break
	}
	if c != nil {
		c.ID = string(o.id[:o.idN])
		if b := o.boxed; b != nil {
			vid := any("")
			if o.rec.vari >= 0 {
				vid = b.variantIDs[o.rec.vari]
			}
			st := c.State
			if st == nil {
				st = make(map[string]any, 5)
			}
			st["conversation_id"], st["channel"] = c.ID, boxedKey(b.channels, int(o.rec.ch))
			st["client_env"], st["variant_id"] = boxedKey(b.environments, int(o.rec.env)), vid
			st["asr_lang_code"] = boxedKey(b.languages, int(o.rec.lang))
			c.State = st
		} else {
			c.State = map[string]any{"conversation_id": c.ID, "channel": c.Channel, "client_env": c.Environment,
				"variant_id": c.VariantID, "asr_lang_code": c.Language}
		}
	}
	return redraws, nil
}

// intentsFor is an array of n intents, the scratch's if any.
func (o *genOut) intentsFor(n int) []string {
	sc := o.scratch
	if sc == nil {
		return make([]string, n)
	}
	if cap(sc.intents) < n {
		sc.intents = make([]string, n)
	}
	sc.intents = sc.intents[:n]
	clear(sc.intents)
	return sc.intents
}

// isTaken asks taken about an id by value, so that genOut does not escape.
func isTaken(taken func([]byte) bool, id [34]byte, n int) bool { return taken(id[:n]) }

func keyOf(w *GenWeights, i int) string {
	if i < 0 {
		return ""
	}
	return w.Keys[i]
}

// checkSpec checks a spec before use (a persisted one may be damaged).
func checkSpec(sp *GenSpec) error {
	switch {
	case sp.Region == "" || sp.AccountID == "" || sp.ProjectID == "":
		return errors.New("generator without region, account or project")
	case sp.Count < 0 || sp.Count > 1<<31-1:
		return fmt.Errorf("generator of %d records", sp.Count)
	case !sp.From.Before(sp.To):
		return errors.New("generator whose from is not before its to")
	case len(sp.Vocab.Topics) == 0 || len(sp.Vocab.Greetings) == 0 || len(sp.Vocab.OOD) == 0:
		return errors.New("generator without a vocabulary")
	case len(sp.VariantIDs) != len(sp.Variants.Keys) || len(sp.VariantNames) != len(sp.Variants.Keys):
		return errors.New("generator whose variants do not match their keys")
	}
	for _, w := range []*GenWeights{&sp.Channels, &sp.Environments, &sp.Languages, &sp.Variants} {
		if len(w.Keys) != len(w.Weights) || len(w.Keys) > 127 {
			return errors.New("generator with malformed weights")
		}
	}
	for _, t := range sp.Vocab.Topics {
		if len(t.User) == 0 || len(t.Agent) == 0 {
			return errors.New("generator topic without texts")
		}
	}
	return nil
}
