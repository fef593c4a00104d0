// Package store holds one mock instance's state: conversation records,
// handoff states and the other families' JSON documents.
//
// Underneath is an embedded buntdb database, in memory or in its
// append-only file (mockd --data). It gives ordered keys, transactions,
// snapshots for Reset and a durable file. Conversations sort by their key,
// c/{region}/{account}/{project}/{started_at}/{id}, so keyset paging seeks
// in the key tree and no buntdb index needs rebuilding on Open. On top of
// buntdb the package keeps what makes a large world small and fast:
//
//   - a binary codec for conversation records (convbin.go, convbin_dec.go)
//     and a string table for the strings that repeat between records
//     (strtab.go): a chat create's record is 52 bytes instead of about 840
//     as JSON, so a million written records fit in memory;
//   - generated records kept as their generator and a 64-byte index entry
//     each, and made again when read (generate.go, layers.go), so a world
//     of a million records starts in seconds and holds under 0.5 GB;
//   - a cache of decoded conversations under way (convcache.go), so that a
//     chat turn does not decode its conversation again;
//   - indexes beside the data: lookup by id (convids.go), the concurrency
//     series (concindex.go) and the alert metrics' aggregates (metrics.go),
//     so a page, a week's series or an alert pass costs the same whatever
//     the number of records;
//   - unsafe.String and unsafe.Slice, only where bytes the store owns and
//     never changes again are read as a string or back, to avoid a copy per
//     record (an encoded value, a checksum's input).
//
// Decoding a record gives what decoding its JSON would: numbers as float64,
// []any and map[string]any in free-form values. Decoded values are fresh
// copies that callers may keep and change.
//
// Rules: every exported method runs one buntdb transaction, and a callback
// that runs inside one (UpdateConversation's and UpdateDoc's fn,
// ConversationQuery.Filter) must not call the Store again (buntdb's lock
// is not re-entrant; ListDocs's callback runs after its transaction).
// buntdb's TTLs are never used and the package never reads the wall clock:
// expiry is the caller's, on its virtual clock. buntdb starts a goroutine
// per database that exits at its next 1 s tick after Close; goleak users
// ignore LeakIgnoreFunction.
package store

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/tidwall/buntdb"
)

// Errors returned (wrapped) by the Store. Test with errors.Is.
var (
	// ErrNotFound: the record does not exist.
	ErrNotFound = errors.New("not found")
	// ErrExists: an insert found a record with the same identity.
	ErrExists = errors.New("already exists")
	// ErrBadCursor: ConversationQuery.After is not a position this store
	// returned for the same region, account and project.
	ErrBadCursor = errors.New("malformed cursor")
	// ErrInvalid: a required argument is missing or inconsistent.
	ErrInvalid = errors.New("invalid argument")
	// ErrClosed: the store has been closed.
	ErrClosed = errors.New("store closed")
)

// LeakIgnoreFunction names buntdb's background goroutine, which outlives
// Close by up to one second. Use it with goleak.IgnoreAnyFunction.
const LeakIgnoreFunction = "github.com/tidwall/buntdb.(*DB).backgroundManager"

// Key prefixes. Each family has its own first segment.
const (
	pfxConv       = "c/"  // c/{region}/{account}/{project}/{ts}/{id} -> compact Conversation (convbin.go)
	pfxConvID     = "ci/" // ci/{region}/{id} -> conversation primary key (data files; convids.go)
	pfxHandoff    = "h/"  // h/{region}/{account}/{project}/{id} -> HandoffState JSON
	pfxHandoffSID = "hs/" // hs/{region}/{account}/{project}/{shared_id} -> handoff primary key
	pfxDoc        = "d/"  // d/{kind}/{region}/{id} -> document JSON
)

