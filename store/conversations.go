package store

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/buntdb"
)

// tsLen is the width of an encoded timestamp: 20 decimal digits of the
// biased Unix seconds and 9 digits of nanoseconds.
const tsLen = 29

// tsenc encodes t so that byte order is time order, for any time.Time.
func tsenc(t time.Time) string {
	var b [tsLen]byte
	tsput(&b, t)
	return string(b[:])
}

// tsput writes tsenc(t) into b, without allocating.
func tsput(b *[tsLen]byte, t time.Time) {
	num := tsNumOf(t)
	u := num.sec
	for i := 19; i >= 0; i-- {
		b[i] = byte('0' + u%10)
		u /= 10
	}
	n := num.nsec
	for i := tsLen - 1; i >= 20; i-- {
		b[i] = byte('0' + n%10)
		n /= 10
	}
}

// tsNum is what tsenc writes, as numbers ordered alike.
type tsNum struct {
	sec  uint64
	nsec uint32
}

func tsNumOf(t time.Time) tsNum { return tsNum{uint64(t.Unix()) ^ (1 << 63), uint32(t.Nanosecond())} }

// parseTSNum reads an encoded timestamp (tsenc) back as its numbers.
func parseTSNum(ts string) (tsNum, bool) {
	if len(ts) != tsLen {
		return tsNum{}, false
	}
	sec, err := strconv.ParseUint(ts[:20], 10, 64)
	if err != nil {
		return tsNum{}, false
	}
	nsec, err := strconv.ParseUint(ts[20:], 10, 32)
	if err != nil {
		return tsNum{}, false
	}
	return tsNum{sec, uint32(nsec)}, true
}

func (a tsNum) compare(b tsNum) int {
	return cmp.Or(cmp.Compare(a.sec, b.sec), cmp.Compare(a.nsec, b.nsec))
}

func convPrefix(region, account, project string) string {
	return pfxConv + esc(region) + "/" + esc(account) + "/" + esc(project) + "/"
}

func convKey(c *Conversation) string {
	return convPrefix(c.Region, c.AccountID, c.ProjectID) + tsenc(c.StartedAt) + "/" + c.ID
}

// projectOfKey reads the project of a primary key (convKey).
func projectOfKey(pk string) (ProjectRef, bool) {
	parts := strings.SplitN(strings.TrimPrefix(pk, pfxConv), "/", 4)
	if pk == "" || !strings.HasPrefix(pk, pfxConv) || len(parts) < 4 {
		return ProjectRef{}, false
	}
	return ProjectRef{Region: unesc(parts[0]), AccountID: unesc(parts[1]), ProjectID: unesc(parts[2])}, true
}

func convIDKey(region, id string) string {
	return pfxConvID + esc(region) + "/" + id
}

func checkConv(op string, c *Conversation) error {
	if c == nil {
		return fmt.Errorf("store: %s: nil conversation: %w", op, ErrInvalid)
	}
	return need(op+" "+c.Region+"/"+c.ID, c.Region, c.ID, c.AccountID, c.ProjectID)
}

// decodeConv decodes the record stored under pk: compact (convbin.go) with
// the string table tab, or JSON (a data file not yet migrated).
func decodeConv(pk, v string, tab []string) (*Conversation, error) {
	c, _, err := decodeConvAt(pk, v, tab)
	return c, err
}

// decodeConvAt is decodeConv also locating a compact record's turns.
func decodeConvAt(pk, v string, tab []string) (*Conversation, recTurns, error) {
	if v != "" && v[0] == recBinary {
		return decodeRecordAt(pk, v, tab)
	}
	c, err := decodeConvJSON(v)
	return c, recTurns{}, err
}

// decodeConvShared is decodeConvAt for turns that are never changed (an
// append's): they share memory where they can (recDecoder.shared).
func decodeConvShared(pk, v string, tab []string) (*Conversation, recTurns, error) {
	if v != "" && v[0] == recBinary {
		c, turns, _, err := decodeRecordWith(pk, v, tab, turnsShared)
		return c, turns, err
	}
	return decodeConvAt(pk, v, tab)
}

// writeConv stores c under its primary and lookup keys, removing oldPK if
// it differs. cache (an update, likely to be followed by more) caches the
// decoded form; new records are not, or the cache would copy every one.
func (s *Store) writeConv(tx *buntdb.Tx, log *shadowLog, c *Conversation, oldPK string, sizeHint int, cache bool) error {
	return s.writeConvAt(tx, log, c, convKey(c), oldPK, sizeHint, cache)
}

