package mockplatform

import (
	"cmp"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/coverage"
)

// Worlds: a Platform hosts isolated worlds, each a Platform of its own,
// served under /w/{id}/, so a CI job's tests share one server and still
// run in parallel (docs/worlds.md).

// DefaultMaxWorlds is how many worlds a platform hosts at once unless
// WithMaxWorlds says otherwise.
const DefaultMaxWorlds = 200

// ErrTooManyWorlds is NewWorld's error when the host is full.
var ErrTooManyWorlds = errors.New("mockplatform: world limit reached")

type worldLimits struct {
	max   int           // most worlds alive at once; 0: worlds are off
	idle  time.Duration // drop a world unused this long; 0: never
	clock *clock.Clock  // measures idleness (tests); nil: a real clock
}

var defaultWorldLimits = worldLimits{max: DefaultMaxWorlds}

// WithMaxWorlds sets how many worlds the platform hosts at once (default
// DefaultMaxWorlds); 0 turns worlds off.
func WithMaxWorlds(n int) Option {
	return func(c *config) { c.worlds.max = max(n, 0) }
}

// WithWorldIdleTimeout drops a world after d of wall time without a
// request, so worlds of a crashed CI job do not pile up. 0 keeps them.
func WithWorldIdleTimeout(d time.Duration) Option {
	return func(c *config) { c.worlds.idle = max(d, 0) }
}

// mount is where a world is served: its host and id.
type mount struct {
	host *Platform
	id   string
}

func (m *mount) path() string { return "/w/" + m.id }

// world is one hosted world.
type world struct {
	id       string
	seq      uint64
	p        *Platform
	created  time.Time
	lastUsed time.Time // guarded by worldSet.mu
	active   int       // requests in flight; guarded by worldSet.mu
}

// worldSet is the worlds of a host. Lock order: worldSet.mu is never held
// with the host's Platform.mu, nor while a world's platform is built or
// closed.
type worldSet struct {
	limits worldLimits
	log    *slog.Logger

	mu     sync.Mutex // guards the fields below
	worlds map[string]*world
	// closing are the worlds whose Close has not ended; retired sums the
	// coverage counts of the closed ones.
	closing  map[string]*world
	retired  coverage.Snapshot
	reserved int // worlds being built, counted against the limit
	seq      uint64
	clock    *clock.Clock
	ownClock bool
	stop     func() bool // the pending idle sweep, if any
	closed   bool
}

func newWorldSet(limits worldLimits, log *slog.Logger) *worldSet {
	return &worldSet{limits: limits, log: log, worlds: map[string]*world{}, closing: map[string]*world{},
		retired: coverage.NewSnapshot()}
}

// clockLocked is the clock that dates worlds and measures idleness.
func (ws *worldSet) clockLocked() *clock.Clock {
	if ws.clock == nil {
		if ws.limits.clock != nil {
			ws.clock = ws.limits.clock
		} else {
			ws.clock, ws.ownClock = clock.New(clock.ModeReal, time.Time{}), true
		}
	}
	return ws.clock
}

// WorldInfo describes a world.
type WorldInfo struct {
	ID       string
	Scenario string // the scenario's name
	Created  time.Time
	LastUsed time.Time
	// Expires is when the world is dropped if unused (zero: never).
	Expires time.Time
	World   *Platform
}

func (ws *worldSet) infoLocked(w *world) WorldInfo {
	info := WorldInfo{ID: w.id, Scenario: w.p.Scenario().Name, Created: w.created, LastUsed: w.lastUsed, World: w.p}
	if ws.limits.idle > 0 {
		info.Expires = w.lastUsed.Add(ws.limits.idle)
	}
	return info
}

