package handlers

// The messaging WebSocket's send queue bound (docs/api.md#messaging-ws;
// docs/fidelity.md M13.3). A client that stops reading (a test that
// forgets to, a stalled browser) would otherwise make the mock hold every
// event it is sent, and keep handling the events it sends, growing the
// session's history without end. So:
//
//   - the kernel holds little of a socket's unread events: its send
//     buffer is wsSendBuffer, not the megabytes TCP grows it to, so that
//     a client that does not read shows in the queue soon;
//   - the queue holds at most limits.ws_send_queue_messages events and
//     limits.ws_send_queue_bytes bytes (defaults 256 and 256 KiB; the
//     history batches of a socket's opening are not counted);
//   - past either, the queue is dropped, the socket stops handling its
//     client's events, and the writer closes it with 1013 (try again
//     later) and the reason MsgWSQueueFull as soon as the client reads
//     what is in flight (a client that never reads is dropped by the
//     write timeout). Every persistent event stays in the history: the
//     client reconnects with the last sequence it read as cursor and is
//     sent the rest.

import (
	"bufio"
	"net"
	"net/http"

	"github.com/gin-gonic/gin"
)

// MsgWSQueueFull is the close reason of a socket whose send queue
// overflowed.
const MsgWSQueueFull = "send queue full: the client did not read; reconnect with the last sequence read as cursor"

// wsSendBuffer is the kernel send buffer of a messaging WebSocket.
const wsSendBuffer = 64 << 10

// queueSize is a number of events and their bytes.
type queueSize struct {
	items int
	bytes int64
}

// enqueueLocked adds an item to the queue, or, when it would take the
// queue past its bound, drops the queue and closes the socket with 1013.
// c.mu must be held.
func (c *rtConn) enqueueLocked(it wsItem) {
	it.counted = it.kind != itemReplay
	if it.counted && (c.held.items+1 > c.bound.items || c.held.bytes+int64(len(it.data)) > c.bound.bytes) {
		clear(c.queue)
		c.queue, c.held = nil, queueSize{}
		c.closing = &wsClose{wsCloseQueueFull, MsgWSQueueFull}
		c.overflowed.Store(true)
		return
	}
	c.queue = append(c.queue, it)
	if it.counted {
		c.held.items++
		c.held.bytes += int64(len(it.data))
	}
}

// dequeueLocked takes the queue's first item. c.mu must be held.
func (c *rtConn) dequeueLocked() wsItem {
	it := c.queue[0]
	c.queue[0] = wsItem{}
	c.queue = c.queue[1:]
	if it.counted {
		c.held.items--
		c.held.bytes -= int64(len(it.data))
	}
	return it
}

// sendBufferWriter sets the kernel send buffer of the connection a
// WebSocket hijacks to wsSendBuffer.
type sendBufferWriter struct{ gin.ResponseWriter }

func (w sendBufferWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	conn, rw, err := w.ResponseWriter.Hijack()
	if err == nil {
		if sb, ok := conn.(interface{ SetWriteBuffer(int) error }); ok {
			_ = sb.SetWriteBuffer(wsSendBuffer) // a best effort: the queue's bound holds without it
		}
	}
	return conn, rw, err
}

// Unwrap is the ResponseWriter under it (http.ResponseController).
func (w sendBufferWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
