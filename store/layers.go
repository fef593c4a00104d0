package store

// A store's generated records (generate.go, genlayer.go): its layers,
// their shadow bits, and the walk merging stored and generated records in
// key order. Layers and bits are used only under the database's lock.

import (
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"

	json "github.com/goccy/go-json"

	"github.com/tidwall/buntdb"
)

// Key prefixes of the generated records' bookkeeping.
const (
	pfxGen     = "g/"  // g/{seq} -> GenSpec JSON
	pfxConvDel = "cx/" // cx/{region}/{id} -> "" : a generated record deleted
)

// layerState is a store's view of a layer.
type layerState struct {
	*genLayer
	ref    ProjectRef
	shadow []uint64 // a bit per position: the record was written or deleted
	nShad  int
	// sharedShadow: shadow is a snapshot's; the first bit set copies it.
	sharedShadow bool
	// cut is the retention cut (an offset from From): records that start
	// before it and have ended are dropped (retention.go).
	cut int64
}

func newLayerState(l *genLayer) *layerState {
	sp := l.spec
	return &layerState{genLayer: l, ref: ProjectRef{sp.Region, sp.AccountID, sp.ProjectID},
		shadow: make([]uint64, (len(l.recs)+63)/64)}
}

func (ls *layerState) shadowed(p int) bool { return ls.shadow[p>>6]&(1<<(p&63)) != 0 }

// clone is a copy of ls with shadow bits of its own.
func (ls *layerState) clone() *layerState {
	c := *ls
	c.shadow = slices.Clone(ls.shadow)
	c.sharedShadow = false
	return &c
}

// sharing is a copy of a snapshot's ls sharing its shadow bits.
func (ls *layerState) sharing() *layerState {
	c := *ls
	c.sharedShadow = true
	return &c
}

// live is the number of records not shadowed.
func (ls *layerState) live() int { return len(ls.recs) - ls.nShad }

// shadowLog records what a transaction changed in memory, to undo.
type shadowLog struct {
	set []shadowMark
	// ids are the changes of a memory store's lookup index to undo.
	ids []idUndo
	fns []func() // other undo steps, last first (after ids)
}

type shadowMark struct {
	ls *layerState
	p  int
}

// shadowLocked sets a record's shadow bit (logged in log).
func (s *Store) shadowLocked(ls *layerState, p int, log *shadowLog) {
	if ls.shadowed(p) {
		return
	}
	if ls.sharedShadow {
		ls.shadow, ls.sharedShadow = slices.Clone(ls.shadow), false
	}
	ls.shadow[p>>6] |= 1 << (p & 63)
	ls.nShad++
	if log != nil {
		log.set = append(log.set, shadowMark{ls, p})
	}
}

// undo takes back a failed transaction's changes (ids: the lookup index).
func (l *shadowLog) undo(ids *convIDs) {
	for _, m := range l.set {
		m.ls.shadow[m.p>>6] &^= 1 << (m.p & 63)
		m.ls.nShad--
	}
	ids.undo(l.ids)
	for i := len(l.fns) - 1; i >= 0; i-- {
		l.fns[i]()
	}
	l.set, l.ids, l.fns = nil, nil, nil
}

// layersOf yields the layers of a project, in the order generated,
// without allocating.
func (s *Store) layersOf(ref ProjectRef) iter.Seq[*layerState] {
	return func(yield func(*layerState) bool) {
		for _, ls := range s.gen {
			if ls.ref == ref && !yield(ls) {
				return
			}
		}
	}
}

// regionEmptyLocked reports that region has no conversation; the database's
// lock must be held.
func (s *Store) regionEmptyLocked(tx *buntdb.Tx, region string) bool {
	for _, ls := range s.gen {
		if ls.ref.Region == region {
			return false
		}
	}
	n, err := s.convCountLocked(tx, region)
	return err == nil && n == 0
}

// findGenLocked finds a generated record, shadowed or not, or nil.
func (s *Store) findGenLocked(region, id string) (*layerState, int) {
	for _, ls := range s.gen {
		if ls.ref.Region != region {
			continue
		}
		if p := ls.find(id); p >= 0 {
			return ls, p
		}
	}
	return nil, -1
}

// liveGenLocked is findGenLocked for a record that is not shadowed.
func (s *Store) liveGenLocked(region, id string) (*layerState, int) {
	ls, p := s.findGenLocked(region, id)
	if ls == nil || ls.shadowed(p) {
		return nil, -1
	}
	return ls, p
}

