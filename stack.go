package mockplatform

// growStack grows the goroutine's stack once, at a shallow point, to what
// handling a request takes: net/http starts each connection's goroutine
// with a small stack that would otherwise grow, and be copied, several
// times deep in the handlers.
//
//go:noinline
func growStack() byte {
	var frame [8 << 10]byte
	return lastByte(frame[:])
}

// lastByte reads b so that growStack's frame is kept.
//
//go:noinline
func lastByte(b []byte) byte { return b[len(b)-1] }
