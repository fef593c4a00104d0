package main

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The shutdown tests run mockd as a process (the test binary re-executed,
// see TestMain) and send it real signals.

// holdRequest starts a chat create on a raw connection with "Expect:
// 100-continue" and returns once the server's handler reads its body (the
// server answers "100 Continue"): the request is in flight. The body is
// sent by the returned function; until then the handler waits for it and
// nothing, not even a cancelled context, moves it on.
func holdRequest(t *testing.T, base string) (conn net.Conn, br *bufio.Reader, sendBody func()) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	write(t, conn, "POST "+chatPath+"/create HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: test-chat-key\r\nX-TOKEN: test-connector-token\r\n"+
		"Content-Type: application/json\r\nContent-Length: 2\r\nExpect: 100-continue\r\n\r\n")
	br = bufio.NewReader(conn)
	for _, want := range []string{"HTTP/1.1 100 Continue\r\n", "\r\n"} {
		if l, err := br.ReadString('\n'); err != nil || l != want {
			t.Fatalf("read %q, %v; want %q", l, err, want)
		}
	}
	return conn, br, func() { write(t, conn, "{}") }
}

// TestShutdownWaitsForRequests: on SIGTERM, a request in flight is still
// answered, then mockd exits 0.
func TestShutdownWaitsForRequests(t *testing.T) {
	t.Parallel()
	p := startProcess(t, "--addr", "127.0.0.1:0")
	_, br, sendBody := holdRequest(t, p.base)
	p.signal(syscall.SIGTERM)
	p.waitLog(`msg="shutting down" cause=terminated grace=10s requests=1`)
	sendBody()
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("the request in flight was not answered: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Errorf("the request in flight: %d", resp.StatusCode)
	}
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "level=INFO msg=stopped\n") {
		t.Errorf("no stopped line:\n%s", p.stderr.String())
	}
}

// TestShutdownCancelsRequests: on SIGINT, the contexts of the requests in
// flight end, so a fault's 15 s delay stops at once and its request is
// dropped; mockd exits 0 (it would exit 1 after its grace had the delay
// held the shutdown up).
func TestShutdownCancelsRequests(t *testing.T) {
	t.Parallel()
	p := startProcess(t, "--addr", "127.0.0.1:0", "--shutdown-grace", "5s")
	req, _ := http.NewRequest("POST", p.base+"/_mock/faults", strings.NewReader(`{"match":{"family":"chat"},"action":{"delay":"15s"}}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 201 {
		t.Fatalf("fault: %v %v", err, resp)
	}
	resp.Body.Close()
	conn, br, sendBody := holdRequest(t, p.base)
	sendBody() // the handler goes on into the delay
	p.signal(syscall.SIGINT)
	if got, err := io.ReadAll(br); err != nil || len(got) != 0 {
		t.Errorf("the delayed request: %q, %v; want the connection closed without an answer", got, err)
	}
	conn.Close()
	if code := p.wait(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, p.stderr.String())
	}
}

// TestShutdownGrace: a request that outlives the grace (its body never
// comes, and a cancelled context does not move a body read on) is
// abandoned: mockd exits 1 within the grace and a second, saying so.
func TestShutdownGrace(t *testing.T) {
	t.Parallel()
	const grace = time.Second
	p := startProcess(t, "--addr", "127.0.0.1:0", "--shutdown-grace", grace.String())
	_, br, _ := holdRequest(t, p.base)
	start := time.Now()
	p.signal(syscall.SIGTERM)
	code := p.wait()
	elapsed := time.Since(start)
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	// The held request never ends, so mockd exits only because the grace
	// ran out. By its own log, it gives up within grace + 1 s of starting
	// to shut down; seen from here, the exit also waits for this process
	// to be scheduled, which a busy machine delays, hence the wider bound.
	shutting, gaveUp := logTime(t, p.stderr.String(), `msg="shutting down"`), logTime(t, p.stderr.String(), `msg="shutdown grace exceeded`)
	if d := gaveUp.Sub(shutting); d < grace || d > grace+time.Second {
		t.Errorf("mockd gave up %v after it began shutting down; the grace is %v", d, grace)
	}
	if elapsed < grace || elapsed > grace+10*time.Second {
		t.Errorf("exited %v after SIGTERM; the grace is %v", elapsed, grace)
	}
	if want := `level=ERROR msg="shutdown grace exceeded: abandoning the requests in flight" grace=1s requests=1`; !strings.Contains(p.stderr.String(), want) {
		t.Errorf("logs lack %q:\n%s", want, p.stderr.String())
	}
	if got, _ := io.ReadAll(br); len(got) != 0 {
		t.Errorf("the abandoned request was answered: %q", got)
	}
}

// TestShutdownSecondSignal: a second signal ends the wait at once.
func TestShutdownSecondSignal(t *testing.T) {
	t.Parallel()
	p := startProcess(t, "--addr", "127.0.0.1:0", "--shutdown-grace", "1m")
	holdRequest(t, p.base)
	p.signal(syscall.SIGTERM)
	p.waitLog(`msg="shutting down"`)
	start := time.Now()
	p.signal(syscall.SIGINT)
	code := p.wait()
	if elapsed := time.Since(start); elapsed > 5*time.Second {
		t.Errorf("exited %v after the second signal", elapsed)
	}
	if code != 1 {
		t.Errorf("exit %d, want 1", code)
	}
	if want := `level=ERROR msg="second signal: exiting now, abandoning the requests in flight" signal=interrupt requests=1`; !strings.Contains(p.stderr.String(), want) {
		t.Errorf("logs lack %q:\n%s", want, p.stderr.String())
	}
}

// TestShutdownIdle: with nothing in flight, SIGTERM and SIGINT both stop
// mockd with exit 0.
func TestShutdownIdle(t *testing.T) {
	t.Parallel()
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		p := startProcess(t, "--addr", "127.0.0.1:0")
		p.signal(sig)
		if code := p.wait(); code != 0 {
			t.Fatalf("%v: exit %d:\n%s", sig, code, p.stderr.String())
		}
		for _, want := range []string{`msg="shutting down" cause=` + sig.String(), "msg=stopped"} {
			if !strings.Contains(p.stderr.String(), want) {
				t.Errorf("%v: logs lack %q:\n%s", sig, want, p.stderr.String())
			}
		}
	}
}

// logTime is the time= of the first log line that contains msg.
func logTime(t *testing.T, logs, msg string) time.Time {
	t.Helper()
	for line := range strings.Lines(logs) {
		if !strings.Contains(line, msg) {
			continue
		}
		v, ok := strings.CutPrefix(line, "time=")
		if !ok {
			break
		}
		v, _, _ = strings.Cut(v, " ")
		tm, err := time.Parse(time.RFC3339Nano, v)
		if err != nil {
			t.Fatalf("log line %q: %v", line, err)
		}
		return tm
	}
	t.Fatalf("no timed log line with %q in:\n%s", msg, logs)
	return time.Time{}
}
