package mockplatform

// growStack grows the running goroutine's stack, at a shallow point, to
// what handling a request takes (under 16 KiB, as measured). net/http
// serves each connection on a new goroutine whose stack starts small;
// left alone, it grows several times deep in the handlers, and each
// growth copies the stack and adjusts every frame on it (about 25 µs of
// CPU, a third of serving a test's first request: BenchmarkStart). Here
// it grows once, with few frames to adjust. On a goroutine whose stack
// is large enough already (a test calling through Client) it only zeroes
// the frame.
//
//go:noinline
func growStack() byte {
	var frame [8 << 10]byte
	return lastByte(frame[:])
}

// lastByte reads b so that growStack's frame is kept (b does not escape:
// the frame stays on the stack).
//
//go:noinline
func lastByte(b []byte) byte { return b[len(b)-1] }
