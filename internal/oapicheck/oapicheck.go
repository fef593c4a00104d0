// Package oapicheck checks exchanges against docs/openapi.json with
// kin-openapi. Test suites hand it every exchange they cause
// (engine.Config.Observe), so the document cannot drift from the code.
// Only tests import it (imports_test.go keeps it so).
package oapicheck

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/agentplatform/mockplatform/internal/openapigen"
)

// Exchange is one request and its answer, as the API served it.
type Exchange struct {
	Request *http.Request
	Body    []byte
	// Route is gin's route template ("" when no route matched).
	Route  string
	Params map[string]string
	// Status is 0 for a dropped connection.
	Status   int
	Header   http.Header
	Response []byte
	// FaultBody: the fault rule that fired answered with a verbatim body.
	Fault     string
	FaultBody bool
}

// Checker checks exchanges against a document and counts them.
type Checker struct {
	doc    *openapi3.T
	bodies *bodies

	mu     sync.Mutex
	counts Counts
	// verdicts caches verdicts by digest, as suites repeat exchanges.
	verdicts map[[32]byte]verdict
	ops      map[string]bool // operations checked, "METHOD path"
}

type verdict struct {
	err     error
	refused bool
}

// Counts are what a Checker saw.
type Counts struct {
	// Refused counts checked requests the document refuses (answered
	// with a documented error).
	Checked, Refused int
	// Unrouted requests matched no route, Dropped got no answer, Verbatim
	// got a fault rule's own body: their answers are not checked.
	Unrouted, Dropped, Verbatim int
	Failed                      int
	// Operations is how many of Documented were checked at least once.
	Operations, Documented int
}

var registerDecoders sync.Once

// String summarises the counts.
func (n Counts) String() string {
	return fmt.Sprintf("%d exchanges checked over %d of %d operations (%d of them requests the document refuses, answered with a documented error); "+
		"not checked: %d unrouted, %d dropped, %d fault rules' verbatim bodies; %d failed",
		n.Checked, n.Operations, n.Documented, n.Refused, n.Unrouted, n.Dropped, n.Verbatim, n.Failed)
}

// New loads a document (JSON).
func New(doc []byte) (*Checker, error) {
	registerDecoders.Do(func() {
		// kin-openapi has no XML decoder: read XML as text.
		for _, mt := range []string{"application/xml", "text/xml"} {
			openapi3filter.RegisterBodyDecoder(mt, func(r io.Reader, _ http.Header, _ *openapi3.SchemaRef, _ openapi3filter.EncodingFn) (any, error) {
				b, err := io.ReadAll(r)
				return string(b), err
			})
		}
		openapi3filter.RegisterBodyDecoder("audio/wav", openapi3filter.FileBodyDecoder)
	})
	loader := openapi3.NewLoader()
	t, err := loader.LoadFromData(doc)
	if err != nil {
		return nil, err
	}
	if err := t.Validate(context.Background()); err != nil {
		return nil, err
	}
	b, err := newBodies(doc)
	if err != nil {
		return nil, err
	}
	n := 0
	for _, item := range t.Paths.Map() {
		n += len(item.Operations())
	}
	return &Checker{doc: t, bodies: b, verdicts: map[[32]byte]verdict{}, ops: map[string]bool{}, counts: Counts{Documented: n}}, nil
}

// Counts returns what the checker saw so far.
func (c *Checker) Counts() Counts {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.counts
}

func (c *Checker) count(f func(*Counts)) {
	c.mu.Lock()
	f(&c.counts)
	c.mu.Unlock()
}

// Check checks one exchange: the route and the answer's status must be
// documented (the default answer is for fault rules), and a request the
// document refuses must have been refused with a documented error.
func (c *Checker) Check(ex Exchange) (err error) {
	defer func() {
		if err != nil {
			c.count(func(n *Counts) { n.Failed++ })
			err = fmt.Errorf("%s %s (%d): %w", ex.Request.Method, ex.Request.URL.RequestURI(), ex.Status, err)
		}
	}()
	switch {
	case ex.Route == "":
		c.count(func(n *Counts) { n.Unrouted++ })
		return nil
	case ex.Status == 0:
		c.count(func(n *Counts) { n.Dropped++ })
		return nil
	}
	key := digest(ex)
	c.mu.Lock()
	v, seen := c.verdicts[key]
	c.mu.Unlock()
	if !seen {
		v.err, v.refused = c.check(ex)
		c.mu.Lock()
		c.verdicts[key] = v
		c.mu.Unlock()
	}
	if v.err != nil {
		return v.err
	}
	c.count(func(n *Counts) {
		switch {
		case ex.FaultBody:
			n.Verbatim++
		default:
			n.Checked++
			if v.refused {
				n.Refused++
			}
			path, _ := openapigen.Path(ex.Route)
			if op := ex.Request.Method + " " + path; !c.ops[op] {
				c.ops[op] = true
				n.Operations++
			}
		}
	})
	return nil
}

