package handlers

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"reflect"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
)

// reqState is what the middleware and the handlers learn about one
// request, found through its response writer (stateOf) rather than gin
// context keys.
type reqState struct {
	api     *API
	carrier carrier
	// rec is the request's response writer (begin installs it).
	rec         recorder
	family      *Family
	correlation string
	// body is the request body as read; read-only: the journal keeps it.
	body      []byte
	bodyLarge bool
	// principal is the authenticated caller (nil before); it points at
	// principalVal.
	principal    *engine.Principal
	principalVal engine.Principal
	// faultBody marks an answer that is the fired rule's verbatim body.
	fault     string
	faultBody bool
	preset    faults.PresetCall // marked by markPreset
	hasPreset bool
	// op is the operation's catalogue index plus one (0: no route).
	op          int
	code        string
	firedPreset string
	warnings    []string
	// journalStatus overrides the journaled status when set (0: dropped).
	journalStatus     int
	hasJournalStatus  bool
	correlationHeader [1]string
	contentLength     [1]string
	bodyReader        bodyReader
}

// maxBodyPrealloc bounds the buffer readBody makes before a body arrives.
const maxBodyPrealloc = 64 << 10

type bodyReader struct{ bytes.Reader }

func (*bodyReader) Close() error { return nil }

// readBody is io.ReadAll(io.LimitReader(r, max)) into one buffer of the
// announced size, capped at first by maxBodyPrealloc so a client
// announcing much and sending little holds little.
func readBody(r io.Reader, size, max int64) ([]byte, error) {
	if size <= 0 || size >= max {
		return io.ReadAll(io.LimitReader(r, max))
	}
	lr := io.LimitedReader{R: r, N: max}
	// One byte more than announced, so the read that meets EOF needs no growth.
	b := make([]byte, 0, min(size+1, maxBodyPrealloc))
	for {
		n, err := lr.Read(b[len(b):cap(b)])
		b = b[:len(b)+n]
		if err == io.EOF {
			return b, nil
		}
		if err != nil {
			return b, err
		}
		if len(b) == cap(b) { // longer than announced (a server would refuse it)
			b = append(b, 0)[:len(b)]
		}
	}
}

// stateOf is the request's reqState, held by the recorder begin installed.
func stateOf(c *gin.Context) *reqState {
	if r, ok := c.Writer.(*recorder); ok {
		return r.st
	}
	panic("handlers: request state asked for outside the API's middleware")
}

// carrier is the response writer API.ServeHTTP gives gin, carrying the
// request's state to begin.
type carrier struct {
	http.ResponseWriter
	st *reqState
}

// Unwrap, Flush and Hijack reach the server's writer (for WebSocket).
func (w *carrier) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *carrier) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *carrier) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	return http.NewResponseController(w.ResponseWriter).Hijack()
}

// begin finds the request's state and puts its recorder in front of
// gin's writer.
func begin(c *gin.Context) {
	cw, ok := c.Writer.(interface{ Unwrap() http.ResponseWriter })
	if !ok {
		panic("handlers: the table's engine serves through API.ServeHTTP only")
	}
	car, ok := cw.Unwrap().(*carrier)
	if !ok {
		panic("handlers: the table's engine serves through API.ServeHTTP only")
	}
	st := car.st
	if fn := st.api.observe; fn != nil {
		defer observe(c, fn)()
	}
	st.rec = recorder{ResponseWriter: c.Writer, st: st}
	c.Writer = &st.rec
	c.Next()
}

// CorrelationHeader is echoed on every response (docs/api.md#errors;
// docs/fidelity.md M1.6).
const CorrelationHeader = "X-PolyAI-Correlation-Id"

// correlationKey is CorrelationHeader in canonical form.
const correlationKey = "X-Polyai-Correlation-Id"

func familyOf(c *gin.Context) *Family { return stateOf(c).family }

func correlationID(c *gin.Context) string { return stateOf(c).correlation }

// addWarning records a warning for the request journal.
func addWarning(c *gin.Context, format string, args ...any) {
	st := stateOf(c)
	st.warnings = append(st.warnings, fmt.Sprintf(format, args...))
}

