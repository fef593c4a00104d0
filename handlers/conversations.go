package handlers

// Conversations API v1/v2/v3 (docs/api.md#conversations; docs/fidelity.md
// G5, D9, D19, M11). It reads the one conversation record
// (store.Conversation) that chat, voice calls, messaging sessions and
// scenario seeds write.
//
// A request uses at most one retrieval mode
// (docs/api.md#conversations-retrieval). Paging
// (docs/api.md#conversations-paging): a first request carries no cursor;
// each later one sends back the cursor of the answer before it, with the
// other filters unchanged, until an answer's cursor is null. Cursors are
// opaque URL-safe strings that only the server makes. Offset paging sends
// an answer's next_offset back as offset.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// famConversations is the Conversations API, v3 and v2
// (docs/api.md#conversations).
var famConversations = &Family{
	Name: "conversations", Base: "runtime", Shape: shapeEnvelope,
	Credential: scenario.KindConversations, Headers: []string{"X-Api-Key"}, Forbid: true,
	Doc:      "Conversation records, v3, v2 and v1 (docs/api.md#conversations).",
	Schemes:  conversationsSchemes,
	Security: [][]string{{"conversationsKey"}},
	Routes:   conversationsRoutes,
	Counts:   []Counted{{What: "conversations", N: (*API).countConversations}},
}

// famConversationsV1 is the Conversations API v1, with an error shape of
// its own (docs/fidelity.md M3).
var famConversationsV1 = &Family{
	Name: "conversations", Base: "runtime", Shape: shapeErrorMessage,
	Credential: scenario.KindConversations, Headers: []string{"X-Api-Key"}, Forbid: true,
	Marks:    []string{"/v1/"},
	Schemes:  conversationsSchemes,
	Security: [][]string{{"conversationsKey"}},
	Routes:   conversationsV1Routes,
}

// conversationsSchemes is the credential of conversations and concurrency.
var conversationsSchemes = map[string]Scheme{
	"conversationsKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A conversations key of the account or project (credential kind conversations)."},
}

// conversationsRoutes are its routes.
var conversationsRoutes = []Route{
	route("GET /v3/:account/:project/conversations", (*API).handleConversationsListV3, opConversationsV3),
	route("GET /v2/:account/:project/conversations", (*API).handleConversationsListV2, opConversationsV2),
}

// conversationsV1Routes are the routes of v1.
var conversationsV1Routes = []Route{
	route("GET /v1/:account/:project/conversations", (*API).handleConversationsListV1, opConversationsV1),
}

var (
	opConversationsV3 = &Op{ID: "conversationsListV3", Summary: "List conversations (v3)",
		Doc: "Conversation records of the project, filtered and paged by cursor or offset, or selected by a retrieval " +
			"mode (docs/api.md#conversations-list). A v2 and v1 form serve older integrations.",
		Query: convParamsV3, Responses: []Response{ok(200, convListV3{})}, Errors: []int{400, 404}}
	opConversationsV2 = &Op{ID: "conversationsListV2", Summary: "List conversations (v2)",
		Doc:   "As v3, without cursors and retrieval modes (docs/api.md#conversations-versions).",
		Query: convParams, Responses: []Response{ok(200, convListV2{})}, Errors: []int{400, 404}}
	opConversationsV1 = &Op{ID: "conversationsListV1", Summary: "List conversations (v1, legacy)",
		Doc:   "The legacy record schema: empty text fields are null (docs/api.md#conversations-versions).",
		Query: convParams, Responses: []Response{ok(200, convListV1{})}, Errors: []int{400, 404}}
)

// Page sizes of the list (docs/api.md#limits): 1 to convMaxLimit, default
// convDefaultLimit; on v3 under v3_limit: oas, 1 to convOASLimit, default
// convOASLimit (D9).
const (
	convDefaultLimit = 5
	convMaxLimit     = 5000
	convOASLimit     = 1000
)

// Values of the v3 retrieval parameters.
var (
	convQueryTypes = []string{"transcript", "semantic"}
	convSamples    = []string{"random"}
	convTurnTypes  = []string{"user", "agent"}
)

