package engine

// Messaging sessions: create (POST /api/v1/sessions), the live session
// with its event history and inactivity timer, expiry and end. The sockets
// attached to a session are in messaging_socket.go.

import (
	"encoding/json"
	"time"
)

// sessionPlatforms are the session platform values: the spec's four and the
// real service's two "-web" ones (D12).
var SessionPlatforms = map[string]bool{"web": true, "ios": true, "android": true, "custom": true,
	"ios-web": true, "android-web": true}

type SessionCreateRequest struct {
	Platform         *string `json:"platform"`
	StreamingEnabled *bool   `json:"streaming_enabled"`
	DeviceType       *string `json:"device_type"`
}

type SessionCreateResponse struct {
	SessionID string `json:"session_id"`
}

type HistEvent struct {
	Seq  int
	Data json.RawMessage
}

// MessagingSession describes a live session for the control plane.
type MessagingSession struct {
	ID             string    `json:"session_id"`
	AccountID      string    `json:"account_id"`
	ProjectID      string    `json:"project_id"`
	ConversationID string    `json:"conversation_id,omitempty"`
	Streaming      bool      `json:"streaming_enabled"`
	Platform       string    `json:"platform"`
	CreatedAt      time.Time `json:"created_at"`
	Connections    int       `json:"connections"`
	Events         int       `json:"events"`
}

func SortSessions(l []MessagingSession) {
	for i := 1; i < len(l); i++ {
		for j := i; j > 0 && (l[j].CreatedAt.Before(l[j-1].CreatedAt) ||
			l[j].CreatedAt.Equal(l[j-1].CreatedAt) && l[j].ID < l[j-1].ID); j-- {
			l[j], l[j-1] = l[j-1], l[j]
		}
	}
}