// writeConvAt is writeConv with pk = convKey(c) known.
func (s *Store) writeConvAt(tx *buntdb.Tx, log *shadowLog, c *Conversation, pk, oldPK string, sizeHint int, cache bool) error {
	raw, turns, err := encodeRecordAt(c, pk, &s.tab, sizeHint)
	if err := s.storeConvLocked(tx, log, c, pk, oldPK, raw, err); err != nil {
		return err
	}
	if cache {
		s.convs.remember(pk, raw, turns, c)
	} else {
		s.convs.drop(pk)
	}
	return nil
}

// storeConvLocked stores raw, c's encoding (encErr: failed), as writeConv
// does, with the string table's new entries.
func (s *Store) storeConvLocked(tx *buntdb.Tx, log *shadowLog, c *Conversation, pk, oldPK, raw string, encErr error) error {
	if encErr != nil {
		s.tab.discardLocked()
		return fmt.Errorf("encode conversation: %w", encErr)
	}
	if err := s.tab.flushLocked(tx, log); err != nil {
		return err
	}
	if oldPK != pk {
		if oldPK != "" {
			if err := del(tx, oldPK); err != nil {
				return err
			}
			s.convs.drop(oldPK)
		}
		if _, _, err := s.indexConvLocked(tx, log, c.Region, c.ID, pk); err != nil {
			return err
		}
	}
	return set(tx, pk, raw)
}

// InsertConversation stores a new conversation; ErrExists if its id is taken.
func (s *Store) InsertConversation(c *Conversation) error {
	if err := checkConv("insert conversation", c); err != nil {
		return err
	}
	wrote := false
	pk := convKey(c)
	err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		if ls, _ := s.liveGenLocked(c.Region, c.ID); ls != nil {
			return ErrExists
		}
		// Indexing is the existence check; ErrExists rolls it back.
		_, replaced, err := s.indexConvLocked(tx, log, c.Region, c.ID, pk)
		if err != nil {
			return err
		}
		if replaced {
			return ErrExists
		}
		if err := s.writeConvAt(tx, log, c, pk, pk, 0, false); err != nil {
			return err
		}
		s.convReplaced(nil, c)
		wrote = true
		return nil
	})
	if err != nil {
		if wrote {
			s.metricsInvalid() // the commit failed after the aggregates moved
		}
		return fmt.Errorf("store: insert conversation %s/%s: %w", c.Region, c.ID, err)
	}
	s.convChanged(projectOf(c))
	return nil
}

// PutConversation inserts or replaces a conversation (by region and id).
func (s *Store) PutConversation(c *Conversation) error {
	if err := checkConv("put conversation", c); err != nil {
		return err
	}
	oldProj := projectOf(c)
	wrote := false
	err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		oldPK, _, err := s.convPKLocked(tx, c.Region, c.ID)
		if err != nil {
			return err
		}
		if p, ok := projectOfKey(oldPK); ok {
			oldProj = p
		}
		old, err := s.replacedLocked(tx, c.Region, c.ID, oldPK, &oldProj, log)
		if err != nil {
			return err
		}
		if err := s.writeConv(tx, log, c, oldPK, 0, false); err != nil {
			return err
		}
		s.convReplaced(old, c)
		wrote = true
		return nil
	})
	if err != nil {
		if wrote {
			s.metricsInvalid() // the commit failed after the aggregates moved
		}
		return fmt.Errorf("store: put conversation %s/%s: %w", c.Region, c.ID, err)
	}
	s.convChanged(projectOf(c), oldProj)
	return nil
}

// GetConversation returns a copy of a conversation. ErrNotFound.
func (s *Store) GetConversation(region, id string) (*Conversation, error) {
	var pk, raw string
	var c *Conversation
	var tab []string
	err := s.view(func(tx *buntdb.Tx) error {
		tab = s.tab.load()
		var ok bool
		var err error
		if pk, ok, err = s.convPKLocked(tx, region, id); err != nil {
			return err
		}
		if !ok {
			ls, p := s.liveGenLocked(region, id)
			if ls == nil {
				return ErrNotFound
			}
			c, err = ls.record(p)
			return err
		}
		raw, ok, err = get(tx, pk)
		if err != nil {
			return err
		}
		if !ok {
			return fmt.Errorf("dangling lookup key %q: %w", pk, ErrNotFound)
		}
		// Copy a cached decoding while the read lock keeps writers (which
		// may mutate cache-owned values, see UpdateConversation) out.
		c = s.convs.copyOf(pk, raw)
		return nil
	})
	if err == nil && c == nil {
		c, err = decodeConv(pk, raw, tab) // a miss does not fill the cache
	}
	if err != nil {
		return nil, fmt.Errorf("store: get conversation %s/%s: %w", region, id, err)
	}
	return c, nil
}

