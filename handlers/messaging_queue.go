package handlers

// The messaging WebSocket's bounded send queue (docs/fidelity.md M13.3),
// so a client that stops reading cannot make the mock grow: past the
// limits the socket closes with 1013 and the client reconnects with its
// cursor. A small kernel send buffer makes such a client show soon.

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

// enqueueLocked adds an item, or past the bound drops the queue and
// closes the socket with 1013. c.mu must be held.
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

// sendBufferWriter sets a hijacked connection's send buffer.
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
