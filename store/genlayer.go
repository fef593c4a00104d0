package store

// The generated layer: a generator's records as kept (genRec, in listing
// order, with an id index), built from a GenSpec and read back by position.

import (
	"hash/fnv"
	"slices"
	"strconv"
	"time"
)

// Flags of a genRec.
const (
	grInProgress uint8 = 1 << iota
	grVoice
	grHandoff // the record is handed off (it has a handoff state)
)

// genRec is what the store keeps of a generated record.
type genRec struct {
	off    int64  // started_at - From, in nanoseconds
	hi, lo uint64 // the PCG's state at the record's first draw
	dur    int64  // total duration in nanoseconds (the end is off+dur)
	index  uint32 // position in generation order
	from   uint16 // the caller number's last four digits (voice)
	env    int8   // key indexes (-1: none)
	ch     int8
	lang   int8
	vari   int8
	flags  uint8
}

// genLayer is one generator's records, immutable once built and shared.
type genLayer struct {
	spec *GenSpec
	// key is the layer's persistent record key (g/...), its identity.
	key  string
	recs []genRec // in (started_at, id) order
	// ids maps id hashes to positions in recs, sorted by hash.
	ids []idPos
	// starts are the records' started_at as Unix nanoseconds, when all
	// fit (else nil), for listings' binary searches.
	from     time.Time
	handoffs int // records with a handoff state
	// boxed are the spec's keys as state values, boxed once.
	boxed *genBoxed
}

// genBoxed are a spec's keys boxed once as state values.
type genBoxed struct {
	channels, environments, languages, variantIDs []any
}

