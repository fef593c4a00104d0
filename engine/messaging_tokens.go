package engine

// Messaging access tokens (docs/api.md#messaging-token; docs/fidelity.md
// G20, D23): a connector token and one of its registered hosts buy a
// short-lived HS256 JWT, which creates sessions and opens their sockets.
// The edge (the messaging handlers) reads the requests; the engine issues
// and verifies the tokens, and draws the ids of messaging events and
// messages from a stream of its own.

import (
	crand "crypto/rand"
	"errors"
	"math/rand/v2"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agentplatform/mockplatform/scenario"
)

// messagingState is the engine's part of messaging: the JWT key, the id
// stream of messaging events and the token generations. mu is a leaf.
type messagingState struct {
	mu sync.Mutex
	// randomKey is the instance's own HS256 key, from crypto/rand when the
	// engine is made: no one can derive it from what the mock shows (the
	// scenario, its seed). secret is the key in force: the scenario's
	// messaging.signing_key when it sets one (reproducible tokens), else
	// randomKey.
	randomKey []byte
	secret    []byte
	// view is the View the secret and rng were derived from; a new view
	// (scenario load, reset) derives them again.
	view *View
	rng  *rand.Rand
	// tokenGen numbers the access tokens issued over the instance's life
	// (a reset does not restart it); a token is valid only with a number
	// in (revokedGen, tokenGen]: ExpireMessagingTokens and a reset move
	// revokedGen up to tokenGen, and a number the mock never issued (a
	// forged or replayed token from another instance) is refused.
	tokenGen, revokedGen uint64
	// verified holds the claims of access tokens whose signature and
	// claims the world's key verified (parsing a token cost more than the
	// rest of a session request): a token is parsed once, and its time
	// checks run again at each use. A new world (a new key) empties it; it
	// is emptied too when it reaches maxVerifiedTokens.
	verified map[string]AccessClaims
}

// maxVerifiedTokens bounds messagingState.verified.
const maxVerifiedTokens = 1024

// MessagingTokenIssuer is the iss of access tokens; the audience is
// "messaging".
const MessagingTokenIssuer = "mockplatform"

// ErrTokenExpired refuses an access token that expired or was revoked.
var ErrTokenExpired = errors.New("access token expired")

// AccessClaims are the claims of an access token.
type AccessClaims struct {
	AccountID   string `json:"account_id"`
	ProjectID   string `json:"project_id"`
	Environment string `json:"client_env"`
	ConnectorID string `json:"connector_id"`
	VariantID   string `json:"variant_id,omitempty"`
	Host        string `json:"host"`
	Gen         uint64 `json:"gen"`
	jwt.RegisteredClaims
}

// Bearer is what a verified access token grants.
type Bearer struct {
	Claims    AccessClaims
	Account   *scenario.Account
	Project   *scenario.Project
	Connector *scenario.Credential
}

// newMessagingKey gives the engine its own random JWT key.
func (m *messagingState) newMessagingKey() {
	m.randomKey = make([]byte, 32)
	crand.Read(m.randomKey) // never fails (crypto/rand crashes the process rather)
}

// messagingLocked derives the per-world secret and id stream when the
// world has changed. a.messaging.mu must be held.
func (a *Engine) messagingLocked() *messagingState {
	m := &a.messaging
	w := a.View()
	if m.view != w {
		seed := uint64(w.Scenario().Seed)
		if seed == 0 {
			seed = 1
		}
		m.secret = m.randomKey
		if k := w.Scenario().MessagingConfig().SigningKey; k != "" {
			m.secret = []byte(k)
		}
		// A stream of its own, so that messaging traffic does not shift the
		// resource ids of the other families.
		m.rng = rand.New(rand.NewPCG(seed^0x3c6ef372fe94f82b, seed^0xa54ff53a5f1d36f1))
		m.view = w
		m.verified = nil
	}
	return m
}

// resetMessagingTokens revokes every access token issued so far and
// derives the key and the id stream again.
func (a *Engine) resetMessagingTokens() {
	a.messaging.mu.Lock()
	a.messaging.revokedGen = a.messaging.tokenGen
	a.messaging.view = nil
	a.messaging.mu.Unlock()
}

// MessagingSecret is the key in force for access tokens.
func (a *Engine) MessagingSecret() []byte {
	a.messaging.mu.Lock()
	defer a.messaging.mu.Unlock()
	return a.messagingLocked().secret
}

// MessagingEventID returns a UUIDv7 for a messaging event at t
// (docs/api.md#messaging-events).
func (a *Engine) MessagingEventID(t time.Time) string {
	a.messaging.mu.Lock()
	r := a.messagingLocked().rng
	hi, lo := r.Uint64(), r.Uint64()
	a.messaging.mu.Unlock()
	ms := uint64(t.UnixMilli())
	hi = ms<<16 | 0x7000 | hi&0x0fff
	lo = lo&^(0xc<<60) | 0x8<<60
	return FormatUUIDBits(hi, lo)
}