// digest identifies an exchange by everything its verdict depends on.
func digest(ex Exchange) [32]byte {
	h := sha256.New()
	w := func(s string) { h.Write([]byte(s)); h.Write([]byte{0}) }
	w(ex.Request.Method)
	w(ex.Route)
	w(ex.Request.URL.RawQuery)
	for _, k := range slices.Sorted(maps.Keys(ex.Params)) {
		w(k + "=" + ex.Params[k])
	}
	for _, k := range slices.Sorted(maps.Keys(ex.Request.Header)) {
		w(k)
	}
	w(ex.Request.Header.Get("Content-Type"))
	w(string(ex.Body))
	w(strconv.Itoa(ex.Status))
	w(ex.Fault)
	w(strconv.FormatBool(ex.FaultBody))
	// The correlation id differs per request and does not decide the verdict.
	corr := ex.Header.Get("X-PolyAI-Correlation-Id")
	for _, k := range slices.Sorted(maps.Keys(ex.Header)) {
		if http.CanonicalHeaderKey(k) == "X-Polyai-Correlation-Id" {
			w(k) // present
			continue
		}
		w(k + ":" + strings.Join(ex.Header[k], ","))
	}
	resp := ex.Response
	if corr != "" {
		resp = bytes.ReplaceAll(resp, []byte(corr), nil)
	}
	w(string(resp))
	var out [32]byte
	copy(out[:], h.Sum(nil))
	return out
}

// check checks an exchange; refused reports that the document refuses its
// request.
func (c *Checker) check(ex Exchange) (err error, refused bool) {
	path, _ := openapigen.Path(ex.Route)
	item := c.doc.Paths.Value(path)
	if item == nil || item.GetOperation(ex.Request.Method) == nil {
		return &Failure{Kind: KindRoute, err: fmt.Errorf("route %s %s is not in the document", ex.Request.Method, path)}, false
	}
	op := item.GetOperation(ex.Request.Method)
	route := &routers.Route{Spec: c.doc, Path: path, PathItem: item, Method: ex.Request.Method, Operation: op}

	req := ex.Request.Clone(context.Background())
	req.Body = io.NopCloser(bytes.NewReader(ex.Body))
	req.ContentLength = int64(len(ex.Body))
	var reqSchema *openapi3.SchemaRef // a JSON body's schema: checked here (bodies.go)
	if len(bytes.TrimSpace(ex.Body)) > 0 && op.RequestBody != nil && op.RequestBody.Value != nil {
		// The mock reads a body as JSON unless the operation lists its type.
		mt, _, _ := mime.ParseMediaType(req.Header.Get("Content-Type"))
		if op.RequestBody.Value.Content.Get(mt) == nil {
			req.Header.Set("Content-Type", "application/json")
		}
		reqSchema = jsonSchema(op.RequestBody.Value.Content, req.Header.Get("Content-Type"))
	}
	opts := &openapi3filter.Options{MultiError: true, IncludeResponseStatus: true, AuthenticationFunc: present,
		ExcludeRequestBody: reqSchema != nil}
	in := &openapi3filter.RequestValidationInput{Request: req, PathParams: ex.Params, Route: route, Options: opts}
	reqErr := openapi3filter.ValidateRequest(context.Background(), in)
	if reqSchema != nil {
		if err := c.bodies.validate(reqSchema, ex.Body); err != nil {
			reqErr = errors.Join(reqErr, fmt.Errorf("request body: %w", err))
		}
	}

	if ex.FaultBody {
		return nil, false
	}
	status := strconv.Itoa(ex.Status)
	if ex.Fault == "" && op.Responses.Value(status) == nil {
		return &Failure{Kind: KindStatus, err: fmt.Errorf("status %d is not documented for %s %s (only fault rules answer the default)", ex.Status, ex.Request.Method, path)}, false
	}
	if reqErr != nil && ex.Status < 400 {
		return &Failure{Kind: KindRequest, Causes: []string{short(reqErr)},
			err: fmt.Errorf("the document refuses the request, the mock answered %d: %s", ex.Status, short(reqErr))}, false
	}
	respSchema := responseSchema(op, ex)
	respOpts := *opts
	respOpts.ExcludeResponseBody = respSchema != nil
	respErr := openapi3filter.ValidateResponse(context.Background(), &openapi3filter.ResponseValidationInput{
		RequestValidationInput: in, Status: ex.Status, Header: ex.Header,
		Body: io.NopCloser(bytes.NewReader(ex.Response)), Options: &respOpts,
	})
	if respErr == nil && respSchema != nil {
		if err := c.bodies.validate(respSchema, ex.Response); err != nil {
			respErr = fmt.Errorf("response body: %w", err)
		}
	}
	if respErr != nil {
		return &Failure{Kind: KindAnswer, Causes: causes(respErr),
			err: fmt.Errorf("the answer does not conform: %s\nbody: %s", short(respErr), clip(ex.Response))}, false
	}
	return nil, reqErr != nil
}

