package scenario

// The messaging blocks: session settings and the agent's look per project.

import "time"

// MessagingSettings are the instance-wide messaging settings. Zero values
// mean the defaults (filled in by validation).
type MessagingSettings struct {
	// TokenTTL is the lifetime of an access token (default 24h, the real
	// service's expires_in of 86400).
	TokenTTL Duration `yaml:"token_ttl" json:"token_ttl,omitempty"`
	// MaxConnections is the number of concurrent WebSocket connections per
	// session (default 10).
	MaxConnections int `yaml:"max_connections" json:"max_connections,omitempty"`
	// MaxMessageBytes bounds one client WebSocket message (default 131072).
	MaxMessageBytes int64 `yaml:"max_message_bytes" json:"max_message_bytes,omitempty"`
	// ChunkWords is the number of words per streamed chunk (default 3).
	ChunkWords int `yaml:"chunk_words" json:"chunk_words,omitempty"`
	// SigningKey is the HS256 key of access tokens, at least 32 bytes, for
	// tokens that are the same on every run. Without it every instance
	// draws a random key, so that no token can be forged from what the
	// mock shows. Never shown (GET /_mock/scenario omits it).
	SigningKey string `yaml:"signing_key" json:"-"`
}

// MinSigningKeyBytes is the shortest messaging.signing_key.
const MinSigningKeyBytes = 32

// ProjectMessaging is the agent's look in messaging sessions.
type ProjectMessaging struct {
	// AgentName is POLY_AGENT_JOINED's agent_name (default: the project name).
	AgentName string `yaml:"agent_name" json:"agent_name,omitempty"`
	// AgentAvatarURL is POLY_AGENT_JOINED's agent_avatar_url (default "").
	AgentAvatarURL string `yaml:"agent_avatar_url" json:"agent_avatar_url,omitempty"`
}

// Messaging defaults.
const (
	DefaultTokenTTL            = 24 * time.Hour
	DefaultMaxConnections      = 10
	DefaultMaxMessageBytes     = 128 << 10
	DefaultChunkWords          = 3
	DefaultSessionIdle         = 10 * time.Minute
	DefaultWSSendQueueMessages = 256
	DefaultWSSendQueueBytes    = 256 << 10
)

// mergeMessaging lets a later file's messaging block replace dst's.
func mergeMessaging(dst *Scenario, src *Scenario) {
	if src.Messaging != nil {
		m := *src.Messaging
		dst.Messaging = &m
	}
}

// MessagingConfig returns the messaging settings with defaults filled in.
func (s *Scenario) MessagingConfig() MessagingSettings {
	var m MessagingSettings
	if s.Messaging != nil {
		m = *s.Messaging
	}
	if m.TokenTTL <= 0 {
		m.TokenTTL = Duration(DefaultTokenTTL)
	}
	if m.MaxConnections <= 0 {
		m.MaxConnections = DefaultMaxConnections
	}
	if m.MaxMessageBytes <= 0 {
		m.MaxMessageBytes = DefaultMaxMessageBytes
	}
	if m.ChunkWords <= 0 {
		m.ChunkWords = DefaultChunkWords
	}
	return m
}

// SessionIdle is the messaging session inactivity expiry (default 10m).
func (s *Scenario) SessionIdle() time.Duration {
	if d := s.Limits.SessionIdle.D(); d > 0 {
		return d
	}
	return DefaultSessionIdle
}

// WSSendQueue is the most events and bytes a messaging WebSocket holds for
// a client that does not read.
func (s *Scenario) WSSendQueue() (messages int, bytes int64) {
	messages, bytes = s.Limits.WSSendQueueMessages, s.Limits.WSSendQueueBytes
	if messages <= 0 {
		messages = DefaultWSSendQueueMessages
	}
	if bytes <= 0 {
		bytes = DefaultWSSendQueueBytes
	}
	return messages, bytes
}

func (v *validator) messaging(s *Scenario) {
	v.clockSetting(path{"limits", "session_idle"}, s.Limits.SessionIdle)
	v.clockSetting(path{"limits", "conversation_retention"}, s.Limits.ConversationRetention)
	if m := s.Messaging; m != nil {
		mp := path{"messaging"}
		v.clockSetting(mp.with("token_ttl"), m.TokenTTL)
		v.nonNegative(mp.with("max_connections"), int64(m.MaxConnections))
		v.nonNegative(mp.with("max_message_bytes"), m.MaxMessageBytes)
		v.nonNegative(mp.with("chunk_words"), int64(m.ChunkWords))
		if m.SigningKey != "" && len(m.SigningKey) < MinSigningKeyBytes {
			v.reportf(mp.with("signing_key"), "must be at least %d bytes (it is %d)", MinSigningKeyBytes, len(m.SigningKey))
		}
	}
}
