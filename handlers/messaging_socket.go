package handlers

// The messaging WebSocket (docs/api.md#messaging-ws; docs/fidelity.md
// G12). Each socket has a reader handling its client's events in order
// and a writer with a bounded queue (messaging_queue.go), so a slow socket
// never holds up its session.

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/coder/websocket"
	"github.com/gin-gonic/gin"
)

// WebSocket close codes the mock uses (docs/fidelity.md).
const (
	wsCloseNormal    websocket.StatusCode = 1000 // after SESSION_END
	wsCloseGoingAway websocket.StatusCode = 1001 // the mock shuts down
	wsCloseRestart   websocket.StatusCode = 1012 // the mock resets
	// wsCloseExpired: the SDKs read 4001 as rejected and do not reconnect.
	wsCloseExpired   websocket.StatusCode = 4001
	wsCloseQueueFull websocket.StatusCode = 1013 // the send queue overflowed
)

// Client and server event types (docs/api.md#messaging-events).
const (
	evBatch          = "EVENT_TYPE_EVENT_BATCH"
	evSessionStart   = "EVENT_TYPE_SESSION_START"
	evSessionEnd     = "EVENT_TYPE_SESSION_END"
	evJoinRequest    = "EVENT_TYPE_REQUEST_POLY_AGENT_JOIN"
	evUserMessage    = "EVENT_TYPE_USER_MESSAGE"
	evUserTyping     = "EVENT_TYPE_USER_TYPING"
	evUserEnd        = "EVENT_TYPE_USER_END_SESSION"
	evHeartbeat      = "EVENT_TYPE_HEARTBEAT"
	evAgentJoined    = "EVENT_TYPE_POLY_AGENT_JOINED"
	evAgentThinking  = "EVENT_TYPE_POLY_AGENT_THINKING"
	evAgentMessage   = "EVENT_TYPE_POLY_AGENT_MESSAGE"
	evAgentChunk     = "EVENT_TYPE_POLY_AGENT_MESSAGE_CHUNK"
	evAgentHandoff   = "EVENT_TYPE_POLY_AGENT_TRIGGERED_HANDOFF"
	evAgentLeft      = "EVENT_TYPE_POLY_AGENT_LEFT"
	evSystemMessage  = "EVENT_TYPE_SYSTEM_MESSAGE"
	levelError       = "SYSTEM_MESSAGE_LEVEL_ERROR"
	levelWarning     = "SYSTEM_MESSAGE_LEVEL_WARNING"
	reasonUserEnd    = "REASON_USER_END"
	reasonAbandoned  = "REASON_USER_ABANDONED"
	reasonNaturalEnd = "REASON_NATURAL_END"
)

// Texts of system messages (docs/api.md#messaging-events; docs/fidelity.md
// M13.4: the last three are [INF]).
const (
	MsgWSNotAllowed   = "Event type not allowed: "
	MsgWSInvalid      = "Unknown event type or invalid message format"
	MsgWSNotJoined    = "The agent has not joined the session: send EVENT_TYPE_REQUEST_POLY_AGENT_JOIN first."
	MsgWSAlreadyIn    = "The agent has already joined the session."
	MsgWSAgentLeft    = "The agent has left the session."
	MsgWSConvEnded    = "The conversation has ended."
	msgWSShutdown     = "server shutting down"
	heartbeatInterval = 30
	maxReconnects     = 5
	batchSize         = 100
	writeTimeout      = 5 * time.Second
	// shutdownGrace bounds the close handshake at shutdown.
	shutdownGrace = time.Second
)

var eventTypeRE = regexp.MustCompile(`^EVENT_TYPE_[A-Z_]+$`)

// wsEvent is the server envelope (docs/api.md#messaging-events).
type wsEvent struct {
	ID        string         `json:"id"`
	Sequence  *int           `json:"sequence"`
	Timestamp string         `json:"timestamp"`
	Type      string         `json:"type"`
	Payload   any            `json:"payload"`
	Metadata  map[string]any `json:"metadata"`
}

// appendWSEvent appends ev as encoding/json encodes it, or reports false.
func appendWSEvent(b []byte, ev *wsEvent) ([]byte, bool) {
	b = append(b, `{"id":`...)
	b = jsonw.AppendString(b, ev.ID)
	b = append(b, `,"sequence":`...)
	if ev.Sequence == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendInt(b, int64(*ev.Sequence), 10)
	}
	b = append(b, `,"timestamp":`...)
	b = jsonw.AppendString(b, ev.Timestamp)
	b = append(b, `,"type":`...)
	b = jsonw.AppendString(b, ev.Type)
	b = append(b, `,"payload":`...)
	b, ok := jsonw.AppendValue(b, ev.Payload)
	if !ok {
		return b, false
	}
	b = append(b, `,"metadata":`...)
	if b, ok = jsonw.AppendObject(b, ev.Metadata); !ok {
		return b, false
	}
	return append(b, '}'), true
}