func boxStrings(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

func newGenBoxed(sp *GenSpec) *genBoxed {
	return &genBoxed{channels: boxStrings(sp.Channels.Keys), environments: boxStrings(sp.Environments.Keys),
		languages: boxStrings(sp.Languages.Keys), variantIDs: boxStrings(sp.VariantIDs)}
}

// boxedKey is the boxed key i of keys (the empty string for -1).
func boxedKey(keys []any, i int) any {
	if i < 0 {
		return ""
	}
	return keys[i]
}

// idIndex maps id hashes to record indexes while a layer is generated
// (linear probing in flat slices, cheaper than a map). A hash of 0 is kept
// as 1; of two ids with one hash the later is kept, and sameID tells.
type idIndex struct {
	hs    []uint64 // 0: an empty slot
	is    []int32
	shift uint8
}

// newIDIndex returns an index for at most n hashes (2n+ slots).
func newIDIndex(n int) *idIndex {
	bits := uint8(4)
	for 1<<bits < 2*n {
		bits++
	}
	return &idIndex{hs: make([]uint64, 1<<bits), is: make([]int32, 1<<bits), shift: 64 - bits}
}

// slot is where h is, or the empty slot where it would go.
func (x *idIndex) slot(h uint64) (int, uint64) {
	h = max(h, 1)
	mask := len(x.hs) - 1
	for j := int((h * 0x9E3779B97F4A7C15) >> x.shift); ; j = (j + 1) & mask {
		if x.hs[j] == h || x.hs[j] == 0 {
			return j, h
		}
	}
}

func (x *idIndex) get(h uint64) (int32, bool) {
	j, h := x.slot(h)
	return x.is[j], x.hs[j] == h
}

func (x *idIndex) put(h uint64, i int32) {
	j, h := x.slot(h)
	x.hs[j], x.is[j] = h, i
}

type idPos struct {
	h   uint64
	pos uint32
}

func idHash(b []byte) uint64 {
	h := fnv.New64a()
	h.Write(b)
	return h.Sum64()
}

// buildLayer indexes a generator's records from its draws alone, then
// sorts them. taken, when set, says which other ids are taken and the
// redraws found go into the spec; else the spec's are used.
func buildLayer(sp *GenSpec, key string, taken func(id []byte) bool, progress func(done int), pm *projMetrics) (*genLayer, error) {
	if err := checkSpec(sp); err != nil {
		return nil, err
	}
	l := &genLayer{spec: sp, key: key, from: sp.From, recs: make([]genRec, sp.Count), boxed: newGenBoxed(sp)}
	r := newGenRand(sp.Seed1, sp.Seed2)
	ids := make([]idPos, sp.Count)
	var own *idIndex // id hashes of this layer's records so far, with their index
	var layerTaken func(id []byte) bool
	if taken != nil {
		own = newIDIndex(sp.Count)
		sp.Redraws = nil
		layerTaken = func(id []byte) bool {
			if i, ok := own.get(idHash(id)); ok && l.sameID(int(i), id) {
				return true
			}
			return taken(id)
		}
	}
	var bm *bulkMetrics
	if pm != nil {
		// Events fall within the lookback of a record's start.
		bm = pm.bulk(sp.From, sp.To.Add(MetricsLookback))
	}
	var o genOut
	for i := range sp.Count {
		if progress != nil && i%progressEvery == 0 && i > 0 {
			progress(i)
		}
		hi, lo := r.state()
		o = genOut{wantEvents: pm != nil, events: o.events[:0]}
		red, err := genMake(sp, r, nil, &o, sp.Redraws[i], layerTaken)
		if err != nil {
			return nil, err
		}
		if taken != nil && red > 0 {
			if sp.Redraws == nil {
				sp.Redraws = map[int]int{}
			}
			sp.Redraws[i] = red
		}
		o.rec.hi, o.rec.lo, o.rec.index = hi, lo, uint32(i)
		l.recs[i] = o.rec
		h := idHash(o.id[:o.idN])
		ids[i] = idPos{h, uint32(i)}
		if own != nil {
			own.put(h, int32(i)) // a hash shared by two ids keeps the later: sameID checks
		}
		if o.rec.flags&grHandoff != 0 {
			l.handoffs++
		}
		for _, e := range o.events {
			bm.add(e)
		}
	}
	// Sort by (started_at, id), making ids again for (rare) equal times;
	// offsets are sorted beside the indexes for locality.
	type offIndex struct {
		off int64
		i   uint32
	}
	byIndex := l.recs
	order := make([]offIndex, sp.Count)
	for i := range order {
		order[i] = offIndex{byIndex[i].off, uint32(i)}
	}
	slices.SortFunc(order, func(a, b offIndex) int {
		if a.off != b.off {
			if a.off < b.off {
				return -1
			}
			return 1
		}
		return compareIDs(l.idOfRec(&byIndex[a.i]), l.idOfRec(&byIndex[b.i]))
	})
	sorted := make([]genRec, sp.Count)
	pos := make([]uint32, sp.Count) // index → position
	for p, o := range order {
		sorted[p] = byIndex[o.i]
		pos[o.i] = uint32(p)
	}
	l.recs = sorted
	for i := range ids {
		ids[i].pos = pos[ids[i].pos]
	}
	slices.SortFunc(ids, func(a, b idPos) int {
		switch {
		case a.h < b.h:
			return -1
		case a.h > b.h:
			return 1
		}
		return int(a.pos) - int(b.pos)
	})
	l.ids = ids
	return l, nil
}

// progressEvery is how often buildLayer reports progress.
const progressEvery = 50_000

func compareIDs(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// remake makes the record g again into c (nil: only its draws, into o).
func (l *genLayer) remake(g *genRec, r genRand, c *Conversation, o *genOut) error {
	r.setState(g.hi, g.lo)
	_, err := genMake(l.spec, r, c, o, l.spec.Redraws[int(g.index)], nil)
	return err
}

// idOfRec makes a record's id again.
func (l *genLayer) idOfRec(g *genRec) string {
	var o genOut
	if l.remake(g, newGenRand(0, 0), nil, &o) != nil {
		return ""
	}
	return string(o.id[:o.idN])
}

// sameID reports whether the i-th record generated has the id.
func (l *genLayer) sameID(i int, id []byte) bool {
	return l.idOfRec(&l.recs[i]) == string(id)
}

// id returns the id of the record at position p.
func (l *genLayer) id(p int) string { return l.idOfRec(&l.recs[p]) }

// record makes the record at position p.
func (l *genLayer) record(p int) (*Conversation, error) {
	c := new(Conversation)
	o := genOut{boxed: l.boxed}
	if err := l.remake(&l.recs[p], newGenRand(0, 0), c, &o); err != nil {
		return nil, err
	}
	return c, nil
}

// genScratch is what recordInto reuses from one record to the next.
type genScratch struct {
	c       Conversation
	intents []string
	rnd     genRand
}

// recordInto makes the record at position p into sc's record, reusing
// its memory (EachConversation).
func (l *genLayer) recordInto(p int, sc *genScratch) (*Conversation, error) {
	if sc.rnd.src == nil {
		sc.rnd = newGenRand(0, 0)
	}
	o := genOut{boxed: l.boxed, scratch: sc}
	if err := l.remake(&l.recs[p], sc.rnd, &sc.c, &o); err != nil {
		return nil, err
	}
	return &sc.c, nil
}

// handoffState makes the handoff state of the record at p, if it has one.
func (l *genLayer) handoffState(p int) (*HandoffState, bool, error) {
	g := &l.recs[p]
	if g.flags&grHandoff == 0 {
		return nil, false, nil
	}
	c := new(Conversation)
	var o genOut
	if err := l.remake(g, newGenRand(0, 0), c, &o); err != nil {
		return nil, false, err
	}
	return &HandoffState{Region: c.Region, AccountID: c.AccountID, ProjectID: c.ProjectID, ID: c.ID,
		Data: map[string]any{"topic": l.spec.Vocab.Topics[o.topic].Intent, "channel": c.Channel}, CreatedAt: c.EndedAt}, true, nil
}

// find returns the position of the record with the id, or -1.
func (l *genLayer) find(id string) int {
	h := idHash([]byte(id))
	i, _ := slices.BinarySearchFunc(l.ids, h, func(e idPos, h uint64) int {
		switch {
		case e.h < h:
			return -1
		case e.h > h:
			return 1
		}
		return 0
	})
	for ; i < len(l.ids) && l.ids[i].h == h; i++ {
		if l.id(int(l.ids[i].pos)) == id {
			return int(l.ids[i].pos)
		}
	}
	return -1
}

// start is the started_at of the record at position p.
func (l *genLayer) start(p int) time.Time { return l.from.Add(time.Duration(l.recs[p].off)).UTC() }

// ts is the key segment of the record's started_at (tsenc).
func (l *genLayer) ts(p int) string { return tsenc(l.start(p)) }

// searchTime is the first position whose started_at is not before t.
func (l *genLayer) searchTime(t time.Time) int {
	if !t.After(l.from) {
		return 0
	}
	d := t.Sub(l.from) // saturates for far times: fine, offsets are below To-From
	return sortSearch(len(l.recs), func(p int) bool { return l.recs[p].off >= int64(d) })
}

func sortSearch(n int, f func(int) bool) int {
	i, j := 0, n
	for i < j {
		h := int(uint(i+j) >> 1)
		if !f(h) {
			i = h + 1
		} else {
			j = h
		}
	}
	return i
}

// searchKey is the first position whose key is above the suffix k
// ("{ts}/{id}"), or not below it when orEqual.
func (l *genLayer) searchKey(k string, orEqual bool) int {
	ts, id := k, ""
	if len(k) > tsLen {
		ts, id = k[:tsLen], k[tsLen+1:]
	}
	// after reports whether the key at p comes after k's id, once its
	// timestamp equals k's.
	after := func(p int) bool {
		pid := l.id(p)
		if orEqual {
			return pid >= id
		}
		return pid > id
	}
	switch num, ok := parseTSNum(ts); {
	case ok: // a timestamp: compared as numbers, without encoding each probe's
		return sortSearch(len(l.recs), func(p int) bool {
			if c := tsNumOf(l.start(p)).compare(num); c != 0 {
				return c > 0
			}
			return after(p)
		})
	case ts == "":
		return 0 // every key comes after it
	case ts[0] > '9':
		return len(l.recs) // every key (digits first) comes before it
	}
	var buf [tsLen]byte
	return sortSearch(len(l.recs), func(p int) bool {
		tsput(&buf, l.start(p))
		if pts := string(buf[:]); pts != ts {
			return pts > ts
		}
		return after(p)
	})
}

// span is the Span of the record at position p.
func (l *genLayer) span(p int) Span {
	g := &l.recs[p]
	sp := l.spec
	start := l.start(p)
	s := Span{StartedAt: start, InProgress: g.flags&grInProgress != 0, Environment: keyOf(&sp.Environments, int(g.env)),
		Language: keyOf(&sp.Languages, int(g.lang))}
	if !s.InProgress {
		s.EndedAt = start.Add(time.Duration(g.dur))
	}
	if g.vari >= 0 {
		s.VariantID, s.VariantName = sp.VariantIDs[g.vari], sp.VariantNames[g.vari]
	}
	if g.flags&grVoice != 0 {
		s.FromNumber = "+1415555" + pad4(g.from)
		s.ToNumber = sp.AgentNumber
	}
	return s
}

// concSpan is what the concurrency index keeps of the record at p.
func (l *genLayer) concSpan(p int) concSpan {
	g := &l.recs[p]
	sp := l.spec
	start := l.start(p)
	inProgress := g.flags&grInProgress != 0
	var end time.Time
	if !inProgress {
		end = start.Add(time.Duration(g.dur))
	}
	var vid, vname string
	if g.vari >= 0 {
		vid, vname = sp.VariantIDs[g.vari], sp.VariantNames[g.vari]
	}
	return spanOf(start, end, inProgress, keyOf(&sp.Environments, int(g.env)), vid, vname)
}

func pad4(n uint16) string {
	s := strconv.Itoa(int(n))
	for len(s) < 4 {
		s = "0" + s
	}
	return s
}

// summary is the filter fields of the record at position p.
func (l *genLayer) summary(p int) Summary {
	g := &l.recs[p]
	sp := l.spec
	s := Summary{Environment: keyOf(&sp.Environments, int(g.env)), Channel: keyOf(&sp.Channels, int(g.ch)),
		InProgress: g.flags&grInProgress != 0}
	if g.vari >= 0 {
		s.VariantID, s.VariantName = sp.VariantIDs[g.vari], sp.VariantNames[g.vari]
	}
	return s
}

// events appends the record at p's metric events (as convEvents).
func (l *genLayer) events(p int, out []mevent) ([]mevent, error) {
	c, err := l.record(p)
	if err != nil {
		return out, err
	}
	return convEvents(c, out), nil
}

// Summary is what ConversationQuery.Select reads instead of the record.
type Summary struct {
	Environment, Channel, VariantID, VariantName string
	InProgress                                   bool
}

// summaryOf is the Summary of a record.
func summaryOf(c *Conversation) Summary {
	return Summary{Environment: c.Environment, Channel: c.Channel, VariantID: c.VariantID, VariantName: c.VariantName,
		InProgress: c.InProgress}
}
