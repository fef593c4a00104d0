package store

// Retention: dropping ended conversations that started before a time, with
// their handoff states; generated ones by a per-layer cut (gx/{seq}).

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/tidwall/buntdb"
)

// pfxGenCut holds a layer's retention cut: g/{seq} → gx/{seq}.
const pfxGenCut = "gx/"

// OldestConversationStart is the earliest started_at of any conversation
// record (ok false: there is none).
func (s *Store) OldestConversationStart() (oldest time.Time, ok bool, err error) {
	err = s.view(func(tx *buntdb.Tx) error {
		for k := pfxConv; ; {
			var first string
			if err := tx.AscendGreaterOrEqual("", k, func(key, _ string) bool { first = key; return false }); err != nil {
				return err
			}
			pp, ts, found := projectPrefixOf(first)
			if !found {
				break
			}
			if t, tok := timeOfTS(ts); tok && (!ok || t.Before(oldest)) {
				oldest, ok = t, true
			}
			k = prefixEnd(pp)
		}
		for _, ls := range s.gen {
			for p := range ls.recs {
				if !ls.shadowed(p) {
					if t := ls.start(p); !ok || t.Before(oldest) {
						oldest, ok = t, true
					}
					break
				}
			}
		}
		return nil
	})
	return oldest, ok, err
}

// projectPrefixOf splits a conversation key into project prefix and ts.
func projectPrefixOf(k string) (prefix, ts string, found bool) {
	if !strings.HasPrefix(k, pfxConv) {
		return "", "", false
	}
	i := len(pfxConv)
	for range 3 {
		j := strings.IndexByte(k[i:], '/')
		if j < 0 {
			return "", "", false
		}
		i += j + 1
	}
	if len(k) < i+tsLen {
		return "", "", false
	}
	return k[:i], k[i : i+tsLen], true
}

// timeOfTS reads a key's timestamp (tsenc).
func timeOfTS(ts string) (time.Time, bool) {
	if len(ts) != tsLen {
		return time.Time{}, false
	}
	u, err := strconv.ParseUint(ts[:20], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	n, err := strconv.ParseUint(ts[20:], 10, 32)
	if err != nil {
		return time.Time{}, false
	}
	return time.Unix(int64(u^(1<<63)), int64(n)).UTC(), true
}

// DropConversationsBefore drops every conversation that started before cut
// and is not in progress, with its handoff state, and returns how many.
func (s *Store) DropConversationsBefore(cut time.Time) (int, error) {
	dropped := 0
	var projects []ProjectRef
	cutTS := tsenc(cut)
	err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		// Stored records, project by project: the keys below the cut.
		type victim struct {
			key string
			c   *Conversation
		}
		var victims []victim
		for k := pfxConv; ; {
			var first string
			if err := tx.AscendGreaterOrEqual("", k, func(key, _ string) bool { first = key; return false }); err != nil {
				return err
			}
			pp, _, found := projectPrefixOf(first)
			if !found {
				break
			}
			var scanErr error
			err := tx.AscendRange("", pp, pp+cutTS, func(key, raw string) bool {
				c, err := s.oldConv(key, raw)
				if err != nil {
					scanErr = err
					return false
				}
				if !c.InProgress {
					victims = append(victims, victim{key, c})
				}
				return true
			})
			if err == nil {
				err = scanErr
			}
			if err != nil {
				return err
			}
			k = prefixEnd(pp)
		}
		for _, v := range victims {
			c := v.c
			if err := del(tx, v.key); err != nil {
				return err
			}
			if err := s.unindexConvLocked(tx, log, c.Region, c.ID); err != nil {
				return err
			}
			s.convs.drop(v.key)
			if ls, _ := s.findGenLocked(c.Region, c.ID); ls != nil {
				// Its generated original must not come back on a reopen.
				if err := set(tx, pfxConvDel+esc(c.Region)+"/"+c.ID, ""); err != nil {
					return err
				}
			}
			if err := s.dropHandoffLocked(tx, projectOf(c), c.ID); err != nil {
				return err
			}
			s.convReplaced(c, nil)
			projects = append(projects, projectOf(c))
			dropped++
		}
		// Generated records: move the layer's cut, shadowing ended ones.
		for _, ls := range s.gen {
			end := ls.searchTime(cut)
			off := cut.Sub(ls.from).Nanoseconds()
			if end == 0 || off <= ls.cut {
				continue
			}
			n := 0
			var buf []mevent
			for p := range end {
				if ls.shadowed(p) || ls.recs[p].flags&grInProgress != 0 {
					continue
				}
				var err error
				if buf, err = ls.events(p, buf[:0]); err != nil {
					return err
				}
				sp := ls.concSpan(p)
				s.metrics.mu.Lock()
				if !s.metrics.replaceLocked(ls.ref, buf, &sp, ls.ref, nil, nil) {
					s.metrics.valid = false
				}
				s.metrics.mu.Unlock()
				if ls.recs[p].flags&grHandoff != 0 {
					if err := s.dropHandoffLocked(tx, ls.ref, ls.id(p)); err != nil {
						return err
					}
				}
				s.shadowLocked(ls, p, log)
				n++
			}
			prev := ls.cut
			log.fns = append(log.fns, func() { ls.cut = prev })
			ls.cut = off
			if err := set(tx, pfxGenCut+strings.TrimPrefix(ls.key, pfxGen), strconv.FormatInt(off, 10)); err != nil {
				return err
			}
			if n > 0 {
				projects = append(projects, ls.ref)
				dropped += n
			}
		}
		return nil
	})
	if err != nil {
		s.metricsInvalid()
		return 0, fmt.Errorf("store: drop conversations: %w", err)
	}
	if dropped > 0 {
		s.convChanged(projects...)
	}
	return dropped, nil
}

// dropHandoffLocked deletes a conversation's stored handoff state, if any.
func (s *Store) dropHandoffLocked(tx *buntdb.Tx, ref ProjectRef, id string) error {
	pk := handoffKey(ref.Region, ref.AccountID, ref.ProjectID, id)
	raw, ok, err := get(tx, pk)
	if err != nil || !ok {
		return err
	}
	if h, err := decodeHandoffState(raw); err == nil && h.SharedID != "" {
		sk := handoffSharedKey(ref.Region, ref.AccountID, ref.ProjectID, h.SharedID)
		if cur, ok, err := get(tx, sk); err != nil {
			return err
		} else if ok && cur == pk {
			if err := del(tx, sk); err != nil {
				return err
			}
		}
	}
	return del(tx, pk)
}

// dropped reports whether the layer's retention cut dropped record p.
func (ls *layerState) dropped(p int) bool {
	return ls.recs[p].off < ls.cut && ls.recs[p].flags&grInProgress == 0
}