type clientEvent struct {
	Type     string          `json:"type"`
	Payload  json.RawMessage `json:"payload"`
	Metadata map[string]any  `json:"metadata"`
}

type agentMessage struct {
	MessageID           string `json:"message_id"`
	Text                string `json:"text"`
	Attachments         []any  `json:"attachments"`
	ResponseSuggestions []any  `json:"response_suggestions"`
}

type agentChunk struct {
	agentMessage
	ChunkIndex int  `json:"chunk_index"`
	IsComplete bool `json:"is_complete"`
}

// Item kinds, for the socket's faults and the send queue's bound.
const (
	itemOther = iota
	itemAgentMessage
	itemFirstChunk
	itemChunk
	// itemReplay is an opening history batch, not counted in the bound.
	itemReplay
)

// emitLocked sends a server event to to (nil: every socket); a persistent
// one joins the history. s.mu must be held.
func (a *API) emitLocked(s *rtSession, to *rtConn, typ string, payload any, meta map[string]any, persist bool, kind int) {
	now := a.Clock().Now()
	if meta == nil {
		meta = map[string]any{}
	}
	ev := wsEvent{ID: a.MessagingEventID(now), Timestamp: now.UTC().Format(time.RFC3339Nano), Type: typ, Payload: payload, Metadata: meta}
	if persist {
		s.seq++
		n := s.seq
		ev.Sequence = &n
	}
	buf := jsonw.GetBuf()
	b, ok := appendWSEvent(*buf, &ev)
	data := slices.Clone(b) // the history keeps it: no spare capacity
	*buf = b
	jsonw.PutBuf(buf)
	if !ok {
		var err error
		if data, err = json.Marshal(ev); err != nil {
			a.Log.Error("encode messaging event", "type", typ, "err", err)
			return
		}
	}
	if persist {
		s.history = append(s.history, histEvent{Seq: s.seq, Data: data})
	}
	if to != nil {
		to.push(wsItem{data: data, kind: kind})
		return
	}
	for c := range s.conns {
		c.push(wsItem{data: data, kind: kind})
	}
}

// systemLocked sends a system message to one socket (transient).
func (a *API) systemLocked(s *rtSession, to *rtConn, level, text string) {
	a.emitLocked(s, to, evSystemMessage, map[string]any{"level": level, "message": text}, nil, false, itemOther)
}

// rtConn is one open socket of a session.
type rtConn struct {
	s  *rtSession
	ws *websocket.Conn
	// readCtx is not the API's, whose end would drop the connection
	// before the writer's close frame.
	readCtx    context.Context
	cancelRead context.CancelFunc

	mu      sync.Mutex
	queue   []wsItem
	closing *wsClose
	wake    chan struct{}
	// bound is the send queue's bound; held, what it holds.
	bound, held queueSize
	// overflowed: closing; the client's events are no longer handled.
	overflowed  atomic.Bool
	drop, stall bool // fault presets
	delay       time.Duration
}

type wsItem struct {
	data []byte
	kind int
	// counted says the item counts against the queue's bound.
	counted bool
}

type wsClose struct {
	code websocket.StatusCode
	text string
}

func (c *rtConn) push(it wsItem) {
	c.mu.Lock()
	if c.closing == nil {
		c.enqueueLocked(it)
	}
	c.mu.Unlock()
	c.poke()
}

// closeWith asks the writer to send the queue, then close with code.
func (c *rtConn) closeWith(code websocket.StatusCode, text string) {
	c.mu.Lock()
	if c.closing == nil {
		c.closing = &wsClose{code, text}
	}
	c.mu.Unlock()
	c.poke()
}