// UpdateConversation reads a conversation, calls fn on a copy and stores
// the result in one transaction; fn's error is returned as is and nothing
// changes. fn may change any field but Region and ID (ErrInvalid); it runs
// inside the transaction and must not call the Store. Returns the result.
func (s *Store) UpdateConversation(region, id string, fn func(c *Conversation) error) (*Conversation, error) {
	return s.updateConv(region, id, updateAll, func(c *Conversation, _ PriorTurns) error { return fn(c) })
}

// AppendTurns is UpdateConversation for an fn that may append turns and
// change any other field but leaves the given turns (and what they hold)
// unchanged, so an append costs what changes, not the conversation's
// length. The result's turns are shared with the cache and must not
// change; its other fields are the caller's.
func (s *Store) AppendTurns(region, id string, fn func(c *Conversation) error) (*Conversation, error) {
	return s.updateConv(region, id, appendShared, func(c *Conversation, _ PriorTurns) error { return fn(c) })
}

// PriorTurns describes to AppendNewTurns' fn the turns it is not given.
type PriorTurns struct {
	N int // how many
	// Greeting: the first is the agent's greeting, not a user's turn
	// (isGreeting; convEventsAt also asks for no latency).
	Greeting bool
}

// UserTurns is the number of the user's turns among them.
func (p PriorTurns) UserTurns() int {
	if p.Greeting {
		return p.N - 1
	}
	return p.N
}

// priorOf describes turns.
func priorOf(turns []Turn) PriorTurns {
	p := PriorTurns{N: len(turns)}
	if len(turns) > 0 {
		t := &turns[0]
		p.Greeting = isGreeting(t.UserInput, t.IsSilence, t.IsOOD)
	}
	return p
}

// isGreeting says whether a first turn with these fields is the agent's
// greeting rather than a user's turn.
func isGreeting(userInput string, silence, ood bool) bool {
	return userInput == "" && !silence && !ood
}

// after is p once added are appended to the turns.
func (p PriorTurns) after(added []Turn) PriorTurns {
	if p.N == 0 {
		return priorOf(added)
	}
	return PriorTurns{N: p.N + len(added), Greeting: p.Greeting}
}

// AppendNewTurns is AppendTurns for a caller that needs neither the stored
// turns nor the result's maps and slices (they are nil): fn gets c without
// turns (prior says how many), appends new ones and may change any field
// but StartedAt, AccountID and ProjectID (ErrInvalid). What fn leaves in c
// becomes the store's: fn must not keep it.
func (s *Store) AppendNewTurns(region, id string, fn func(c *Conversation, prior PriorTurns) error) (*Conversation, error) {
	return s.updateConv(region, id, appendNew, fn)
}

// updateMode is how updateConv treats the conversation fn changes.
type updateMode int

const (
	updateAll    updateMode = iota // UpdateConversation
	appendShared                   // AppendTurns
	appendNew                      // AppendNewTurns
)