// updateGen runs fn in a write transaction, undoing its log on failure.
func (s *Store) updateGen(fn func(tx *buntdb.Tx, log *shadowLog) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.writes++
	var log shadowLog
	err := s.db.Update(func(tx *buntdb.Tx) error {
		err := fn(tx, &log)
		if err != nil {
			log.undo(&s.ids)
		}
		return err
	})
	if err != nil {
		// A failed commit (a full disk) rolled the keys back: undo what
		// fn changed in memory too, before any other write (writeMu).
		// A reader may have seen it meanwhile: at worst a generated record
		// hidden (never shown twice) or an unreferenced string-table entry.
		// A memory store's commit cannot fail.
		s.db.Update(func(*buntdb.Tx) error { log.undo(&s.ids); return nil }) //nolint:errcheck // only takes the lock
	}
	return mapErr(err)
}

// Generate adds a generator's records to the store: it builds their index
// and persists the spec. Ids already taken in the region are drawn again.
// progress, when set, is called now and then with the records done.
func (s *Store) Generate(sp *GenSpec, progress func(done, total int)) error {
	if sp == nil {
		return fmt.Errorf("store: generate: nil spec: %w", ErrInvalid)
	}
	spec := *sp
	spec.Redraws = nil
	var report func(int)
	if progress != nil {
		report = func(done int) { progress(done, spec.Count) }
	}
	var l *genLayer
	pm := newProjMetrics()
	err := s.view(func(tx *buntdb.Tx) error {
		taken := func(id []byte) bool {
			if _, ok, _ := s.convPKLocked(tx, spec.Region, string(id)); ok {
				return true
			}
			ls, _ := s.findGenLocked(spec.Region, string(id))
			return ls != nil
		}
		if s.regionEmptyLocked(tx, spec.Region) {
			// Nothing holds an id of the region yet: skip the lookups.
			taken = func([]byte) bool { return false }
		}
		var err error
		l, err = buildLayer(&spec, "", taken, report, pm)
		return err
	})
	if err != nil {
		return fmt.Errorf("store: generate: %w", err)
	}
	pm.conc.bulk(func(yield func(concSpan) bool) {
		for p := range l.recs {
			if !yield(l.concSpan(p)) {
				return
			}
		}
	})
	raw, err := json.Marshal(&spec)
	if err != nil {
		return fmt.Errorf("store: generate: encode: %w", err)
	}
	ref := ProjectRef{spec.Region, spec.AccountID, spec.ProjectID}
	err = s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		seq, gen := s.genSeq, s.gen
		log.fns = append(log.fns, func() { s.genSeq, s.gen = seq, gen })
		s.genSeq++
		l.key = pfxGen + fmt.Sprintf("%08d", s.genSeq)
		if err := set(tx, l.key, string(raw)); err != nil {
			return err
		}
		s.gen = append(slices.Clip(s.gen), newLayerState(l))
		s.metrics.mu.Lock()
		if s.metrics.valid {
			s.metrics.projLocked(ref).merge(pm)
		}
		s.metrics.mu.Unlock()
		return nil
	})
	if err != nil {
		s.metricsInvalid()
		return fmt.Errorf("store: generate: %w", err)
	}
	if progress != nil {
		progress(spec.Count, spec.Count)
	}
	s.convChanged(ref)
	return nil
}