// convParams are the query parameters of every version; convParamsV3 adds
// v3's cursor and retrieval modes. A v3 parameter on v1 or v2 is 400;
// others are ignored (a journal warning).
var (
	convParams = []Param{
		{Name: "start_time", Type: "date-time", Doc: "Lower bound on started_at (ISO 8601); required with a retrieval mode."},
		{Name: "end_time", Type: "date-time", Doc: "Upper bound on started_at, not before start_time; required with a retrieval mode."},
		{Name: "client_env", Enum: scenario.Environments, Doc: "Default live."},
		{Name: "channel", Repeated: true, Doc: "Channel labels, any case (CHAT, WEBCHAT, VOICE-SIP, ...)."},
		{Name: "variant_id"},
		{Name: "variant_name"},
		{Name: "in_progress", Type: "boolean", Doc: "Default both."},
		{Name: "limit", Type: "integer", Min: i64(1), Max: i64(convMaxLimit), Doc: fmt.Sprintf("Default %d.", convDefaultLimit),
			Fidelity: &Fidelity{ID: "D9", Switch: "v3_limit", Value: "oas", Note: fmt.Sprintf("on v3: 1 to %d, default %d", convOASLimit, convOASLimit)}},
		{Name: "offset", Type: "integer", Min: i64(0), Doc: "Offset paging: next_offset of the previous page."},
		{Name: "include_latency", Type: "boolean", Doc: "Adds latency to each turn (v2, v3)."},
	}
	convParamsV3 = append(slices.Clone(convParams),
		Param{Name: "cursor", Doc: "The cursor of the previous page, every other parameter the same."},
		Param{Name: "query_type", Enum: convQueryTypes, Doc: "A retrieval mode; needs query."},
		Param{Name: "query", Doc: "The search text of query_type."},
		Param{Name: "turn_type", Enum: convTurnTypes, Doc: "Transcript search: user or agent text (default both)."},
		Param{Name: "sample", Enum: convSamples, Doc: "A retrieval mode: a seeded shuffle."},
	)
	convParamNames = paramNames(convParamsV3)
)

// Conversations error codes (envelope of v2/v3; v1 renders the message as
// {"error_message"}) and messages tests compare. The codes are [INF]
// (the real service's documented GET_CONVERSATIONS_* codes do not cover
// these cases; docs/api.md#conversations-errors).
const (
	CodeConvInvalid = "GET_CONVERSATIONS_INVALID_PARAMETER"
	CodeConvCursor  = "GET_CONVERSATIONS_INVALID_CURSOR"

	MsgConvBadCursor      = "Malformed cursor."
	MsgConvCursorFilters  = "The cursor was issued for other filters: keep every other parameter identical while paging."
	MsgConvTwoModes       = "Only one retrieval mode may be used per request: query_type and sample are mutually exclusive."
	MsgConvQueryRequired  = "query is required when query_type is set."
	MsgConvQueryWithout   = "query needs query_type (transcript or semantic)."
	MsgConvBoundsRequired = "start_time and end_time are required with a retrieval mode (query_type or sample)."
	MsgConvEndBeforeStart = "end_time must not be before start_time."
	MsgConvV3Only         = "%s is only supported on v3."
)

// convDefaults are a version's page size bounds (docs/api.md#limits;
// docs/fidelity.md D9, v3_limit).
func (a *API) convLimits(version int) (def, maxLimit int) {
	if version == 3 && a.world().fidelity("v3_limit") == "oas" {
		return convOASLimit, convOASLimit
	}
	return convDefaultLimit, convMaxLimit
}

// convQuery is a parsed list request.
type convQuery struct {
	version        int
	start, end     time.Time // zero: unbounded
	env            string
	channels       []string
	variantID      string
	variantName    string
	inProgress     *bool
	limit, offset  int
	cursor         string
	includeLatency bool
	queryType      string // transcript | semantic
	sample         string // random
	query          string
	turnType       string // user | agent | "" (both)
}

func convInvalid(format string, args ...any) *Error {
	return &Error{Kind: KindInvalid, Code: CodeConvInvalid, Message: fmt.Sprintf(format, args...)}
}