// updateConv is UpdateConversation, AppendTurns or AppendNewTurns (mode).
func (s *Store) updateConv(region, id string, mode updateMode, fn func(c *Conversation, prior PriorTurns) error) (*Conversation, error) {
	appending := mode != updateAll
	var out *Conversation
	var oldProj ProjectRef
	var fnErr error
	var wrote bool
	err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		pk, raw, ok, err := s.storedConvLocked(tx, region, id)
		if err != nil {
			return err
		}
		var c *Conversation
		var prev recTurns // where raw encodes the turns (n 0: unknown)
		// AppendNewTurns: the turns taken off c; none when c came
		// without them (undecoded).
		var old []Turn
		var prior PriorTurns
		undecoded := false
		if !ok {
			// A generated record: fn's result is stored in its place.
			ls, p := s.liveGenLocked(region, id)
			if ls == nil {
				return ErrNotFound
			}
			if c, err = ls.record(p); err != nil {
				return err
			}
			s.shadowLocked(ls, p, log)
		} else {
			// fn works on the decoding taken out of the cache (nothing
			// sees fn's changes unless stored), or on a fresh one.
			if appending {
				if e, hit := s.convs.takeEntry(pk, raw, mode == appendNew); hit {
					c, prev = e.c, e.turns
					if e.headOnly {
						prior, undecoded = e.prior, true
					}
				}
			} else {
				c = s.convs.take(pk, raw)
			}
			switch {
			case c != nil:
			case mode == appendNew && raw != "" && raw[0] == recBinary:
				// Not cached: the head decoded, the turns checked only.
				if c, prev, prior, err = decodeRecordWith(pk, raw, s.tab.load(), turnsSkipped); err != nil {
					return err
				}
				undecoded = true
			default:
				// Not cached: decoded, with where raw holds the turns so
				// an append copies their encoding.
				decode := decodeConvAt
				if appending {
					decode = decodeConvShared
				}
				if c, prev, err = decode(pk, raw, s.tab.load()); err != nil {
					return err
				}
			}
		}
		if mode == appendNew && !undecoded {
			prior = priorOf(c.Turns)
			old, c.Turns = c.Turns, nil
		}
		oldProj = projectOf(c)
		oldStart := c.StartedAt
		kept := 0 // the turns of c fn leaves as they are
		if mode == appendShared {
			kept = len(c.Turns)
		}
		base := 0 // the turns not in c (AppendNewTurns)
		if mode == appendNew {
			base = prior.N
		}
		oldEv := convEventsFrom(c, kept, nil)
		oldSp := spanOfConv(c)
		if err := fn(c, prior); err != nil {
			fnErr = err
			return err
		}
		if c.Region != region || c.ID != id {
			return fmt.Errorf("region and id cannot change (got %s/%s): %w", c.Region, c.ID, ErrInvalid)
		}
		if err := checkConv("update conversation", c); err != nil {
			return err
		}
		if appending && len(c.Turns) < kept {
			return fmt.Errorf("update conversation %s/%s: turns removed by an append: %w", region, id, ErrInvalid)
		}
		sameStart := c.StartedAt == oldStart && projectOf(c) == oldProj
		if mode == appendNew && !sameStart {
			return fmt.Errorf("append to conversation %s/%s: its start, account and project cannot change: %w", region, id, ErrInvalid)
		}
		newPK := pk // the key of a stored record whose key fields stay
		if pk == "" || !sameStart {
			newPK = convKey(c)
		}
		var newRaw string
		var turns recTurns
		if mode == appendNew {
			newRaw, turns, err = s.encodeNewTurnsLocked(c, newPK, raw, prev, old, undecoded, prior)
		} else if appending && sameStart && prev.n == kept && prev.n > 0 {
			newRaw, turns, err = encodeRecordAppend(c, newPK, &s.tab, raw, prev)
		} else {
			newRaw, turns, err = encodeRecordAt(c, newPK, &s.tab, len(raw)+64)
		}
		if err := s.storeConvLocked(tx, log, c, newPK, pk, newRaw, err); err != nil {
			return err
		}
		switch mode {
		case appendNew:
			out = s.convs.rememberHead(newPK, newRaw, turns, c, prior.after(c.Turns))
		case appendShared:
			out = s.convs.rememberAppended(newPK, newRaw, turns, c, kept)
		default:
			s.convs.remember(newPK, newRaw, turns, c)
			out = c
		}
		if kept > 0 && !sameStart {
			// The kept turns' events moved with the start or project, so
			// both sides take them (after the start event).
			keptEv := convEventsFrom(&Conversation{StartedAt: oldStart, Turns: c.Turns[:kept]}, 0, nil)
			oldEv = append(oldEv, keptEv[1:]...)
			slices.SortFunc(oldEv, mevent.cmp)
			kept = 0
		}
		newEv := convEventsAt(c, base, kept, nil)
		newSp := spanOfConv(c)
		s.metrics.mu.Lock()
		if !s.metrics.replaceLocked(oldProj, oldEv, &oldSp, projectOf(c), newEv, &newSp) {
			s.metrics.valid = false
		}
		s.metrics.mu.Unlock()
		wrote = true
		return nil
	})
	if fnErr != nil {
		return nil, fnErr
	}
	if err != nil {
		if wrote {
			s.metricsInvalid() // the commit failed after the aggregates moved
		}
		return nil, fmt.Errorf("store: update conversation %s/%s: %w", region, id, err)
	}
	s.convChanged(projectOf(out), oldProj)
	return out, nil
}