func (c *rtConn) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// handleMessagingSocket handles "GET {messaging}/ws?session_id=…&access_token=…[&cursor=N]";
// handshake problems are HTTP errors (docs/fidelity.md M13.5).
func (a *API) handleMessagingSocket(c *gin.Context) error {
	q := c.Request.URL.Query()
	sid := q.Get("session_id")
	if sid == "" {
		return msgError(http.StatusBadRequest, MsgMessagingBadParams)
	}
	raw := q.Get("access_token")
	if raw == "" {
		return msgError(http.StatusUnauthorized, MsgMessagingAuthFailed)
	}
	b, err := a.verifyToken(c, raw)
	if err != nil {
		return msgError(http.StatusUnauthorized, MsgMessagingAuthFailed)
	}
	cursor := parseCursor(q.Get("cursor"))
	s := a.session(sid)
	if s == nil {
		return msgError(http.StatusNotFound, MsgMessagingNoSession)
	}
	if s.accountID != b.Account.ID || s.projectID != b.Project.ID {
		return msgError(http.StatusUnauthorized, MsgMessagingAuthFailed)
	}
	if !strings.EqualFold(c.GetHeader("Upgrade"), "websocket") {
		return msgError(http.StatusBadRequest, MsgMessagingBadParams)
	}
	if a.bg.Err() != nil {
		return msgError(http.StatusServiceUnavailable, "Service Unavailable")
	}
	cfg := a.View().Scenario().MessagingConfig()
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return msgError(http.StatusNotFound, MsgMessagingNoSession)
	}
	if len(s.conns) >= cfg.MaxConnections {
		s.mu.Unlock()
		return msgError(http.StatusTooManyRequests, MsgMessagingTooMany)
	}
	// Accepted under the session's lock, so its history batch comes
	// first; counted in wg before the hijack, so Close cannot miss it.
	a.wg.Add(1)
	ws, err := websocket.Accept(sendBufferWriter{c.Writer}, c.Request, &websocket.AcceptOptions{InsecureSkipVerify: true})
	if err != nil {
		a.wg.Done()
		s.mu.Unlock()
		c.Abort()
		return nil // Accept has answered
	}
	ws.SetReadLimit(cfg.MaxMessageBytes)
	conn := &rtConn{s: s, ws: ws, wake: make(chan struct{}, 1)}
	conn.bound.items, conn.bound.bytes = a.View().Scenario().WSSendQueue()
	conn.readCtx, conn.cancelRead = context.WithCancel(context.Background())
	expireNow := false
	if p, ok := requestPreset(c); ok {
		switch p.Name {
		case PresetDropSocket:
			conn.drop = true
		case PresetStallChunks:
			conn.stall = true
		case PresetDelayChunks:
			conn.delay = p.D
		case PresetExpireSession:
			expireNow = true
		case PresetExpireSessionAfter:
			s.expireAfter = p.N
		}
	}
	s.conns[conn] = struct{}{}
	if !s.connected {
		s.connected = true
		a.RecordTransition(engine.MachineMessagingSession, "created", "connected")
	}
	a.replayLocked(s, conn, cursor)
	if expireNow {
		a.endSessionLocked(s, reasonAbandoned, wsCloseExpired, "session expired", "expired")
	}
	s.mu.Unlock()
	go func() {
		defer a.wg.Done()
		done := make(chan struct{})
		go func() {
			defer close(done)
			a.writeLoop(a.bg, conn)
		}()
		a.readLoop(conn.readCtx, conn)
		<-done
		conn.cancelRead()
	}()
	c.Abort()
	return nil
}

// parseCursor reads "N" or the legacy "seq:N"; anything else is 0 (full
// replay), which never rejects the connection (docs/fidelity.md G12).
func parseCursor(v string) int {
	v = strings.TrimPrefix(v, "seq:")
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0
	}
	return n
}

// replayLocked queues the history after cursor as EVENT_BATCH events; the
// first always starts with SESSION_START.
func (a *API) replayLocked(s *rtSession, c *rtConn, cursor int) {
	events := []json.RawMessage{s.history[0].Data}
	for _, h := range s.history[1:] {
		if h.Seq > cursor {
			events = append(events, h.Data)
		}
	}
	for len(events) > 0 {
		n := min(len(events), batchSize)
		a.emitLocked(s, c, evBatch, map[string]any{"events": events[:n]}, nil, false, itemReplay)
		events = events[n:]
	}
}