// parseConvQuery validates the query string of a list request: the record
// filters, the paging, then the retrieval mode (v3 only).
func (a *API) parseConvQuery(c *gin.Context, version int) (*convQuery, error) {
	vals := c.Request.URL.Query()
	for k := range vals {
		if !convParamNames[k] {
			addWarning(c, "unknown query parameter %q (ignored)", k)
		}
	}
	return a.parseConvValues(vals, version)
}

// parseConvValues validates list parameters (unknown ones are ignored).
func (a *API) parseConvValues(vals url.Values, version int) (*convQuery, error) {
	q := &convQuery{version: version, env: "live"}
	if err := q.readFilters(vals); err != nil {
		return nil, err
	}
	def, maxLimit := a.convLimits(version)
	if err := q.readPaging(vals, def, maxLimit); err != nil {
		return nil, err
	}
	q.queryType, q.sample, q.query, q.turnType = vals.Get("query_type"), vals.Get("sample"), vals.Get("query"), vals.Get("turn_type")
	if version != 3 {
		for _, p := range []string{"cursor", "query_type", "sample", "query", "turn_type"} {
			if vals.Has(p) {
				return nil, convInvalid(MsgConvV3Only, p)
			}
		}
		return q, nil
	}
	if err := q.checkRetrieval(); err != nil {
		return nil, err
	}
	return q, nil
}

// readFilters reads the record filters: time bounds, client_env, channel,
// variant_id, variant_name and in_progress.
func (q *convQuery) readFilters(vals url.Values) error {
	var err error
	if q.start, err = parseTimeParam("start_time", vals.Get("start_time")); err != nil {
		return err
	}
	if q.end, err = parseTimeParam("end_time", vals.Get("end_time")); err != nil {
		return err
	}
	if !q.start.IsZero() && !q.end.IsZero() && q.end.Before(q.start) {
		return convInvalid(MsgConvEndBeforeStart)
	}
	if v := vals.Get("client_env"); v != "" {
		if !slices.Contains(scenario.Environments, v) {
			return convInvalid("client_env must be one of sandbox, pre-release, live.")
		}
		q.env = v
	}
	for _, ch := range vals["channel"] {
		if ch != "" {
			q.channels = append(q.channels, ch)
		}
	}
	q.variantID, q.variantName = vals.Get("variant_id"), vals.Get("variant_name")
	if v := vals.Get("in_progress"); v != "" {
		b, err := parseBoolParam("in_progress", v)
		if err != nil {
			return err
		}
		q.inProgress = &b
	}
	return nil
}

// readPaging reads limit (def when absent), offset, include_latency and
// cursor.
func (q *convQuery) readPaging(vals url.Values, def, maxLimit int) error {
	q.limit = def
	if v := vals.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 || n > maxLimit {
			return convInvalid("limit must be an integer from 1 to %d.", maxLimit)
		}
		q.limit = n
	}
	if v := vals.Get("offset"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return convInvalid("offset must be a non-negative integer.")
		}
		q.offset = n
	}
	if v := vals.Get("include_latency"); v != "" {
		b, err := parseBoolParam("include_latency", v)
		if err != nil {
			return err
		}
		q.includeLatency = b
	}
	q.cursor = vals.Get("cursor")
	return nil
}

// checkRetrieval validates the v3 retrieval parameters
// (docs/api.md#conversations-retrieval: one mode per request).
func (q *convQuery) checkRetrieval() error {
	if q.queryType != "" && !slices.Contains(convQueryTypes, q.queryType) {
		return convInvalid("query_type must be %s.", oneOfWords(convQueryTypes))
	}
	if q.sample != "" && !slices.Contains(convSamples, q.sample) {
		return convInvalid("sample must be %s.", oneOfWords(convSamples))
	}
	if q.turnType != "" && !slices.Contains(convTurnTypes, q.turnType) {
		return convInvalid("turn_type must be %s.", oneOfWords(convTurnTypes))
	}
	if q.queryType != "" && q.sample != "" {
		return convInvalid(MsgConvTwoModes)
	}
	if q.queryType != "" && strings.TrimSpace(q.query) == "" {
		return convInvalid(MsgConvQueryRequired)
	}
	if q.queryType == "" && q.query != "" {
		return convInvalid(MsgConvQueryWithout)
	}
	if q.mode() != "" && (q.start.IsZero() || q.end.IsZero()) {
		return convInvalid(MsgConvBoundsRequired)
	}
	return nil
}