// recovery turns a handler panic (a bug of the mock) into a 500 in the
// family's shape; http.ErrAbortHandler goes on, so a drop stays a drop.
func recovery(c *gin.Context) {
	defer func() {
		if r := recover(); r != nil {
			if err, ok := r.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(r)
			}
			a := stateOf(c).api
			a.Log.Error("handler panic", "path", c.Request.URL.Path, "panic", fmt.Sprint(r))
			a.render(c, &engine.Error{Kind: engine.KindInternal, Message: "Internal server error."})
		}
	}()
	c.Next()
}

// correlation echoes the client's X-PolyAI-Correlation-Id or mints one.
func correlation(c *gin.Context) {
	st := stateOf(c)
	id := c.GetHeader(correlationKey)
	if id == "" || len(id) > 200 {
		id = st.api.NewCorrelationID()
	}
	st.correlation, st.correlationHeader[0] = id, id
	c.Writer.Header()[correlationKey] = st.correlationHeader[:]
	c.Next()
}

// record reads the (bounded) request body, captures the response, and
// journals the request once done.
func record(c *gin.Context) {
	st := stateOf(c)
	a := st.api
	limit := a.View().MaxBody()
	if n := a.tab.maxBody[c.FullPath()]; n > limit {
		limit = n // a route's own larger limit (audio uploads)
	}
	if c.Request.ContentLength > limit {
		// Refused unread (413 after fault rules), so the answer never
		// waits for a body that may not come.
		st.bodyLarge = true
		c.Writer.Header().Set("Connection", "close")
	} else if c.Request.Body != nil && c.Request.Body != http.NoBody {
		data, err := readBody(c.Request.Body, c.Request.ContentLength, limit+1)
		if err != nil {
			// A partial body is never served as a whole one.
			panic(http.ErrAbortHandler)
		}
		if int64(len(data)) > limit {
			st.bodyLarge = true
			data = data[:limit]
		}
		st.body = data
		st.bodyReader.Reset(data)
		c.Request.Body = &st.bodyReader
	}
	// A protocol switch is journaled when its 101 is written.
	rec := &st.rec
	rec.limit, rec.a, rec.c, rec.at = a.journal.BodyLimit(), a, c, a.Clock().Now()
	defer func() {
		if v := recover(); v != nil {
			// Drops (0) and handler panics (500) are journaled too.
			status := http.StatusInternalServerError
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				status = 0
			}
			if !rec.journaled {
				st.journalStatus, st.hasJournalStatus = status, true
				a.journalRequest(c, st)
				a.cover(st, status)
				a.noteRuntimeError(c, status, rec.at)
			}
			panic(v)
		}
	}()
	c.Next()
	if !rec.journaled {
		a.journalRequest(c, st)
		a.cover(st, rec.Status())
		a.noteRuntimeError(c, rec.Status(), rec.at)
	}
}

// cover adds the request to the coverage counts, once, where it is
// journaled.
func (a *API) cover(st *reqState, status int) {
	a.coverage.Request(st.op-1, status, st.code, st.fault, st.firedPreset, coverage.SourceClient)
}

// recorder captures the first bytes of a response for the journal.
type recorder struct {
	gin.ResponseWriter
	st    *reqState // which holds this recorder
	body  []byte
	limit int
	// own is body's pool buffer when adopted; skip counts the adopted
	// bytes not written yet.
	own  *[]byte
	skip int
	// To journal the request on a protocol switch.
	a         *API
	c         *gin.Context
	at        time.Time
	journaled bool
}

// WriteHeader sets the status; a 101 journals the request at once, as the
// client may send its next request on reading it.
func (r *recorder) WriteHeader(code int) {
	r.ResponseWriter.WriteHeader(code)
	if code == http.StatusSwitchingProtocols && !r.journaled && r.a != nil {
		r.journaled = true
		r.a.journalRequest(r.c, r.st)
		r.a.cover(r.st, code)
	}
}

func (r *recorder) Write(b []byte) (int, error) {
	capture(r, b)
	return r.ResponseWriter.Write(b)
}

