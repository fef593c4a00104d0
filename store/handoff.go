package store

import (
	"fmt"

	json "github.com/goccy/go-json"

	"github.com/tidwall/buntdb"
)

func handoffKey(region, account, project, id string) string {
	return pfxHandoff + esc(region) + "/" + esc(account) + "/" + esc(project) + "/" + id
}

func handoffSharedKey(region, account, project, sharedID string) string {
	return pfxHandoffSID + esc(region) + "/" + esc(account) + "/" + esc(project) + "/" + sharedID
}

// PutHandoffState inserts or replaces the handoff state keyed by (region,
// account, project, id), also findable by its SharedID in that project;
// a later state claiming the same shared id takes it over, and a changed
// SharedID releases the old one.
func (s *Store) PutHandoffState(h *HandoffState) error {
	if h == nil {
		return fmt.Errorf("store: put handoff state: nil state: %w", ErrInvalid)
	}
	if err := need("put handoff state", h.Region, h.AccountID, h.ProjectID, h.ID); err != nil {
		return err
	}
	b, err := json.Marshal(h)
	if err != nil {
		return fmt.Errorf("store: put handoff state %s/%s: encode: %w", h.Region, h.ID, err)
	}
	pk := handoffKey(h.Region, h.AccountID, h.ProjectID, h.ID)
	err = s.update(func(tx *buntdb.Tx) error {
		prev, ok, err := get(tx, pk)
		if err != nil {
			return err
		}
		if ok {
			var old HandoffState
			if err := json.Unmarshal([]byte(prev), &old); err != nil {
				return fmt.Errorf("decode previous state: %w", err)
			}
			if old.SharedID != "" && old.SharedID != h.SharedID {
				sk := handoffSharedKey(h.Region, h.AccountID, h.ProjectID, old.SharedID)
				if cur, ok, err := get(tx, sk); err != nil {
					return err
				} else if ok && cur == pk {
					if err := del(tx, sk); err != nil {
						return err
					}
				}
			}
		}
		if h.SharedID != "" {
			if err := set(tx, handoffSharedKey(h.Region, h.AccountID, h.ProjectID, h.SharedID), pk); err != nil {
				return err
			}
		}
		return set(tx, pk, string(b))
	})
	if err != nil {
		return fmt.Errorf("store: put handoff state %s/%s: %w", h.Region, h.ID, err)
	}
	return nil
}

// GetHandoffState returns a handoff state by sharedID if set, else by id.
// ErrNotFound; ErrInvalid when both are empty.
func (s *Store) GetHandoffState(region, accountID, projectID, id, sharedID string) (*HandoffState, error) {
	if err := need("get handoff state", region, accountID, projectID); err != nil {
		return nil, err
	}
	if id == "" && sharedID == "" {
		return nil, fmt.Errorf("store: get handoff state: id or shared id required: %w", ErrInvalid)
	}
	var raw string
	var gh *HandoffState
	err := s.view(func(tx *buntdb.Tx) error {
		pk := handoffKey(region, accountID, projectID, id)
		if sharedID != "" {
			var ok bool
			var err error
			pk, ok, err = get(tx, handoffSharedKey(region, accountID, projectID, sharedID))
			if err != nil {
				return err
			}
			if !ok {
				return ErrNotFound
			}
		}
		v, ok, err := get(tx, pk)
		if err != nil {
			return err
		}
		if !ok && sharedID == "" {
			// A generated conversation's state (these have no shared id).
			gh, err = s.genHandoffLocked(ProjectRef{region, accountID, projectID}, id)
			if err != nil {
				return err
			}
			ok = gh != nil
		}
		if !ok {
			return ErrNotFound
		}
		raw = v
		return nil
	})
	if err == nil && gh != nil {
		return gh, nil
	}
	var h *HandoffState
	if err == nil {
		h = new(HandoffState)
		if err = json.Unmarshal([]byte(raw), h); err != nil {
			err = fmt.Errorf("decode: %w", err)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("store: get handoff state %s/%s/%s id=%q shared_id=%q: %w", region, accountID, projectID, id, sharedID, err)
	}
	return h, nil
}

// decodeHandoffState decodes a stored handoff state.
func decodeHandoffState(v string) (*HandoffState, error) {
	h := new(HandoffState)
	if err := json.Unmarshal([]byte(v), h); err != nil {
		return nil, fmt.Errorf("decode handoff state: %w", err)
	}
	return h, nil
}
