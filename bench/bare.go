package main

// The bare server: a plain net/http server that answers each request of a
// load with the bytes mockd answered for it (status, headers, body and the
// body's framing), looked up by method and request URI. What separates its
// throughput from mockd's is mockd's own work, not the size of the answer.

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"time"
)

// answer is what mockd answered to one request.
type answer struct {
	Status int         `json:"status"`
	Header http.Header `json:"header"` // every header but Date; Content-Length when mockd sent one
	Body   []byte      `json:"body"`
}

// answerKey is the key of a request in the bare server's table.
func answerKey(method, requestURI string) string { return method + " " + requestURI }

// captureAnswer reads an answer off a response (it closes the body).
func captureAnswer(resp *http.Response) (*answer, error) {
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	h := resp.Header.Clone()
	h.Del("Date")
	if slices.Contains(resp.TransferEncoding, "chunked") {
		h.Set("Transfer-Encoding", "chunked") // kept only to compare framing
	}
	return &answer{Status: resp.StatusCode, Header: h, Body: body}, nil
}

// sameAnswer reports how b differs from a, or "" when it does not.
func sameAnswer(a, b *answer) string {
	switch {
	case a.Status != b.Status:
		return fmt.Sprintf("status %d, want %d", b.Status, a.Status)
	case string(a.Body) != string(b.Body):
		return fmt.Sprintf("body of %d bytes differs from mockd's %d bytes", len(b.Body), len(a.Body))
	}
	for k, v := range a.Header {
		if !slices.Equal(b.Header[k], v) {
			return fmt.Sprintf("header %s is %q, want %q", k, b.Header[k], v)
		}
	}
	for k := range b.Header {
		if _, ok := a.Header[k]; !ok {
			return fmt.Sprintf("extra header %s", k)
		}
	}
	return ""
}

// bareHandler answers from a fixed table.
type bareHandler map[string]*answer

func (h bareHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if _, err := io.Copy(io.Discard, r.Body); err != nil {
		return
	}
	a := h[answerKey(r.Method, r.RequestURI)]
	if a == nil {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = io.WriteString(w, `{"error":"the bare server has no answer for this request"}`)
		return
	}
	hdr := w.Header()
	for k, v := range a.Header {
		if k != "Transfer-Encoding" {
			hdr[k] = v
		}
	}
	w.WriteHeader(a.Status)
	_, _ = w.Write(a.Body) // a write error is the client's disconnect
}

// bareMain serves the answers of a file (a JSON object of answerKey to
// answer) on -addr until SIGTERM; it prints "listening on ADDR" first.
func bareMain(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("bare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	path := fs.String("answers", "", "answers file")
	addr := fs.String("addr", "127.0.0.1:0", "listen address")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	b, err := os.ReadFile(*path)
	if err != nil {
		fmt.Fprintln(stderr, "bare:", err)
		return 1
	}
	var h bareHandler
	if err := json.Unmarshal(b, &h); err != nil {
		fmt.Fprintln(stderr, "bare:", *path+":", err)
		return 1
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(stderr, "bare:", err)
		return 1
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintln(stdout, "listening on", ln.Addr())
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = srv.Shutdown(sctx)
		cancel()
		if err == nil {
			err = <-errc
		}
	}
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		fmt.Fprintln(stderr, "bare:", err)
		return 1
	}
	return 0
}