func (r *recorder) WriteString(s string) (int, error) {
	capture(r, s)
	return r.ResponseWriter.WriteString(s)
}

// capture keeps the first bytes written for the journal, past skip.
func capture[B string | []byte](r *recorder, b B) {
	if n := min(len(b), r.skip); n > 0 {
		r.skip -= n
		b = b[n:]
	}
	if room := r.limit - len(r.body); room > 0 && len(b) > 0 {
		r.body = append(r.body, b[:min(len(b), room)]...)
		r.own = nil // body is no longer the adopted buffer
	}
}

// adopt makes an answer buffer (jsonw.GetBuf) the journal's copy of the
// whole body, uncopied, if it fits; when it does, the caller writes its
// bytes next and never touches it again.
func (r *recorder) adopt(buf *[]byte) bool {
	b := *buf
	if r.a == nil || r.journaled || len(r.body) > 0 || len(b) == 0 || len(b) > r.limit || cap(b) > 2*r.limit {
		return false
	}
	r.body, r.own, r.skip = b[:len(b):len(b)], buf, len(b)
	return true
}

// handlerFunc is every handler: a method expression of API that writes
// its success answer or returns an error.
type handlerFunc func(a *API, c *gin.Context) error

// dispatch serves a route (op: its catalogue index): fault rules,
// authentication and the body bound, then the handler.
func dispatch(r Route, op int) gin.HandlerFunc {
	return func(c *gin.Context) {
		st := stateOf(c)
		st.family, st.op = r.fam, op+1
		if err := st.api.serve(c, r.fam, r.h); err != nil {
			st.api.render(c, err)
		}
	}
}

func (a *API) serve(c *gin.Context, f *Family, h handlerFunc) error {
	if f.Base != "messaging" {
		if _, ok := engine.RegionPair(f.Base, c.Param("region")); !ok {
			return regionError(f, c.Param("region"))
		}
	}
	if done, err := a.applyFault(c, f); done || err != nil {
		return err
	}
	if stateOf(c).bodyLarge {
		return engine.Errf(engine.KindTooLarge, "PAYLOAD_TOO_LARGE", "Request body exceeds %d bytes.", max(a.View().MaxBody(), a.tab.maxBody[c.FullPath()]))
	}
	if f.Headers != nil {
		st := stateOf(c)
		if err := a.authenticate(c, f, &st.principalVal); err != nil {
			return err
		}
		st.principal = &st.principalVal
	}
	return h(a, c)
}

// regionError is the answer to an address without a valid region
// (docs/api.md#addresses; docs/fidelity.md M1.5).
func regionError(f *Family, region string) *engine.Error {
	valid := "us-1, uk-1 or euw-1"
	base := "runtime"
	if f.Base == "builder" {
		valid, base = "us, uk or eu", "builder"
	}
	return &engine.Error{Kind: engine.KindNotFound, Code: "REGION_REQUIRED",
		Message: fmt.Sprintf("Unknown region %q: use /%s/{region}/... with region %s.", region, base, valid)}
}

// applyFault applies the first fault rule that fires; done reports that
// the rule answered (or dropped) the request.
func (a *API) applyFault(c *gin.Context, f *Family) (done bool, err error) {
	if a.Faults().Len() == 0 {
		return false, nil
	}
	req := faults.Request{
		Family: f.Name,
		Method: c.Request.Method,
		Path:   engine.SubPath(c.Request.URL.Path),
		Region: c.Param("region"),
		Header: c.GetHeader,
		Query:  c.GetQuery,
		Time:   stateOf(c).rec.at, // a timeline's fault windows hold by it
	}
	rule, ok := a.Faults().Match(req)
	if !ok {
		return false, nil
	}
	stateOf(c).fault = rule.ID
	act := rule.Action
	if d := act.Delay.D(); d > 0 {
		if act.DelayClock == "virtual" {
			if _, err := a.Clock().Advance(c.Request.Context(), d); err != nil {
				panic(http.ErrAbortHandler)
			}
		} else if err := sleepCtx(c.Request.Context(), d); err != nil {
			panic(http.ErrAbortHandler) // never answered as if served
		}
	}
	if act.Drop {
		panic(http.ErrAbortHandler)
	}
	if act.Preset != "" {
		if p := a.preset(act.Preset); p != nil {
			stateOf(c).firedPreset = act.Preset
			return p(c, rule)
		}
		return true, &engine.Error{Kind: engine.KindInternal, Message: fmt.Sprintf("unknown fault preset %q", act.Preset)}
	}
	if act.Status == 0 && act.Body == "" {
		return false, nil // a pure delay
	}
	e := &engine.Error{Status: act.Status, Code: act.Code, Message: act.Message, Headers: act.Headers}
	if e.Status == 0 {
		e.Status = http.StatusInternalServerError
	}
	if e.Message == "" {
		e.Message = defaultMessage(e.Status)
	}
	if act.Body != "" {
		e.Body = []byte(act.Body)
		stateOf(c).faultBody = true
	}
	return true, e
}