// MessagingMessageID returns a message id like the real "msg_abc123".
func (a *Engine) MessagingMessageID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	a.messaging.mu.Lock()
	defer a.messaging.mu.Unlock()
	r := a.messagingLocked().rng
	b := []byte("msg_")
	for range 12 {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}

// IssueMessagingToken signs an access token of a connector credential of
// acct's project proj for host, valid for ttl on the virtual clock.
func (a *Engine) IssueMessagingToken(cred *scenario.Credential, acct *scenario.Account, proj *scenario.Project, host string, ttl time.Duration) (string, error) {
	now := a.clock.Now()
	a.messaging.mu.Lock()
	rt := a.messagingLocked()
	rt.tokenGen++
	gen, secret := rt.tokenGen, rt.secret
	a.messaging.mu.Unlock()
	variant := cred.Variant
	if v := proj.Variant(variant); v != nil {
		variant = v.ID
	}
	claims := AccessClaims{
		AccountID: acct.ID, ProjectID: proj.ID, Environment: cred.ClientEnv, ConnectorID: ConnectorID(cred.Key),
		VariantID: variant, Host: NormalizeHost(host), Gen: gen,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: MessagingTokenIssuer, Subject: ConnectorID(cred.Key), Audience: jwt.ClaimStrings{"messaging"},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)), ID: a.NewUUID(),
		},
	}
	return jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
}

// VerifyMessagingToken checks an access token: HS256 with the instance's
// key, not expired on the virtual clock (expired: as if it were), a
// generation this mock issued and did not revoke, and its connector still
// known and enabled.
func (a *Engine) VerifyMessagingToken(raw string, expired bool) (*Bearer, error) {
	checks := []jwt.ParserOption{jwt.WithTimeFunc(a.clock.Now), jwt.WithExpirationRequired(),
		jwt.WithIssuer(MessagingTokenIssuer), jwt.WithAudience("messaging")}
	a.messaging.mu.Lock()
	cl, known := a.messagingLocked().verified[raw]
	a.messaging.mu.Unlock()
	if known {
		if err := jwt.NewValidator(checks...).Validate(cl); err != nil {
			return nil, err
		}
	} else {
		var secret []byte
		_, err := jwt.ParseWithClaims(raw, &cl, func(*jwt.Token) (any, error) { secret = a.MessagingSecret(); return secret, nil },
			append(checks, jwt.WithValidMethods([]string{"HS256"}))...)
		if err != nil {
			return nil, err
		}
		a.messaging.mu.Lock()
		if m := a.messagingLocked(); string(m.secret) == string(secret) { // the key it was verified with
			if len(m.verified) >= maxVerifiedTokens || m.verified == nil {
				m.verified = map[string]AccessClaims{}
			}
			m.verified[raw] = cl
		}
		a.messaging.mu.Unlock()
	}
	if expired {
		return nil, ErrTokenExpired
	}
	a.messaging.mu.Lock()
	m := a.messagingLocked()
	issued, revoked := cl.Gen <= m.tokenGen, cl.Gen <= m.revokedGen
	a.messaging.mu.Unlock()
	if !issued {
		return nil, errors.New("access token not issued by this mock")
	}
	if revoked {
		return nil, ErrTokenExpired
	}
	w := a.View()
	b := &Bearer{Claims: cl}
	for i := range w.Scenario().Credentials {
		cr := &w.Scenario().Credentials[i]
		if cr.Kind == scenario.KindConnector && !cr.Disabled && ConnectorID(cr.Key) == cl.ConnectorID {
			b.Connector = cr
			break
		}
	}
	if b.Connector == nil {
		return nil, errors.New("connector unknown")
	}
	b.Account = w.Account(cl.AccountID)
	b.Project = b.Account.Project(cl.ProjectID)
	if b.Account == nil || b.Project == nil {
		return nil, errors.New("project unknown")
	}
	return b, nil
}

// ExpireMessagingTokens makes every access token issued so far invalid
// (401 on sessions and new sockets); open sockets stay open.
func (a *Engine) ExpireMessagingTokens() {
	a.messaging.mu.Lock()
	rt := a.messagingLocked()
	rt.revokedGen = rt.tokenGen
	a.messaging.mu.Unlock()
}

// NormalizeHost lowercases a host and drops a scheme, a path and a port.
func NormalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if _, rest, ok := strings.Cut(h, "://"); ok {
		h = rest
	}
	h, _, _ = strings.Cut(h, "/")
	if host, port, err := net.SplitHostPort(h); err == nil {
		if _, err := strconv.Atoi(port); err == nil {
			h = host
		}
	}
	return strings.TrimSuffix(h, ".")
}

// HostAllowed matches X-Host against a connector's registered hosts:
// equal (case-insensitive, any port), or, with subdomains, a subdomain of
// a registered domain ("app.example.com" for "example.com";
// "dev.localhost" for "localhost").
func HostAllowed(hosts []string, host string, subdomains bool) bool {
	h := NormalizeHost(host)
	if h == "" {
		return false
	}
	for _, reg := range hosts {
		r := NormalizeHost(reg)
		if r == "" {
			continue
		}
		if h == r || subdomains && strings.HasSuffix(h, "."+r) {
			return true
		}
	}
	return false
}
