package store

// Migrations of data files written by earlier versions of the store,
// run when a file is opened (after its check). The formats, oldest
// first (handlers/testdata has a file of each, TestDataFileMigration):
//
//   - v1: every conversation record as JSON under its key, generated ones
//     included. Opens as it is: its records are ordinary stored records.
//   - v2: generated records as their generator (g/ records, layers.go);
//     stored records as JSON.
//   - v3 (now): stored records in the compact encoding (convbin.go) with
//     the string table (s/ records, strtab.go).
//
// A record's format shows in its first byte, so a file of any version
// is migrated record by record: every JSON conversation record is
// written again in the compact encoding, in the transaction that opens
// the file (the append-only file gets the new values; buntdb's shrink
// drops the old ones later).

import (
	"fmt"

	"github.com/tidwall/buntdb"
)

// migrateLocked writes the JSON conversation records of a database just
// opened in the compact encoding.
func (s *Store) migrateLocked(tx *buntdb.Tx, log *shadowLog) error {
	var old []kv
	err := scanPrefix(tx, pfxConv, func(k, v string) bool {
		if v == "" || v[0] != recBinary {
			old = append(old, kv{k, v})
		}
		return true
	})
	if err != nil {
		return err
	}
	for _, r := range old {
		c, err := decodeConvJSON(r.v)
		if err != nil {
			return fmt.Errorf("migrate %s: %w", r.k, err)
		}
		raw, err := encodeRecord(c, r.k, &s.tab, len(r.v)/2)
		if err != nil {
			s.tab.discardLocked()
			return fmt.Errorf("migrate %s: %w", r.k, err)
		}
		if err := s.tab.flushLocked(tx, log); err != nil {
			return err
		}
		if err := set(tx, r.k, raw); err != nil {
			return err
		}
	}
	return nil
}