// presetFunc applies a named failure mode of a family.
type presetFunc func(c *gin.Context, r faults.Rule) (done bool, err error)

// preset returns the family's way of applying a named failure mode, or
// nil.
func (a *API) preset(name string) presetFunc {
	call, err := a.tab.faults.ParsePreset(name)
	if err != nil {
		return nil
	}
	if f := a.tab.family(call.Family); f != nil && f.ApplyPreset != nil {
		return f.ApplyPreset(a, call)
	}
	return nil
}

// markPreset marks the request with a preset its handler applies.
func markPreset(_ *API, call faults.PresetCall) presetFunc {
	return func(c *gin.Context, _ faults.Rule) (bool, error) {
		st := stateOf(c)
		st.preset, st.hasPreset = call, true
		return false, nil
	}
}

func requestPreset(c *gin.Context) (faults.PresetCall, bool) {
	st := stateOf(c)
	return st.preset, st.hasPreset
}

func defaultMessage(status int) string {
	if t := http.StatusText(status); t != "" {
		return t + "."
	}
	return fmt.Sprintf("Error %d.", status)
}

// sleepCtx waits d of wall time or until ctx ends.
func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// fieldNames caches jsonFields (reflect.Type → map[string]bool, read-only).
var fieldNames sync.Map

// jsonFields lists the json names of a struct type's fields.
func jsonFields(t reflect.Type) map[string]bool {
	if m, ok := fieldNames.Load(t); ok {
		return m.(map[string]bool)
	}
	m, _ := fieldNames.LoadOrStore(t, structFields(t))
	return m.(map[string]bool)
}

func structFields(t reflect.Type) map[string]bool {
	out := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = true
	}
	return out
}

func jsonTypeName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Map, reflect.Struct:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Pointer:
		return jsonTypeName(t.Elem())
	}
	return "of type " + t.String()
}

// handleNoRoute answers an unknown route with JSON in the family's shape.
func handleNoRoute(c *gin.Context) {
	st := stateOf(c)
	a := st.api
	p := c.Request.URL.Path
	f := a.tab.familyOfPath(p)
	if f != nil {
		st.family = f
		if f.Base != "messaging" {
			if _, ok := engine.RegionPair(f.Base, engine.RegionOf(p)); !ok {
				a.render(c, regionError(f, engine.RegionOf(p)))
				return
			}
		}
	}
	a.render(c, &engine.Error{Kind: engine.KindNotFound, Code: "NOT_FOUND",
		Message: fmt.Sprintf("No route for %s %s.", c.Request.Method, p)})
}

// handleNoMethod answers a known route with the wrong method (405).
func handleNoMethod(c *gin.Context) {
	st := stateOf(c)
	a := st.api
	if f := a.tab.familyOfPath(c.Request.URL.Path); f != nil {
		st.family = f
	}
	a.render(c, &engine.Error{Kind: engine.KindMethodNotAllowed, Code: "METHOD_NOT_ALLOWED",
		Message: fmt.Sprintf("Method %s is not allowed here; allowed: %s.", c.Request.Method, c.Writer.Header().Get("Allow"))})
}