// Store is a typed store over one buntdb database. It is safe for
// concurrent use. Several stores are fully independent.
type Store struct {
	db   *buntdb.DB
	path string
	file bool // path is a data file

	// writeMu is held around every write transaction and, when a commit
	// fails, around the undo of what the transaction changed in memory
	// (updateGen), so that no other write runs in between. Lock order:
	// writeMu, the database's lock, then convs.mu, metrics.mu or projMu.
	writeMu sync.Mutex

	closeOnce sync.Once
	closeErr  error

	// convVersion counts committed writes that changed conversations; see
	// ConversationsVersion.
	convVersion atomic.Uint64
	// projMu guards the per-project versions (ProjectVersion).
	projMu      sync.Mutex
	projEpoch   uint64
	projVersion map[ProjectRef]uint64

	// convs caches decoded conversations (convcache.go).
	convs convCache
	// tab is the string table of the compact records (strtab.go).
	tab strTab
	// metrics are the per-project aggregates of alert metrics (metrics.go).
	metrics metrics

	// gen are the generated records' layers in the order they were added
	// and genSeq numbers their keys (layers.go); both under the
	// database's lock.
	gen    []*layerState
	genSeq int
	// ids is the conversations' lookup index (convids.go), under the
	// database's lock.
	ids convIDs

	// writes counts the write transactions begun, under writeMu; the
	// data is the snapshot restored while no write has begun since that
	// Restore's (at restoredAt), and restoring it again rewrites no key.
	// Memory stores only: a data file records every restore.
	writes     uint64
	restored   *Snapshot
	restoredAt uint64

	// scratch recycles the records EachConversation lends (*genScratch).
	scratch sync.Pool

	// recovery is what Open did to the data file (recover.go).
	recovery *Recovery
}

// ConversationsVersion returns a counter incremented by every committed
// write that changes any conversation (InsertConversation,
// PutConversation, UpdateConversation, PutConversations, Restore and any
// delete). Failed or rolled back writes leave it unchanged. The increment
// happens after the write is visible, so a reader that caches data derived
// from conversations must read the version BEFORE reading the data: the
// cache is then valid as long as ConversationsVersion returns the same
// value (a write racing with the read can only make the cache look stale,
// never make a stale cache look valid). The counter never decreases, also
// not across Restore.
func (s *Store) ConversationsVersion() uint64 { return s.convVersion.Load() }

// convChanged records a committed change of conversations of the given
// projects (none: of every project, as after a Restore).
func (s *Store) convChanged(projects ...ProjectRef) {
	s.convVersion.Add(1)
	s.projMu.Lock()
	defer s.projMu.Unlock()
	if len(projects) == 0 {
		s.projEpoch++
		clear(s.projVersion)
		return
	}
	if s.projVersion == nil {
		s.projVersion = map[ProjectRef]uint64{}
	}
	for _, p := range projects {
		s.projVersion[p]++
	}
}

// ProjectRef names the conversations of one project in one region.
type ProjectRef struct{ Region, AccountID, ProjectID string }

// Version is a per-project change counter (see ProjectVersion); versions
// compare with ==.
type Version struct{ epoch, n uint64 }

// ProjectVersion is ConversationsVersion for one project: it changes when a
// conversation of that project (or every conversation, by Restore) changes,
// and not when other projects do. The same rule applies: read it BEFORE
// reading the data.
func (s *Store) ProjectVersion(region, accountID, projectID string) Version {
	s.projMu.Lock()
	defer s.projMu.Unlock()
	return Version{epoch: s.projEpoch, n: s.projVersion[ProjectRef{region, accountID, projectID}]}
}

func projectOf(c *Conversation) ProjectRef { return ProjectRef{c.Region, c.AccountID, c.ProjectID} }

// Open opens a store. An empty path or ":memory:" gives a purely in-memory
// store; any other path is a buntdb append-only file, replayed on open and
// synced every second. A file is checked first (verify.go, recover.go):
// the end of a write cut by a crash is dropped and indexes the file lost
// are written anew (Recovery says what was done); a damaged record is a
// *DamageError naming every one, the records Repair moves aside, and the
// store is not opened.
func Open(path string) (*Store, error) { return OpenProgress(path, nil) }

// OpenProgress is Open with a report of the generated records' index
// rebuilt from a data file: progress, when set, is called now and then
// with the records done of the total.
func OpenProgress(path string, progress func(done, total int)) (*Store, error) {
	p := path
	if p == "" {
		p = ":memory:"
	}
	file := p != ":memory:"
	var db *buntdb.DB
	var rec *Recovery
	var err error
	if file {
		db, rec, err = openChecked(p)
	} else {
		db, err = openDB(p)
	}
	if err != nil {
		return nil, err
	}
	// No secondary indexes are used (order is encoded in keys), so there is
	// nothing to re-create here but the generated records' index. The
	// metric aggregates of a file's data are rebuilt on the first query.
	s := &Store{db: db, path: p, file: file, recovery: rec}
	s.metrics.resetLocked(!file)
	if file {
		err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
			strs, err := loadStrTab(tx)
			if err != nil {
				return err
			}
			s.tab.reset(strs)
			if err := s.migrateLocked(tx, log); err != nil {
				return err
			}
			return s.loadLayersLocked(tx, progress)
		})
		if err != nil {
			_ = db.Close()
			return nil, fmt.Errorf("store: open %q: %w", p, err)
		}
	}
	return s, nil
}