// NewWorld creates a world hosted by p, served under p.URL()+"/w/{id}",
// with p's scenario, seed and clock mode unless opts say otherwise. A
// world lives in memory; close it, or DeleteWorld its id, when done.
func (p *Platform) NewWorld(opts ...Option) (*Platform, error) {
	if p.worlds == nil {
		return nil, errors.New("mockplatform: a world hosts no worlds (create them at its host)")
	}
	p.mu.Lock()
	closed := p.closed
	p.mu.Unlock()
	if closed {
		return nil, errors.New("mockplatform: the platform is closed")
	}
	cfg := p.cfg // the host's settings (logger, guard and the like) carry over
	cfg.sc, cfg.scs, cfg.sources, cfg.err = p.Scenario(), nil, nil, nil
	cfg.scChecked = true // the host's scenario passed validation
	cfg.dataFile, cfg.noListen, cfg.publicURL = "", true, ""
	cfg.worlds, cfg.extensions = worldLimits{}, nil
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.dataFile != "" {
		return nil, errors.New("mockplatform: a world lives in memory: WithDataFile does not apply")
	}

	ws := p.worlds
	ws.mu.Lock()
	switch {
	case ws.closed:
		ws.mu.Unlock()
		return nil, errors.New("mockplatform: the platform is closed")
	case len(ws.worlds)+ws.reserved >= ws.limits.max:
		ws.mu.Unlock()
		return nil, fmt.Errorf("%w: %d worlds are alive", ErrTooManyWorlds, ws.limits.max)
	}
	ws.reserved++
	id := ws.newIDLocked()
	ws.mu.Unlock()

	cfg.mount = &mount{host: p, id: id}
	cfg.logger = cfg.logger.With("world", id)
	wp, err := openPlatform(cfg)

	ws.mu.Lock()
	ws.reserved--
	if err == nil && ws.closed {
		err = errors.New("mockplatform: the platform is closed")
	}
	if err != nil {
		ws.mu.Unlock()
		if wp != nil {
			wp.Close()
		}
		return nil, err
	}
	now := ws.clockLocked().Now()
	ws.seq++
	ws.worlds[id] = &world{id: id, seq: ws.seq, p: wp, created: now, lastUsed: now}
	if ws.stop == nil {
		ws.armLocked(now)
	}
	n := len(ws.worlds)
	ws.mu.Unlock()
	ws.log.Debug("world created", "world", id, "scenario", wp.Scenario().Name, "worlds", n)
	return wp, nil
}

// World is NewWorld for a test: it fails on error and closes the world
// when the test ends.
func (p *Platform) World(t TB, opts ...Option) *Platform {
	t.Helper()
	w, err := p.NewWorld(opts...)
	if err != nil {
		t.Fatalf("mockplatform.World: %v", err)
		return nil
	}
	t.Cleanup(w.Close)
	return w
}

// newIDLocked returns a random id no live world has.
func (ws *worldSet) newIDLocked() string {
	for {
		var b [6]byte
		_, _ = rand.Read(b[:]) // never fails (crypto/rand)
		id := hex.EncodeToString(b[:])
		if _, taken := ws.worlds[id]; !taken {
			return id
		}
	}
}

