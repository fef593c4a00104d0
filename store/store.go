// Package store holds one mock instance's state: conversation records,
// handoff states and the other families' JSON documents.
//
// Underneath is buntdb, in memory or in its append-only file (mockd
// --data): ordered keys, transactions, snapshots for Reset, durability.
// Conversations sort by c/{region}/{account}/{project}/{started_at}/{id},
// so paging seeks in the key tree and Open rebuilds no buntdb index. On
// top, so that a world of a million records stays small and fast (figures
// in docs/performance.md#memory):
//
//   - its own binary record codec (convbin.go) and a string table of the
//     strings records repeat (strtab.go): records a fraction of their JSON;
//   - generated records kept as their generator plus a small index entry,
//     made again when read (generate.go, layers.go);
//   - a cache of decoded conversations under way (convcache.go), so a chat
//     turn does not decode its conversation again;
//   - indexes by id (convids.go), of concurrency (concindex.go) and of
//     alert metrics (metrics.go), so queries cost the same at any size.
//
// Decoded records are what their JSON would decode to (float64, []any,
// map[string]any), fresh copies callers may keep. Every exported method
// runs one buntdb transaction; callbacks inside one (UpdateConversation's
// and UpdateDoc's fn, ConversationQuery.Filter) must not call the Store
// (buntdb's lock is not re-entrant). No TTLs, no wall clock: expiry is the
// caller's. unsafe.String/Slice only view bytes nothing changes again.
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

// Store is a typed store over one buntdb database, safe for concurrent use.
type Store struct {
	db   *buntdb.DB
	path string
	file bool // path is a data file

	// writeMu is held around every write transaction and the in-memory
	// undo of a failed commit (updateGen). Lock order: writeMu, the
	// database's lock, then convs.mu, metrics.mu or projMu.
	writeMu sync.Mutex

	closeOnce sync.Once
	closeErr  error

	// convVersion is ConversationsVersion.
	convVersion atomic.Uint64
	// projMu guards the per-project versions (ProjectVersion).
	projMu      sync.Mutex
	projEpoch   uint64
	projVersion map[ProjectRef]uint64

	convs   convCache // decoded conversations (convcache.go)
	tab     strTab    // the compact records' string table (strtab.go)
	metrics metrics   // alert metrics' aggregates (metrics.go)

	// gen are the generated records' layers in order added, genSeq numbers
	// their keys (layers.go); both under the database's lock.
	gen    []*layerState
	genSeq int
	ids    convIDs // lookup index (convids.go), under the database's lock

	// writes counts write transactions (under writeMu); while it equals
	// restoredAt, restoring restored again rewrites nothing.
	writes     uint64
	restored   *Snapshot
	restoredAt uint64

	// scratch recycles the records EachConversation lends (*genScratch).
	scratch sync.Pool

	// recovery is what Open did to the data file (recover.go).
	recovery *Recovery
}

// ConversationsVersion returns a counter that every committed write
// changing any conversation increments, after the write is visible; it
// never decreases. A cache of derived data must read it BEFORE the data:
// the cache is valid while the value is the same (a racing write can only
// make it look stale, never a stale one look valid).
func (s *Store) ConversationsVersion() uint64 { return s.convVersion.Load() }

// convChanged records a committed change of projects (none: all).
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

// Version is a per-project change counter (ProjectVersion), compared with ==.
type Version struct{ epoch, n uint64 }

// ProjectVersion is ConversationsVersion for one project, with its rules.
func (s *Store) ProjectVersion(region, accountID, projectID string) Version {
	s.projMu.Lock()
	defer s.projMu.Unlock()
	return Version{epoch: s.projEpoch, n: s.projVersion[ProjectRef{region, accountID, projectID}]}
}

func projectOf(c *Conversation) ProjectRef { return ProjectRef{c.Region, c.AccountID, c.ProjectID} }

// Open opens a store: in memory for "" or ":memory:", else a buntdb
// append-only file, synced every second. A file is checked first
// (recover.go): a write cut by a crash is dropped and lost indexes are
// rebuilt (see Recovery); damaged records fail with a *DamageError and
// Repair moves them aside.
func Open(path string) (*Store, error) { return OpenProgress(path, nil) }

// OpenProgress is Open reporting the rebuild of generated records' index.
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
	// Order is in the keys, so only the generated records' index is
	// rebuilt here; a file's metric aggregates wait for the first query.
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

// Close closes the store; later calls return the first one's result, and
// other methods ErrClosed.
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

// esc makes a key segment free of '/' so that prefixes are unambiguous,
// and escapes '%' so that it is reversible.
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

// prefixEnd returns the smallest string above all starting with prefix,
// which must end in '/' (an ASCII byte below 0x7F).
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

// Len returns the number of conversations, handoff states and documents.
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