// parseBoolParam parses a true|false parameter.
func parseBoolParam(name, v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, convInvalid("%s must be true or false.", name)
	}
	return b, nil
}

// parseTimeParam parses an ISO 8601 (RFC 3339) date-time parameter.
func parseTimeParam(name, v string) (time.Time, error) {
	if v == "" {
		return time.Time{}, nil
	}
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return time.Time{}, convInvalid("%s must be an ISO 8601 date-time such as 2026-03-01T00:00:00Z.", name)
	}
	return t.UTC(), nil
}

// mode is the retrieval mode ("" for a plain listing).
func (q *convQuery) mode() string {
	if q.queryType != "" {
		return q.queryType
	}
	return q.sample
}

// match applies the record filters (everything but the time bounds, which
// the store applies on its index).
func (q *convQuery) match(c *store.Conversation) bool {
	return q.selects(&store.Summary{Environment: c.Environment, Channel: c.Channel, VariantID: c.VariantID,
		VariantName: c.VariantName, InProgress: c.InProgress})
}

// selects applies the record filters to a record's summary.
func (q *convQuery) selects(c *store.Summary) bool {
	if c.Environment != q.env {
		return false
	}
	if len(q.channels) > 0 && !slices.ContainsFunc(q.channels, func(ch string) bool { return strings.EqualFold(ch, c.Channel) }) {
		return false
	}
	if q.variantID != "" && c.VariantID != q.variantID {
		return false
	}
	if q.variantName != "" && c.VariantName != q.variantName {
		return false
	}
	if q.inProgress != nil && c.InProgress != *q.inProgress {
		return false
	}
	return true
}

// filterHash binds cursors to the filters they were issued for: every
// parameter except limit, offset, cursor and include_latency, and the
// project.
func (q *convQuery) filterHash(p *Principal) string {
	var buf [512]byte
	b := strconv.AppendInt(buf[:0], int64(q.version), 10)
	b = append(b, 0)
	for _, s := range [...]string{p.Region, p.Account.ID, p.Project.ID} {
		b = append(append(b, s...), 0)
	}
	b = appendTimeKey(b, q.start)
	b = append(b, 0)
	b = appendTimeKey(b, q.end)
	b = append(b, 0)
	b = append(append(b, q.env...), 0)
	if len(q.channels) > 0 {
		chans := slices.Clone(q.channels)
		for i := range chans {
			chans[i] = strings.ToUpper(chans[i])
		}
		slices.Sort(chans)
		b = append(b, strings.Join(chans, ",")...)
	}
	b = append(b, 0)
	b = append(append(b, q.variantID...), 0)
	b = append(append(b, q.variantName...), 0)
	if q.inProgress != nil {
		b = strconv.AppendBool(b, *q.inProgress)
	}
	b = append(b, 0)
	for _, s := range [...]string{q.queryType, q.sample, q.query, q.turnType} {
		b = append(append(b, s...), 0)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// appendTimeKey appends a time bound to a filter hash's input ("" when
// unbounded, else its Unix nanoseconds).
func appendTimeKey(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	return strconv.AppendInt(b, t.UnixNano(), 10)
}

// Cursors: base64url("c1|<filter hash>|<position>"), where the position is
// the store's keyset position ("k" + opaque) or a rank offset of a
// retrieval mode ("r" + n).
func encodeConvCursor(hash, pos string) string { return convCursor(hash, "", pos) }

// convCursor is encodeConvCursor(hash, kind+pos), built on the stack
// (one allocation: the string).
func convCursor(hash, kind, pos string) string {
	var raw, enc [256]byte
	r := append(raw[:0], "c1|"...)
	r = append(append(r, hash...), '|')
	r = append(append(r, kind...), pos...)
	return string(base64.RawURLEncoding.AppendEncode(enc[:0], r))
}

func errConvBadCursor() *Error {
	return &Error{Kind: KindInvalid, Code: CodeConvCursor, Message: MsgConvBadCursor}
}

func decodeConvCursor(cur, hash string) (string, error) {
	b, err := base64.RawURLEncoding.DecodeString(cur)
	if err != nil {
		return "", errConvBadCursor()
	}
	parts := strings.SplitN(string(b), "|", 3)
	if len(parts) != 3 || parts[0] != "c1" || len(parts[2]) < 2 {
		return "", errConvBadCursor()
	}
	if parts[1] != hash {
		return "", &Error{Kind: KindInvalid, Code: CodeConvCursor, Message: MsgConvCursorFilters}
	}
	return parts[2], nil
}

// convPage is one page of a listing.
type convPage struct {
	list       []*store.Conversation
	cursor     *string
	nextOffset *int
	// cursorVal and offsetVal hold what cursor and nextOffset point at
	// (setNext): one allocation, the page's, instead of one per field.
	cursorVal string
	offsetVal int
}

// setNext sets the page's cursor, and its next offset when withOffset
// (a request paged by cursor answers none).
func (p *convPage) setNext(cursor string, offset int, withOffset bool) {
	p.cursorVal = cursor
	p.cursor = &p.cursorVal
	if withOffset {
		p.offsetVal = offset
		p.nextOffset = &p.offsetVal
	}
}

// handleConversationsListV3 handles "GET {runtime}/v3/{account}/{project}/conversations".
func (a *API) handleConversationsListV3(c *gin.Context) error { return a.listConversations(c, 3) }

// handleConversationsListV2 handles "GET {runtime}/v2/{account}/{project}/conversations".
func (a *API) handleConversationsListV2(c *gin.Context) error { return a.listConversations(c, 2) }

// handleConversationsListV1 handles "GET {runtime}/v1/{account}/{project}/conversations".
func (a *API) handleConversationsListV1(c *gin.Context) error { return a.listConversations(c, 1) }

func (a *API) listConversations(c *gin.Context, version int) error {
	q, err := a.parseConvQuery(c, version)
	if err != nil {
		return err
	}
	p := principal(c)
	if q.mode() == "" {
		return a.answerKeysetPage(c, p, q, version)
	}
	page, err := a.conversationPage(p, q)
	if err != nil {
		return err
	}
	now := a.clock.Now()
	access := dataAccess(p.Project)
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		return appendConvPage(b, version, page, now, access, q.includeLatency)
	}, func() any { return renderConvPage(version, page, now, access, q.includeLatency) })
	return nil
}