// Worlds lists the worlds p hosts, oldest first.
func (p *Platform) Worlds() []WorldInfo {
	ws := p.worlds
	if ws == nil {
		return nil
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	list := make([]*world, 0, len(ws.worlds))
	for _, w := range ws.worlds {
		list = append(list, w)
	}
	slices.SortFunc(list, func(a, b *world) int { return cmp.Compare(a.seq, b.seq) })
	out := make([]WorldInfo, len(list))
	for i, w := range list {
		out[i] = ws.infoLocked(w)
	}
	return out
}

// WorldByID returns a world p hosts.
func (p *Platform) WorldByID(id string) (WorldInfo, bool) {
	ws := p.worlds
	if ws == nil {
		return WorldInfo{}, false
	}
	ws.mu.Lock()
	defer ws.mu.Unlock()
	w, ok := ws.worlds[id]
	if !ok {
		return WorldInfo{}, false
	}
	return ws.infoLocked(w), true
}

// DeleteWorld closes a world p hosts and reports whether it existed.
func (p *Platform) DeleteWorld(id string) bool {
	ws := p.worlds
	if ws == nil {
		return false
	}
	ws.mu.Lock()
	w, ok := ws.worlds[id]
	if ok {
		delete(ws.worlds, id)
		ws.closing[id] = w
	}
	ws.mu.Unlock()
	if ok {
		w.p.Close()
		ws.log.Debug("world deleted", "world", id)
	}
	return ok
}

func (p *Platform) worldCount() int {
	if p.worlds == nil {
		return 0
	}
	p.worlds.mu.Lock()
	defer p.worlds.mu.Unlock()
	return len(p.worlds.worlds)
}

// serveWorld serves a request under /w/{id}/ with that world and reports
// whether it was a world's.
func (p *Platform) serveWorld(w http.ResponseWriter, r *http.Request) bool {
	if p.worlds == nil {
		return false
	}
	rest, ok := strings.CutPrefix(r.URL.Path, "/w/")
	if !ok {
		return false
	}
	id, sub, _ := strings.Cut(rest, "/")
	ws := p.worlds
	ws.mu.Lock()
	wd := ws.worlds[id]
	if wd != nil {
		wd.active++
		wd.lastUsed = ws.clockLocked().Now()
	}
	ws.mu.Unlock()
	if wd == nil {
		writeJSONError(w, http.StatusNotFound, fmt.Sprintf("no world %q: it was deleted, expired or never created (GET /_mock/worlds lists the worlds)", id))
		return true
	}
	defer func() {
		ws.mu.Lock()
		wd.active--
		wd.lastUsed = ws.clockLocked().Now()
		ws.mu.Unlock()
	}()
	r2 := new(http.Request)
	*r2 = *r
	r2.URL = new(url.URL)
	*r2.URL = *r.URL
	r2.URL.Path = "/" + sub
	if r.URL.RawPath != "" { // the id is hex, the same escaped or not
		r2.URL.RawPath = strings.TrimPrefix(r.URL.RawPath, "/w/"+id)
	}
	wd.p.ServeHTTP(w, r2)
	return true
}

// closeWorlds closes a host's worlds, or takes a world off its host's list.
func (p *Platform) closeWorlds() {
	if m := p.cfg.mount; m != nil {
		m.host.worlds.retire(m.id, p)
		return
	}
	ws := p.worlds
	if ws == nil {
		return
	}
	ws.mu.Lock()
	ws.closed = true
	list := make([]*world, 0, len(ws.worlds))
	for id, w := range ws.worlds {
		list = append(list, w)
		ws.closing[id] = w
	}
	clear(ws.worlds)
	if ws.stop != nil {
		ws.stop()
		ws.stop = nil
	}
	c, own := ws.clock, ws.ownClock
	ws.mu.Unlock()
	for _, w := range list {
		w.p.Close()
	}
	if own {
		c.Close()
	}
}

// armLocked schedules the next idle sweep.
func (ws *worldSet) armLocked(now time.Time) {
	if ws.limits.idle <= 0 || ws.closed || len(ws.worlds) == 0 {
		return
	}
	next := now.Add(ws.limits.idle)
	for _, w := range ws.worlds {
		if due := w.lastUsed.Add(ws.limits.idle); w.active == 0 && due.Before(next) {
			next = due
		}
	}
	ws.stop = ws.clockLocked().At(next, ws.sweep)
}

// sweep drops the worlds unused for the idle timeout (a clock callback).
func (ws *worldSet) sweep(now time.Time) {
	ws.mu.Lock()
	ws.stop = nil
	var dead []*world
	for id, w := range ws.worlds {
		if w.active == 0 && !now.Before(w.lastUsed.Add(ws.limits.idle)) {
			delete(ws.worlds, id)
			ws.closing[id] = w
			dead = append(dead, w)
		}
	}
	ws.armLocked(now)
	ws.mu.Unlock()
	for _, w := range dead {
		ws.log.Info("world expired", "world", w.id, "idle", ws.limits.idle.String())
		w.p.Close()
	}
}