// responseSchema is the schema of a JSON answer's body as kin-openapi
// would pick it; nil when kin-openapi checks the body itself or not at all.
func responseSchema(op *openapi3.Operation, ex Exchange) *openapi3.SchemaRef {
	switch ex.Status {
	case http.StatusNotModified, http.StatusPermanentRedirect, http.StatusTemporaryRedirect, http.StatusMovedPermanently:
		return nil // kin-openapi never checks these
	}
	if ex.Request.Method == http.MethodHead || op.Responses == nil {
		return nil
	}
	ref := op.Responses.Status(ex.Status)
	if ref == nil {
		ref = op.Responses.Default()
	}
	if ref == nil || ref.Value == nil {
		return nil
	}
	return jsonSchema(ref.Value.Content, ex.Header.Get("Content-Type"))
}

// present checks that a credential is there; its value is the mock's
// business.
func present(_ context.Context, in *openapi3filter.AuthenticationInput) error {
	s, r := in.SecurityScheme, in.RequestValidationInput.Request
	var v string
	switch {
	case s.Type == "http":
		v, _ = strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	case s.In == "query":
		v = r.URL.Query().Get(s.Name)
	default:
		v = r.Header.Get(s.Name)
	}
	if strings.TrimSpace(v) == "" {
		return errors.New("no credential")
	}
	return nil
}

// Failure is the error Check returns for an exchange that does not conform.
type Failure struct {
	Kind FailureKind
	// Causes are the places that do not conform ("at /a/0/b: got null,
	// want object", sorted), or the reason.
	Causes []string
	err    error
}

// FailureKind says what of an exchange does not conform.
type FailureKind int

const (
	// KindRoute: the route is not in the document.
	KindRoute FailureKind = iota + 1
	// KindStatus: the status is not declared for the operation.
	KindStatus
	// KindRequest: the document refuses a request the mock accepted.
	KindRequest
	// KindAnswer: the answer does not conform.
	KindAnswer
)

func (f *Failure) Error() string { return f.err.Error() }

// causes lists the leaves of a validation error, or the short reason of
// another error.
func causes(err error) []string {
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return []string{short(err)}
	}
	var out []string
	var walk func(u jsonschema.OutputUnit)
	walk = func(u jsonschema.OutputUnit) {
		if u.Error != nil && len(u.Errors) == 0 {
			at := u.InstanceLocation
			if at == "" {
				at = "/"
			}
			out = append(out, "at "+at+": "+u.Error.String())
		}
		for _, c := range u.Errors {
			walk(c)
		}
	}
	walk(*ve.DetailedOutput())
	slices.Sort(out)
	return slices.Compact(out)
}

// short trims kin-openapi's errors, which quote whole schemas.
func short(err error) string {
	var lines []string
	for _, l := range strings.Split(err.Error(), "\n") {
		if strings.HasPrefix(l, "Schema:") || strings.HasPrefix(l, "Value:") {
			break
		}
		if l = strings.TrimSpace(l); l != "" && !slices.Contains(lines, l) {
			lines = append(lines, l)
		}
	}
	return clip([]byte(strings.Join(lines, "; ")))
}

func clip(b []byte) string {
	if len(b) > 600 {
		return string(b[:600]) + "..."
	}
	return string(b)
}