// appendConvPage writes a page in one pass (as encoding/json writes
// renderConvPage's value).
func appendConvPage(b []byte, version int, page *convPage, now time.Time, access access, latency bool) ([]byte, bool) {
	b = append(b, `{"conversations":[`...)
	for i, conv := range page.list {
		if i > 0 {
			b = append(b, ',')
		}
		var ok bool
		if b, ok = appendConvOf(b, version, conv, now, access, latency); !ok {
			return b, false
		}
	}
	return appendConvPageEnd(b, version, page), true
}

// appendConvOf appends a record as the API version writes it.
func appendConvOf(b []byte, version int, conv *store.Conversation, now time.Time, access access, latency bool) ([]byte, bool) {
	if version == 1 {
		return appendConvV1(b, conv, now, access)
	}
	return appendConvV3(b, conv, now, access, latency)
}

// appendConvPageEnd appends what follows a page's records: the end of
// the list, the cursor (v3) and the next offset.
func appendConvPageEnd(b []byte, version int, page *convPage) []byte {
	b = append(b, ']')
	if version == 3 {
		b = append(b, `,"cursor":`...)
		b = appendJSONNullString(b, page.cursor)
	}
	if page.nextOffset != nil {
		b = append(b, `,"next_offset":`...)
		b = strconv.AppendInt(b, int64(*page.nextOffset), 10)
	}
	return append(b, '}')
}

// renderConvPage is a page's answer as a value (for c.JSON).
func renderConvPage(version int, page *convPage, now time.Time, access access, latency bool) any {
	if version == 1 {
		out := convListV1{Conversations: make([]convV1, len(page.list)), NextOffset: page.nextOffset}
		for i, conv := range page.list {
			out.Conversations[i] = renderConvV1(conv, now, access)
		}
		return out
	}
	convs := make([]convV3, len(page.list))
	for i, conv := range page.list {
		convs[i] = renderConvV3(conv, now, access, latency)
	}
	if version == 2 {
		return convListV2{Conversations: convs, NextOffset: page.nextOffset}
	}
	return convListV3{Conversations: convs, Cursor: page.cursor, NextOffset: page.nextOffset}
}