// writeLoop sends a socket's queue in order, applying its faults, and
// closes it when asked, or with 1001 when ctx ends.
func (a *API) writeLoop(ctx context.Context, c *rtConn) {
	stalled := false
	for {
		select {
		case <-ctx.Done():
			c.goAway()
			return
		case <-c.wake:
		}
		for {
			c.mu.Lock()
			if len(c.queue) == 0 {
				cl := c.closing
				c.mu.Unlock()
				if cl != nil {
					_ = c.ws.Close(cl.code, cl.text)
					return
				}
				break
			}
			it := c.dequeueLocked()
			c.mu.Unlock()
			agentOut := it.kind == itemAgentMessage || it.kind == itemFirstChunk || it.kind == itemChunk
			if stalled {
				continue
			}
			if c.drop && (it.kind == itemAgentMessage || it.kind == itemChunk) {
				_ = c.ws.CloseNow()
				return
			}
			if c.delay > 0 && (it.kind == itemFirstChunk || it.kind == itemChunk) {
				if sleepCtx(ctx, c.delay) != nil {
					c.goAway()
					return
				}
			}
			// Not ctx: its end would drop the connection, not close it.
			wctx, cancel := context.WithTimeout(context.Background(), writeTimeout)
			err := c.ws.Write(wctx, websocket.MessageText, it.data)
			cancel()
			if err != nil {
				_ = c.ws.CloseNow()
				return
			}
			if c.stall && agentOut && it.kind != itemAgentMessage {
				stalled = true
			}
		}
	}
}

// goAway closes the socket with 1001, waiting at most shutdownGrace.
func (c *rtConn) goAway() {
	t := time.AfterFunc(shutdownGrace, c.cancelRead) // drops the connection, ending Close
	defer t.Stop()
	_ = c.ws.Close(wsCloseGoingAway, msgWSShutdown)
}

// readLoop handles the client's events in order until the socket ends.
func (a *API) readLoop(ctx context.Context, c *rtConn) {
	defer func() {
		s := c.s
		s.mu.Lock()
		delete(s.conns, c)
		s.mu.Unlock()
		c.closeWith(websocket.StatusNormalClosure, "")
	}()
	for {
		typ, data, err := c.ws.Read(ctx)
		if err != nil {
			return
		}
		if c.overflowed.Load() {
			continue // closing: its events would only grow the history
		}
		if typ != websocket.MessageText {
			c.s.mu.Lock()
			a.systemLocked(c.s, c, levelError, MsgWSInvalid)
			c.s.mu.Unlock()
			continue
		}
		a.handleEvent(c, data)
	}
}

// handleEvent handles one client event (docs/api.md#messaging-events).
func (a *API) handleEvent(c *rtConn, data []byte) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return
	}
	var ev clientEvent
	if engine.CheckJSON(data) != nil || json.Unmarshal(data, &ev) != nil || ev.Type == "" {
		a.systemLocked(s, c, levelError, MsgWSInvalid)
		return
	}
	meta := map[string]any{}
	if ev.Metadata != nil {
		if custom, ok := ev.Metadata["custom"]; ok {
			meta["custom"] = custom
		}
	}
	switch ev.Type {
	case evHeartbeat:
		a.emitLocked(s, c, evHeartbeat, map[string]any{}, meta, false, itemOther)
	case evUserTyping:
		var p struct {
			State string `json:"state"`
		}
		if json.Unmarshal(ev.Payload, &p) != nil || p.State != "TYPING_STATE_STARTED" && p.State != "TYPING_STATE_STOPPED" {
			a.systemLocked(s, c, levelError, MsgWSInvalid)
			return
		}
		a.touchLocked(s)
	case evJoinRequest:
		a.touchLocked(s)
		a.emitLocked(s, nil, evJoinRequest, map[string]any{}, meta, true, itemOther)
		a.joinLocked(s, c)
	case evUserMessage:
		var p struct {
			Text *string `json:"text"`
		}
		if json.Unmarshal(ev.Payload, &p) != nil || p.Text == nil {
			a.systemLocked(s, c, levelError, MsgWSInvalid)
			return
		}
		a.touchLocked(s)
		a.emitLocked(s, nil, evUserMessage, map[string]any{"text": *p.Text, "message_id": a.MessagingMessageID()}, meta, true, itemOther)
		a.userMessageLocked(s, c, *p.Text, meta)
	case evUserEnd:
		a.emitLocked(s, nil, evUserEnd, map[string]any{}, meta, true, itemOther)
		a.endSessionLocked(s, reasonUserEnd, wsCloseNormal, "session ended", "user")
	default:
		if eventTypeRE.MatchString(ev.Type) {
			a.systemLocked(s, c, levelError, MsgWSNotAllowed+ev.Type)
		} else {
			a.systemLocked(s, c, levelError, MsgWSInvalid)
		}
	}
}