// loadLayersLocked rebuilds a database's layers on open: indexes, then
// shadow bits from stored records and deletions.
func (s *Store) loadLayersLocked(tx *buntdb.Tx, progress func(done, total int)) error {
	var specs []kv
	if err := scanPrefix(tx, pfxGen, func(k, v string) bool { specs = append(specs, kv{k, v}); return true }); err != nil {
		return err
	}
	s.gen = nil
	parsed := make([]*GenSpec, len(specs))
	total := 0
	for i, e := range specs {
		sp := new(GenSpec)
		if err := json.Unmarshal([]byte(e.v), sp); err != nil {
			return fmt.Errorf("decode generator %s: %w", e.k, err)
		}
		parsed[i] = sp
		total += sp.Count
	}
	done := 0
	for i, e := range specs {
		sp := parsed[i]
		var report func(int)
		if progress != nil {
			base := done
			report = func(n int) { progress(base+n, total) }
		}
		done += sp.Count
		l, err := buildLayer(sp, e.k, nil, report, nil)
		if err != nil {
			return fmt.Errorf("generator %s: %w", e.k, err)
		}
		s.gen = append(s.gen, newLayerState(l))
		if n, err := strconv.Atoi(strings.TrimPrefix(e.k, pfxGen)); err == nil && n > s.genSeq {
			s.genSeq = n
		}
	}
	if progress != nil && total > 0 {
		progress(total, total)
	}
	if len(s.gen) == 0 {
		return nil
	}
	for _, ls := range s.gen {
		v, ok, err := get(tx, pfxGenCut+strings.TrimPrefix(ls.key, pfxGen))
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		cut, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return fmt.Errorf("retention cut of %s: %w", ls.key, err)
		}
		ls.cut = cut
		for p := range ls.recs {
			if ls.dropped(p) {
				s.shadowLocked(ls, p, nil)
			}
		}
	}
	for _, pfx := range []string{pfxConvID, pfxConvDel} {
		err := scanPrefix(tx, pfx, func(k, _ string) bool {
			region, id, ok := strings.Cut(strings.TrimPrefix(k, pfx), "/")
			if ok {
				if ls, p := s.findGenLocked(unesc(region), id); ls != nil {
					s.shadowLocked(ls, p, nil)
				}
			}
			return true
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// convItem is one record met by walkLocked: stored (key, raw) or
// generated (ls, p).
type convItem struct {
	key, raw string
	tab      []string // the string table
	ls       *layerState
	p        int
}

// pk is the item's primary key.
func (it *convItem) pk(prefix string) string {
	if it.ls == nil {
		return it.key
	}
	return prefix + it.ls.ts(it.p) + "/" + it.ls.id(it.p)
}

// decode reads the item's record.
func (it *convItem) decode() (*Conversation, error) {
	if it.ls == nil {
		return decodeConv(it.key, it.raw, it.tab)
	}
	return it.ls.record(it.p)
}

// layerCursor walks one layer's positions [i, j) in a walk.
type layerCursor struct {
	ls   *layerState
	i, j int
	desc bool
	// ts and id of the head, computed on demand.
	tsOK, idOK bool
	ts, id     string
}

func (c *layerCursor) skip() {
	if c.desc {
		for c.j > c.i && c.ls.shadowed(c.j-1) {
			c.j--
		}
	} else {
		for c.i < c.j && c.ls.shadowed(c.i) {
			c.i++
		}
	}
	c.tsOK, c.idOK = false, false
}

func (c *layerCursor) done() bool { return c.i >= c.j }

func (c *layerCursor) head() int {
	if c.desc {
		return c.j - 1
	}
	return c.i
}

func (c *layerCursor) advance() {
	if c.desc {
		c.j--
	} else {
		c.i++
	}
	c.skip()
}

func (c *layerCursor) headTS() string {
	if !c.tsOK {
		c.ts, c.tsOK = c.ls.ts(c.head()), true
	}
	return c.ts
}

func (c *layerCursor) headID() string {
	if !c.idOK {
		c.id, c.idOK = c.ls.id(c.head()), true
	}
	return c.id
}

// cmpKey compares the head's key with a key suffix {ts}/{id}.
func (c *layerCursor) cmpKey(suffix string) int {
	ts, id := suffix, ""
	if len(suffix) > tsLen {
		ts, id = suffix[:tsLen], suffix[tsLen+1:]
	}
	if h := c.headTS(); h != ts {
		return strings.Compare(h, ts)
	}
	return strings.Compare(c.headID(), id)
}

// cmpCursor compares the heads of two cursors.
func cmpCursor(a, b *layerCursor) int {
	if x, y := a.headTS(), b.headTS(); x != y {
		return strings.Compare(x, y)
	}
	return strings.Compare(a.headID(), b.headID())
}

// walkLocked calls fn with each record of a project whose key is in
// [lo, hi) and past `after`, in key order (reversed when desc), until fn
// returns false. Keys carry the project's prefix, convPrefix of ref.
func (s *Store) walkLocked(tx *buntdb.Tx, ref ProjectRef, prefix, lo, hi, after string, desc bool, fn func(*convItem) bool) error {
	suffix := func(k string) string {
		if len(k) < len(prefix) || k[:len(prefix)] != prefix {
			return "\xff" // past every key of the project
		}
		return k[len(prefix):]
	}
	// One cursor per layer with records in range, kept as values.
	var cursBuf [2]layerCursor
	curs := cursBuf[:0]
	for ls := range s.layersOf(ref) {
		c := layerCursor{ls: ls, desc: desc, i: ls.searchKey(suffix(lo), true), j: ls.searchKey(suffix(hi), true)}
		if after != "" {
			if desc {
				c.j = min(c.j, ls.searchKey(suffix(after), true))
			} else {
				c.i = max(c.i, ls.searchKey(suffix(after), false))
			}
		}
		c.skip()
		if !c.done() {
			curs = append(curs, c)
		}
	}
	// next returns the cursor whose head comes first (nil: none).
	next := func() *layerCursor {
		var best *layerCursor
		for i := range curs {
			c := &curs[i]
			if c.done() {
				continue
			}
			if best == nil {
				best = c
				continue
			}
			d := cmpCursor(c, best)
			if (!desc && d < 0) || (desc && d > 0) {
				best = c
			}
		}
		return best
	}
	stopped := false
	it := &convItem{}
	tab := s.tab.load()
	emitGen := func(c *layerCursor) bool {
		*it = convItem{ls: c.ls, p: c.head()}
		c.advance()
		if !fn(it) {
			stopped = true
			return false
		}
		return true
	}
	// emitUpTo emits the generated records before the stored key k (after
	// it when desc).
	emitUpTo := func(k string) bool {
		sfx := suffix(k)
		for {
			c := next()
			if c == nil {
				return true
			}
			d := c.cmpKey(sfx)
			if (!desc && d >= 0) || (desc && d <= 0) {
				return true
			}
			if !emitGen(c) {
				return false
			}
		}
	}
	stored := func(k, v string) bool {
		if len(curs) > 0 && !emitUpTo(k) {
			return false
		}
		*it = convItem{key: k, raw: v, tab: tab}
		if !fn(it) {
			stopped = true
			return false
		}
		return true
	}
	var err error
	if !desc {
		start := lo
		if after != "" && after+"\x00" > start {
			start = after + "\x00" // smallest key > after
		}
		if start < hi {
			err = tx.AscendRange("", start, hi, stored)
		}
	} else {
		pivot := hi
		if after != "" && after < pivot {
			pivot = after
		}
		err = tx.DescendLessOrEqual("", pivot, func(k, v string) bool {
			if k >= hi || k == after {
				return true
			}
			if k < lo {
				return false
			}
			return stored(k, v)
		})
	}
	if err != nil || stopped {
		return err
	}
	for c := next(); c != nil; c = next() {
		if !emitGen(c) {
			break
		}
	}
	return nil
}

// genCountLocked counts live generated records of a region ("": all).
func (s *Store) genCountLocked(region string) int {
	n := 0
	for _, ls := range s.gen {
		if region == "" || ls.ref.Region == region {
			n += ls.live()
		}
	}
	return n
}

// genHandoffCountLocked counts generated handoff states not replaced.
func (s *Store) genHandoffCountLocked(tx *buntdb.Tx) (int, error) {
	n := 0
	for _, ls := range s.gen {
		n += ls.handoffs
		if ls.cut > 0 {
			for p := range ls.recs {
				if ls.recs[p].flags&grHandoff != 0 && ls.dropped(p) {
					n--
				}
			}
		}
	}
	if n == 0 {
		return 0, nil
	}
	err := scanPrefix(tx, pfxHandoff, func(k, _ string) bool {
		parts := strings.SplitN(strings.TrimPrefix(k, pfxHandoff), "/", 4)
		if len(parts) != 4 {
			return true
		}
		ref := ProjectRef{unesc(parts[0]), unesc(parts[1]), unesc(parts[2])}
		for ls := range s.layersOf(ref) {
			if p := ls.find(parts[3]); p >= 0 && ls.recs[p].flags&grHandoff != 0 && !ls.dropped(p) {
				n--
				break
			}
		}
		return true
	})
	return n, err
}

// genHandoffLocked returns a generated conversation's handoff state, or nil.
func (s *Store) genHandoffLocked(ref ProjectRef, id string) (*HandoffState, error) {
	for ls := range s.layersOf(ref) {
		if p := ls.find(id); p >= 0 {
			if ls.dropped(p) {
				return nil, nil
			}
			h, ok, err := ls.handoffState(p)
			if err != nil || !ok {
				return nil, err
			}
			return h, nil
		}
	}
	return nil, nil
}
