package engine

// Messaging access tokens (docs/api.md#messaging-token; docs/fidelity.md
// G20, D23): a connector token and a registered host buy a short-lived
// HS256 JWT for sessions and sockets. The engine issues and verifies them.

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

// messagingState is the JWT key, the messaging id stream and the token
// generations. mu is a leaf.
type messagingState struct {
	mu sync.Mutex
	// randomKey is the instance's own key (crypto/rand): no one can derive it
	// from the scenario. secret is the key in force: messaging.signing_key
	// when set (reproducible tokens), else randomKey.
	randomKey []byte
	secret    []byte
	// view is the View secret and rng were derived from.
	view *View
	rng  *rand.Rand
	// tokenGen numbers the tokens issued over the instance's life; a token is
	// valid only in (revokedGen, tokenGen], so revocation moves revokedGen up
	// and tokens from other instances are refused.
	tokenGen, revokedGen uint64
	// verified caches the claims of verified tokens (time checks run at each
	// use); emptied on a new key or at maxVerifiedTokens.
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

func (m *messagingState) newMessagingKey() {
	m.randomKey = make([]byte, 32)
	crand.Read(m.randomKey) // never fails (crypto/rand crashes the process rather)
}

// messagingLocked derives the secret and id stream when the world changed.
// a.messaging.mu must be held.
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
		// A stream of its own, so messaging does not shift other families' ids.
		m.rng = rand.New(rand.NewPCG(seed^0x3c6ef372fe94f82b, seed^0xa54ff53a5f1d36f1))
		m.view = w
		m.verified = nil
	}
	return m
}

// resetMessagingTokens revokes every token and derives key and stream again.
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

// IssueMessagingToken signs an access token of a connector credential for
// host, valid for ttl on the virtual clock.
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

// VerifyMessagingToken checks an access token: signature, expiry on the
// virtual clock, an unrevoked generation, and an enabled connector. With
// expired (the expire_token preset) a valid token is refused as expired.
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

// ExpireMessagingTokens revokes every token issued so far; open sockets
// stay open.
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

// HostAllowed matches X-Host against a connector's hosts: equal (any
// case, any port), or with subdomains a subdomain of one.
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