// Close closes the store. It is idempotent: later calls return the result
// of the first one. Any other method called after Close returns ErrClosed.
func (s *Store) Close() error {
	s.closeOnce.Do(func() {
		if err := s.db.Close(); err != nil && !errors.Is(err, buntdb.ErrDatabaseClosed) {
			s.closeErr = fmt.Errorf("store: close %q: %w", s.path, err)
		}
		s.convs.clear()
	})
	return s.closeErr
}

// view runs fn in one read-only transaction.
func (s *Store) view(fn func(tx *buntdb.Tx) error) error {
	return mapErr(s.db.View(fn))
}

// update runs fn in one read/write transaction; an error rolls back.
func (s *Store) update(fn func(tx *buntdb.Tx) error) error {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.writes++
	return mapErr(s.db.Update(fn))
}

func mapErr(err error) error {
	if errors.Is(err, buntdb.ErrDatabaseClosed) {
		return ErrClosed
	}
	return err
}

// get returns the value of key, or ok=false.
func get(tx *buntdb.Tx, key string) (string, bool, error) {
	v, err := tx.Get(key)
	if err == buntdb.ErrNotFound {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return v, true, nil
}

// set stores key=val without any buntdb option (no TTL, ever).
func set(tx *buntdb.Tx, key, val string) error {
	_, _, err := tx.Set(key, val, nil)
	return err
}

// del deletes key if present.
func del(tx *buntdb.Tx, key string) error {
	_, err := tx.Delete(key)
	if err == buntdb.ErrNotFound {
		return nil
	}
	return err
}

// esc makes a key segment free of '/' so that prefixes are unambiguous.
// '%' is escaped too so that the encoding is reversible and injective.
func esc(s string) string {
	if !strings.ContainsAny(s, "/%") {
		return s
	}
	s = strings.ReplaceAll(s, "%", "%25")
	return strings.ReplaceAll(s, "/", "%2F")
}

// unesc reverses esc.
func unesc(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	return strings.ReplaceAll(strings.ReplaceAll(s, "%2F", "/"), "%25", "%")
}

// prefixEnd returns the smallest string greater than every string starting
// with prefix, for a prefix ending in '/'.
func prefixEnd(prefix string) string {
	return prefix[:len(prefix)-1] + string(rune(prefix[len(prefix)-1]+1))
}

// scanPrefix calls fn for each key/value starting with prefix, ascending.
func scanPrefix(tx *buntdb.Tx, prefix string, fn func(k, v string) bool) error {
	return tx.AscendRange("", prefix, prefixEnd(prefix), fn)
}

// countPrefix counts keys starting with prefix.
func countPrefix(tx *buntdb.Tx, prefix string) (int, error) {
	n := 0
	err := scanPrefix(tx, prefix, func(string, string) bool { n++; return true })
	return n, err
}

func need(what string, vals ...string) error {
	for _, v := range vals {
		if v == "" {
			return fmt.Errorf("store: %s: missing identifier: %w", what, ErrInvalid)
		}
	}
	return nil
}

// Len returns the number of records held: conversations (generated ones
// included), handoff states and documents (internal lookup keys are not
// counted).
func (s *Store) Len() (int, error) {
	var n int
	err := s.view(func(tx *buntdb.Tx) error {
		total, err := tx.Len()
		if err != nil {
			return err
		}
		n = total
		for _, pfx := range []string{pfxConvID, pfxHandoffSID, pfxGen, pfxConvDel, pfxGenCut, pfxStr} {
			k, err := countPrefix(tx, pfx)
			if err != nil {
				return err
			}
			n -= k
		}
		gh, err := s.genHandoffCountLocked(tx)
		if err != nil {
			return err
		}
		n += s.genCountLocked("") + gh
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("store: len: %w", err)
	}
	return n, nil
}
