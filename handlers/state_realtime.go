package handlers

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// In-memory state of the families: messaging sessions and outbound calling (issue 5).

// realtimeState is the families' state that is not stored data: live
// messaging sessions with their sockets and timers, the JWT secret, the
// id stream of messaging events, and the outbound rate-limit windows.
// Outbound calls themselves are stored documents (kind docOutboundCall).
//
// Lock order: realtimeState.mu is never held while a session's mu is taken.
type realtimeState struct {
	mu       sync.Mutex
	sessions map[string]*rtSession
	// world is the World the secret and rng were derived from; a new world
	// (scenario load, reset) derives them again.
	world  *World
	secret []byte
	rng    *rand.Rand
	// tokenGen numbers the access tokens issued; tokens numbered up to
	// revokedGen are refused (ExpireMessagingTokens).
	tokenGen, revokedGen uint64
	// rate holds, per account id, the times of the outbound calls accepted
	// within the rate-limit window.
	rate map[string][]time.Time
}

// rtLocked derives the per-world secret and id stream when the world has
// changed. a.realtime.mu must be held.
func (a *API) rtLocked() *realtimeState {
	rt := &a.realtime
	w := a.world()
	if rt.world != w {
		seed := uint64(w.sc.Seed)
		if seed == 0 {
			seed = 1
		}
		// A stream of its own, so that messaging traffic does not shift the
		// resource ids of the other families.
		sec := rand.New(rand.NewPCG(seed^0x6a09e667f3bcc908, seed^0xbb67ae8584caa73b))
		rt.secret = make([]byte, 32)
		for i := range rt.secret {
			rt.secret[i] = byte(sec.Uint32())
		}
		rt.rng = rand.New(rand.NewPCG(seed^0x3c6ef372fe94f82b, seed^0xa54ff53a5f1d36f1))
		rt.world = w
	}
	if rt.sessions == nil {
		rt.sessions = map[string]*rtSession{}
	}
	if rt.rate == nil {
		rt.rate = map[string][]time.Time{}
	}
	return rt
}

// jwtSecret is the instance's HS256 key for access tokens.
func (a *API) jwtSecret() []byte {
	a.realtime.mu.Lock()
	defer a.realtime.mu.Unlock()
	return a.rtLocked().secret
}

// eventID returns a UUIDv7 for a messaging event at t (notes section 3).
func (a *API) eventID(t time.Time) string {
	a.realtime.mu.Lock()
	r := a.rtLocked().rng
	hi, lo := r.Uint64(), r.Uint64()
	a.realtime.mu.Unlock()
	ms := uint64(t.UnixMilli())
	hi = ms<<16 | 0x7000 | hi&0x0fff
	lo = lo&^(0xc<<60) | 0x8<<60
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
}

// messageID returns a message id like the real "msg_abc123".
func (a *API) messageID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	a.realtime.mu.Lock()
	defer a.realtime.mu.Unlock()
	r := a.rtLocked().rng
	b := []byte("msg_")
	for range 12 {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}

// resetRealtime drops live state after a reset: every session ends, its
// sockets are closed with 1012 (service restart), the token revocation and
// the rate windows are forgotten, and the timers of stored outbound calls
// (the clock dropped them) are armed again.
func (a *API) resetRealtime() {
	a.realtime.mu.Lock()
	sessions := a.realtime.sessions
	a.realtime.sessions = nil
	a.realtime.rate = nil
	a.realtime.tokenGen, a.realtime.revokedGen = 0, 0
	a.realtime.world = nil
	a.realtime.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		s.ended = true
		if s.stopIdle != nil {
			s.stopIdle()
		}
		for c := range s.conns {
			c.closeWith(wsCloseRestart, "mock reset")
		}
		s.mu.Unlock()
	}
	a.rearmCalls()
}

// Fault presets of these families (faults.Action.Preset). Parameters follow
// a colon: "messaging.expire_session_after:3".
const (
	// PresetExpireSession expires the session of the request at once:
	// on POST /api/v1/sessions the new session, on /ws the session right
	// after the socket's history batch.
	PresetExpireSession = "messaging.expire_session"
	// PresetExpireSessionAfter expires the session after N more answered
	// user messages ("messaging.expire_session_after:N").
	PresetExpireSessionAfter = "messaging.expire_session_after"
	// PresetExpireToken on /api/v1/access-token issues a token that has
	// already expired; on /api/v1/sessions and /ws the presented token is
	// refused as expired.
	PresetExpireToken = "messaging.expire_token"
	// PresetDropSocket (on /ws) drops the socket without a close frame in
	// the middle of the next agent reply: after its first chunk, or before
	// a non-streamed message. The events stay in the session's history.
	PresetDropSocket = "messaging.drop_socket"
	// PresetStallChunks (on /ws) stops delivering on the socket after the
	// first chunk of the next streamed reply; the socket stays open.
	PresetStallChunks = "messaging.stall_chunks"
	// PresetDelayChunks (on /ws) waits this long (wall time) before each
	// chunk ("messaging.delay_chunks:200ms").
	PresetDelayChunks = "messaging.delay_chunks"
	// PresetOutboundOutcome (on POST /v1/outbound-calling) forces the
	// outcome of the call ("outbound.outcome:no_answer").
	PresetOutboundOutcome = "outbound.outcome"
)

// ctxRealtimePreset holds the rtPreset applied to a request.
const ctxRealtimePreset = "mock.realtime.preset"

// rtPreset is a parsed preset of these families.
type rtPreset struct {
	name    string
	n       int           // expire_session_after
	delay   time.Duration // delay_chunks
	outcome string        // outbound.outcome
}

// presetRealtime returns the families' named failure mode, nil if none.
// The preset marks the request; the handler applies it.
func (a *API) presetRealtime(name string) presetFunc {
	p, ok := parseRealtimePreset(name)
	if !ok {
		return nil
	}
	return func(c *gin.Context, _ faults.Rule) (bool, error) {
		c.Set(ctxRealtimePreset, p)
		return false, nil
	}
}

func parseRealtimePreset(name string) (rtPreset, bool) {
	base, arg, hasArg := strings.Cut(name, ":")
	p := rtPreset{name: base}
	switch base {
	case PresetExpireSession, PresetExpireToken, PresetDropSocket, PresetStallChunks:
		return p, !hasArg
	case PresetExpireSessionAfter:
		n, err := strconv.Atoi(arg)
		p.n = n
		return p, err == nil && n >= 0
	case PresetDelayChunks:
		d, err := time.ParseDuration(arg)
		p.delay = d
		return p, err == nil && d >= 0
	case PresetOutboundOutcome:
		p.outcome = arg
		for _, o := range scenario.Outcomes {
			if o == arg {
				return p, true
			}
		}
	}
	return rtPreset{}, false
}

// requestPreset returns the preset applied to the request, if any.
func requestPreset(c *gin.Context) (rtPreset, bool) {
	v, ok := c.Get(ctxRealtimePreset)
	if !ok {
		return rtPreset{}, false
	}
	p, ok := v.(rtPreset)
	return p, ok
}

// seedRealtime writes the families' seeded records of a scenario: none
// (sessions are live state; calls start from the API).
func seedRealtime(st *store.Store, sc *scenario.Scenario, now time.Time) error { return nil }