// joinLocked lets the agent join, starting the WEBCHAT conversation.
func (a *API) joinLocked(s *rtSession, c *rtConn) {
	if s.joined {
		a.systemLocked(s, c, levelWarning, MsgWSAlreadyIn)
		return
	}
	w := a.View()
	acct := w.Account(s.accountID)
	proj := acct.Project(s.projectID)
	if acct == nil || proj == nil {
		a.systemLocked(s, c, levelError, MsgMessagingNoSession)
		return
	}
	conv, out, err := a.StartConversation(engine.ConvStart{
		Region: s.region, Account: acct, Project: proj, Environment: s.environment,
		Channel: "WEBCHAT", ChatChannel: "webchat", Variant: engine.SessionVariant(proj, s.variantID),
		State: map[string]any{"messaging_session_id": s.id, "platform": s.platform},
	})
	if err != nil {
		a.Log.Error("start messaging conversation", "session", s.id, "err", err)
		a.systemLocked(s, c, levelError, "Our system is experiencing high load. Please try again in a moment.")
		return
	}
	s.joined, s.convID = true, conv.ID
	a.emitLocked(s, nil, evAgentJoined, map[string]any{"agent_name": s.agent, "agent_avatar_url": s.avatar}, nil, true, itemOther)
	a.replyLocked(s, conv, out)
}

// userMessageLocked runs a user message through the dialogue engine.
func (a *API) userMessageLocked(s *rtSession, c *rtConn, text string, meta map[string]any) {
	switch {
	case !s.joined:
		a.systemLocked(s, c, levelWarning, MsgWSNotJoined)
		return
	case s.left:
		a.systemLocked(s, c, levelWarning, MsgWSAgentLeft)
		return
	}
	var md map[string]any
	if custom, ok := meta["custom"].(map[string]any); ok {
		md = custom
	}
	conv, out, err := a.Converse(s.region, s.convID, nil, engine.UserTurn{Text: text, Metadata: md})
	if err != nil {
		if errors.Is(err, engine.ErrConversationEnded) || errors.Is(err, engine.ErrNotFound) {
			a.systemLocked(s, c, levelWarning, MsgWSConvEnded)
			return
		}
		a.Log.Error("messaging turn", "session", s.id, "err", err)
		a.systemLocked(s, c, levelError, "Our system is experiencing high load. Please try again in a moment.")
		return
	}
	a.replyLocked(s, conv, out)
	if s.ended {
		return
	}
	if s.expireAfter > 0 {
		s.expireAfter--
		if s.expireAfter == 0 {
			a.endSessionLocked(s, reasonAbandoned, wsCloseExpired, "session expired", "expired")
		}
	}
}

// replyLocked sends the agent's outcome, then a handoff or the end.
func (a *API) replyLocked(s *rtSession, conv *engine.Conversation, out engine.Outcome) {
	a.emitLocked(s, nil, evAgentThinking, map[string]any{}, nil, false, itemOther)
	id := a.MessagingMessageID()
	msg := agentMessage{MessageID: id, Text: out.Text, Attachments: []any{}, ResponseSuggestions: []any{}}
	if s.streaming {
		chunks := chunkText(out.Text, a.View().Scenario().MessagingConfig().ChunkWords)
		for i, t := range chunks {
			kind := itemChunk
			if i == 0 {
				kind = itemFirstChunk
			}
			m := msg
			m.Text = t
			a.emitLocked(s, nil, evAgentChunk, agentChunk{agentMessage: m, ChunkIndex: i + 1, IsComplete: i == len(chunks)-1}, nil, true, kind)
		}
	} else {
		a.emitLocked(s, nil, evAgentMessage, msg, nil, true, itemAgentMessage)
	}
	switch {
	case out.Handoff != nil:
		a.emitLocked(s, nil, evAgentHandoff, map[string]any{"destination": out.Handoff.Destination, "reason": out.Handoff.Reason}, nil, true, itemOther)
		a.emitLocked(s, nil, evAgentLeft, map[string]any{}, nil, true, itemOther)
		s.left = true
	case !conv.InProgress:
		a.endSessionLocked(s, reasonNaturalEnd, wsCloseNormal, "session ended", "agent")
	}
}

// chunkText splits text into chunks of n words that concatenate to it.
func chunkText(text string, n int) []string {
	if n <= 0 {
		n = 1
	}
	var chunks []string
	words, start := 0, 0
	inWord := false
	for i, r := range text {
		space := r == ' ' || r == '\n' || r == '\t'
		if !space && !inWord {
			if words == n {
				chunks = append(chunks, text[start:i])
				start, words = i, 0
			}
			words++
		}
		inWord = !space
	}
	return append(chunks, text[start:])
}