// conversationPage reads the page a parsed query asks for.
func (a *API) conversationPage(p *Principal, q *convQuery) (*convPage, error) {
	hash := q.filterHash(p)
	if q.mode() != "" {
		return a.rankedPage(p, q, hash)
	}
	return a.keysetPage(p, q, hash)
}

// ConversationPage is one page of ListConversations.
type ConversationPage struct {
	// Conversations are the page's records (copies).
	Conversations []*store.Conversation
	// Cursor reads the next page (pass it as "cursor" with the same
	// other parameters); empty on the last page.
	Cursor string
}

// ListConversations lists a project's conversations as
// GET {runtime}/v3/{account}/{project}/conversations does with the query
// parameters vals (its filters, limit, offset, cursor and retrieval
// modes), without a key: for the console, which reads every project.
// Unknown parameters are ignored. A bad parameter is an *Error with the
// API's message.
func (a *API) ListConversations(accountRef, projectRef string, vals url.Values) (ConversationPage, error) {
	acct := a.world().account(accountRef)
	if acct == nil {
		return ConversationPage{}, &Error{Kind: KindNotFound, Code: "ACCOUNT_NOT_FOUND", Message: "Account ID does not exist."}
	}
	proj := acct.Project(projectRef)
	if proj == nil {
		return ConversationPage{}, &Error{Kind: KindNotFound, Code: "PROJECT_NOT_FOUND", Message: "Project ID does not exist."}
	}
	q, err := a.parseConvValues(vals, 3)
	if err != nil {
		return ConversationPage{}, err
	}
	page, err := a.conversationPage(&Principal{Account: acct, Project: proj, Region: acct.Region}, q)
	if err != nil {
		return ConversationPage{}, err
	}
	out := ConversationPage{Conversations: page.list}
	if page.cursor != nil {
		out.Cursor = *page.cursor
	}
	return out, nil
}

// rankedHit is one result of a retrieval mode.
type rankedHit struct {
	conv  *store.Conversation
	score float64
}

// rankedPage runs a retrieval mode over the time bounds: transcript search,
// semantic search or a random sample; the ranked result is paged by rank
// offset (cursor or offset).
func (a *API) rankedPage(p *Principal, q *convQuery, hash string) (*convPage, error) {
	start := q.offset
	if q.cursor != "" {
		pos, err := decodeConvCursor(q.cursor, hash)
		if err != nil {
			return nil, err
		}
		n, err := strconv.Atoi(pos[1:])
		if pos[0] != 'r' || err != nil || n < 0 {
			return nil, errConvBadCursor()
		}
		start = n
	}
	var score func(*store.Conversation) (float64, bool)
	switch q.mode() {
	case "transcript":
		score = transcriptScorer(q.query, q.turnType)
	case "semantic":
		score = semanticScorer(q.query)
	default:
		score = sampleScorer(a.world().Scenario().Seed, hash)
	}
	var hits []rankedHit
	_, _, err := a.store.ListConversations(store.ConversationQuery{Region: p.Region, AccountID: p.Account.ID,
		ProjectID: p.Project.ID, From: q.start, To: q.end, Filter: func(c *store.Conversation) bool {
			if q.match(c) {
				if s, ok := score(c); ok {
					hits = append(hits, rankedHit{c, s})
				}
			}
			return false
		}})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(hits, func(x, y rankedHit) int {
		switch {
		case x.score > y.score:
			return -1
		case x.score < y.score:
			return 1
		}
		if c := x.conv.StartedAt.Compare(y.conv.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(x.conv.ID, y.conv.ID)
	})
	page := &convPage{}
	if start >= len(hits) {
		return page, nil
	}
	end := min(start+q.limit, len(hits))
	for _, h := range hits[start:end] {
		page.list = append(page.list, h.conv)
	}
	if end < len(hits) {
		page.setNext(encodeConvCursor(hash, "r"+strconv.Itoa(end)), end, q.cursor == "")
	}
	return page, nil
}