// encodeNewTurnsLocked encodes AppendNewTurns' c as the stored turns
// followed by c's: copying raw's encoding of them where prev locates
// them, else encoding the whole record (with old, or decoded from raw).
func (s *Store) encodeNewTurnsLocked(c *Conversation, pk, raw string, prev recTurns, old []Turn, undecoded bool, prior PriorTurns) (string, recTurns, error) {
	if prev.n == prior.N && prev.n > 0 {
		if v, turns, ok := encodeRecordAdded(c, c.Turns, pk, &s.tab, raw, prev); ok {
			return v, turns, nil
		}
	}
	if undecoded {
		d, _, err := decodeConvAt(pk, raw, s.tab.load())
		if err != nil {
			return "", recTurns{}, err
		}
		old = d.Turns
	}
	whole := *c
	if len(c.Turns) == 0 {
		whole.Turns = old // none added: the stored turns as they are (null or empty)
	} else {
		whole.Turns = append(old[:len(old):len(old)], c.Turns...)
	}
	return encodeRecordAt(&whole, pk, &s.tab, len(raw)+64)
}

// storedConvLocked returns the key and value of (region, id)'s stored record.
func (s *Store) storedConvLocked(tx *buntdb.Tx, region, id string) (pk, raw string, ok bool, err error) {
	if pk, ok, err = s.convPKLocked(tx, region, id); err != nil || !ok {
		return "", "", false, err
	}
	if raw, ok, err = get(tx, pk); err != nil {
		return "", "", false, err
	}
	if !ok {
		return "", "", false, fmt.Errorf("dangling lookup key %q: %w", pk, ErrNotFound)
	}
	return pk, raw, true, nil
}

// CountConversations returns the number of conversations in a region.
func (s *Store) CountConversations(region string) (int, error) {
	var n int
	err := s.view(func(tx *buntdb.Tx) error {
		stored, err := s.convCountLocked(tx, region)
		n = stored + s.genCountLocked(region)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: count conversations %s: %w", region, err)
	}
	return n, nil
}

// ConversationQuery selects conversations of one project for listing.
type ConversationQuery struct {
	// Region, AccountID and ProjectID are required.
	Region, AccountID, ProjectID string
	// From and To bound started_at to [From, To); a zero value is unbounded.
	From, To time.Time
	// After is the next of a previous call with the same Region, AccountID,
	// ProjectID and Desc ("": the start); else ErrBadCursor.
	After string
	// Limit is the maximum number of records returned; 0 = no limit.
	Limit int
	// Desc lists newest first.
	Desc bool
	// Filter, when set, selects records while scanning (rejected ones do
	// not count toward Limit); it must not call the Store.
	Filter func(*Conversation) bool
	// Select, when set, selects records by their Summary before they are
	// read (a rejected generated record is never made), as Filter does;
	// it must not keep the summary (it is reused).
	Select func(*Summary) bool
}

// replacedLocked returns the record a write of (region, id) replaces: the
// one under oldPK, else a generated one (shadowed now; *oldProj set), or nil.
func (s *Store) replacedLocked(tx *buntdb.Tx, region, id, oldPK string, oldProj *ProjectRef, log *shadowLog) (*Conversation, error) {
	if oldPK != "" {
		raw, ok, err := get(tx, oldPK)
		if err != nil || !ok {
			return nil, err
		}
		return s.oldConv(oldPK, raw)
	}
	ls, p := s.findGenLocked(region, id)
	if ls == nil {
		return nil, nil
	}
	wasLive := !ls.shadowed(p)
	s.shadowLocked(ls, p, log)
	if !wasLive {
		return nil, nil
	}
	*oldProj = ls.ref
	return ls.record(p)
}

// encodeCursor makes a primary key opaque and URL-safe.
func encodeCursor(pk string) string {
	return base64.RawURLEncoding.EncodeToString([]byte(pk))
}

// encodeGenCursor is encodeCursor(prefix+tsenc(start)+"/"+id), on the stack.
func encodeGenCursor(prefix string, start time.Time, id string) string {
	var raw [160]byte
	var ts [tsLen]byte
	tsput(&ts, start)
	pk := append(append(append(append(raw[:0], prefix...), ts[:]...), '/'), id...)
	var enc [216]byte
	return string(base64.RawURLEncoding.AppendEncode(enc[:0], pk))
}

// decodeCursor checks a cursor against the key prefix and returns its key.
func decodeCursor(cur, prefix string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		return "", fmt.Errorf("store: list conversations: %w", ErrBadCursor)
	}
	pk := string(b)
	rest, ok := strings.CutPrefix(pk, prefix)
	if !ok || len(rest) < tsLen+2 || rest[tsLen] != '/' {
		return "", fmt.Errorf("store: list conversations: %w", ErrBadCursor)
	}
	for i := 0; i < tsLen; i++ {
		if rest[i] < '0' || rest[i] > '9' {
			return "", fmt.Errorf("store: list conversations: %w", ErrBadCursor)
		}
	}
	return pk, nil
}
