package store

import (
	"fmt"

	json "github.com/goccy/go-json"

	"github.com/tidwall/buntdb"
)

// Generic documents: any JSON-encodable value of a resource family (kind),
// keyed by region and id, listed in ascending id order.

func docPrefix(kind, region string) string {
	return pfxDoc + esc(kind) + "/" + esc(region) + "/"
}

func docKey(kind, region, id string) string {
	return docPrefix(kind, region) + id
}

func encodeDoc(v any) (string, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return "", fmt.Errorf("encode: %w", err)
	}
	return string(b), nil
}

// PutDoc inserts or replaces a document.
func (s *Store) PutDoc(kind, region, id string, v any) error {
	if err := need("put doc", kind, region, id); err != nil {
		return err
	}
	val, err := encodeDoc(v)
	if err == nil {
		err = s.update(func(tx *buntdb.Tx) error {
			return set(tx, docKey(kind, region, id), val)
		})
	}
	if err != nil {
		return fmt.Errorf("store: put %s %s/%s: %w", kind, region, id, err)
	}
	return nil
}

// InsertDoc stores a new document; ErrExists if the id is taken.
func (s *Store) InsertDoc(kind, region, id string, v any) error {
	if err := need("insert doc", kind, region, id); err != nil {
		return err
	}
	val, err := encodeDoc(v)
	if err == nil {
		err = s.update(func(tx *buntdb.Tx) error {
			k := docKey(kind, region, id)
			if _, ok, err := get(tx, k); err != nil {
				return err
			} else if ok {
				return ErrExists
			}
			return set(tx, k, val)
		})
	}
	if err != nil {
		return fmt.Errorf("store: insert %s %s/%s: %w", kind, region, id, err)
	}
	return nil
}

// GetDoc decodes a document into v (a pointer). ErrNotFound.
func (s *Store) GetDoc(kind, region, id string, v any) error {
	var raw string
	err := s.view(func(tx *buntdb.Tx) error {
		val, ok, err := get(tx, docKey(kind, region, id))
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		raw = val
		return nil
	})
	if err == nil {
		if err = json.Unmarshal([]byte(raw), v); err != nil {
			err = fmt.Errorf("decode: %w", err)
		}
	}
	if err != nil {
		return fmt.Errorf("store: get %s %s/%s: %w", kind, region, id, err)
	}
	return nil
}

// UpdateDoc decodes the document into v (a pointer), calls fn to change it
// and stores v in one transaction; fn's error is returned as is, storing
// nothing. fn must not call the Store. ErrNotFound.
func (s *Store) UpdateDoc(kind, region, id string, v any, fn func() error) error {
	var fnErr error
	err := s.update(func(tx *buntdb.Tx) error {
		k := docKey(kind, region, id)
		raw, ok, err := get(tx, k)
		if err != nil {
			return err
		}
		if !ok {
			return ErrNotFound
		}
		if err := json.Unmarshal([]byte(raw), v); err != nil {
			return fmt.Errorf("decode: %w", err)
		}
		if err := fn(); err != nil {
			fnErr = err
			return err
		}
		val, err := encodeDoc(v)
		if err != nil {
			return err
		}
		return set(tx, k, val)
	})
	if fnErr != nil {
		return fnErr
	}
	if err != nil {
		return fmt.Errorf("store: update %s %s/%s: %w", kind, region, id, err)
	}
	return nil
}

// DeleteDoc deletes a document. ErrNotFound.
func (s *Store) DeleteDoc(kind, region, id string) error {
	err := s.update(func(tx *buntdb.Tx) error {
		_, err := tx.Delete(docKey(kind, region, id))
		if err == buntdb.ErrNotFound {
			return ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("store: delete %s %s/%s: %w", kind, region, id, err)
	}
	return nil
}

// ListDocs calls fn with each document of a kind in a region, decoded into
// a new T, by ascending id until fn returns false; fn may use the Store.
func ListDocs[T any](s *Store, kind, region string, fn func(id string, doc *T) bool) error {
	return s.listDocs(kind, region, func(id string, raw []byte) (bool, error) {
		doc := new(T)
		if err := json.Unmarshal(raw, doc); err != nil {
			return false, fmt.Errorf("store: decode %s %s/%s: %w", kind, region, id, err)
		}
		return fn(id, doc), nil
	})
}

// listDocs calls fn with the id and JSON of each document of a kind in a
// region, in ascending id order, until fn returns false or an error.
func (s *Store) listDocs(kind, region string, fn func(id string, raw []byte) (bool, error)) error {
	prefix := docPrefix(kind, region)
	var kvs []kv
	err := s.view(func(tx *buntdb.Tx) error {
		return scanPrefix(tx, prefix, func(k, v string) bool {
			kvs = append(kvs, kv{k[len(prefix):], v})
			return true
		})
	})
	if err != nil {
		return fmt.Errorf("store: list %s %s: %w", kind, region, err)
	}
	for _, p := range kvs {
		more, err := fn(p.k, []byte(p.v))
		if err != nil {
			return err
		}
		if !more {
			break
		}
	}
	return nil
}

// CountDocs returns the number of documents of a kind in a region.
func (s *Store) CountDocs(kind, region string) (int, error) {
	var n int
	err := s.view(func(tx *buntdb.Tx) error {
		var err error
		n, err = countPrefix(tx, docPrefix(kind, region))
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("store: count %s %s: %w", kind, region, err)
	}
	return n, nil
}
