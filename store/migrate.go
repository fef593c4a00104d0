package store

// Migration of data files of earlier formats, run when a file is opened:
// conversation records stored as JSON (v1 and v2 files; v1's generated
// records are ordinary ones) are written again in the compact encoding,
// told apart by their first byte. Test data: handlers/testdata
// (TestDataFileMigration).

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
