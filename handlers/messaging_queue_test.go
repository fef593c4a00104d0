//go:build unix

package handlers

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// smallReceiveBuffer dials with a 4 KiB kernel receive buffer, so that
// what a client leaves unread reaches the mock's send queue soon.
func smallReceiveBuffer() *http.Client {
	d := &net.Dialer{Control: func(_, _ string, rc syscall.RawConn) error {
		var err error
		if cerr := rc.Control(func(fd uintptr) {
			err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4<<10)
		}); cerr != nil {
			return cerr
		}
		return err
	}}
	return &http.Client{Transport: &http.Transport{DialContext: d.DialContext}}
}

// TestMessagingSendQueueBound: a client that sends and does not read gets
// its socket closed with 1013 and MsgWSQueueFull once the events it left
// unread pass limits.ws_send_queue_messages (beyond what the kernel
// holds); the socket stops handling its events meanwhile (the history
// stops growing); reconnecting with the last sequence it read as cursor
// replays every persistent event it missed, none lost.
func TestMessagingSendQueueBound(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
limits: {ws_send_queue_messages: 10}
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [localhost]}
`)
	srv := msgServer(h)
	tok := msgToken2(h, "ct")
	sid := msgSession(h, tok, true)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, msgDialURL(srv, sid, tok, ""), &websocket.DialOptions{HTTPClient: smallReceiveBuffer()})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	conn.SetReadLimit(1 << 22)
	ws := &wsClient{t: t, conn: conn}
	ws.send(evJoinRequest, map[string]any{})
	// Replies of far more than the kernel buffers hold (each reply is an
	// echo, a thinking event and chunks of about 300 bytes each).
	const sent = 1000
	for range sent {
		ws.send(evUserMessage, map[string]any{"text": "what are your opening hours on a public holiday?"})
	}
	last := 0
	for {
		ev, err := ws.tryRead(time.Minute)
		if err != nil {
			var ce websocket.CloseError
			if !errors.As(err, &ce) || ce.Code != wsCloseQueueFull || ce.Reason != MsgWSQueueFull {
				t.Fatalf("the socket ended with %v, want %d %q", err, wsCloseQueueFull, MsgWSQueueFull)
			}
			break
		}
		// The opening history batch (SESSION_START) may come before the
		// echo of the join or after it: its sequences count as read too.
		var seqs []float64
		if ev["type"] == evBatch {
			seqs = batchSeqs(t, ev)
		} else if seq, ok := ev["sequence"].(float64); ok {
			seqs = []float64{seq}
		}
		for _, seq := range seqs {
			if int(seq) != last+1 {
				t.Fatalf("sequence %v after %d", seq, last)
			}
			last = int(seq)
		}
	}
	info := h.api.MessagingSessions()
	if len(info) != 1 {
		t.Fatalf("sessions %+v", info)
	}
	history := info[0].Events // the last sequence
	if history <= last || history >= 4*sent {
		t.Fatalf("history of %d events after %d read; every message handled would make more than %d", history, last, 4*sent)
	}
	again := msgDial(t, srv, sid, tok, strconv.Itoa(last))
	for first := true; last < history; first = false {
		for _, seq := range batchSeqs(t, again.expect(evBatch, -1, nil)) {
			if first && seq == 1 && last > 0 {
				continue // SESSION_START, which every replay starts with
			}
			if int(seq) != last+1 {
				t.Fatalf("replayed sequence %v after %d", seq, last)
			}
			last = int(seq)
		}
	}
	// The session goes on: the new socket's events are handled.
	again.send(evHeartbeat, map[string]any{})
	again.expect(evHeartbeat, -1, nil)
}

// TestMessagingReplayNotBounded: the history a socket is sent when it
// opens does not count against the send queue's bound, so a client with a
// long history to catch up on is not closed for it.
func TestMessagingReplayNotBounded(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
limits: {ws_send_queue_bytes: 2000}
accounts:
  - slug: acme
    id: "1001"
    projects: [{slug: support, id: "2001"}]
credentials:
  - {kind: connector, key: ct, account: acme, project: support, hosts: [localhost]}
`)
	srv := msgServer(h)
	tok := msgToken2(h, "ct")
	sid := msgSession(h, tok, false)
	ws := msgJoin(t, srv, sid, tok)
	for i := range 3 {
		ws.send(evUserMessage, map[string]any{"text": "hours"})
		ws.expect(evUserMessage, 5+2*i, nil)
		ws.expect(evAgentThinking, -1, nil)
		ws.expect(evAgentMessage, 6+2*i, nil)
	}
	_ = ws.conn.Close(websocket.StatusNormalClosure, "")
	again := msgDial(t, srv, sid, tok, "")
	batch := again.expect(evBatch, -1, nil)
	if data, _ := json.Marshal(batch); len(data) <= 2000 {
		t.Fatalf("a replay of %d bytes: the test needs more than the bound", len(data))
	}
	again.send(evHeartbeat, map[string]any{})
	again.expect(evHeartbeat, -1, nil)
}
