package convquery

// Conversations API v1/v2/v3 (docs/api.md#conversations; docs/fidelity.md
// G5, D9, D19, M11) over the one conversation record every channel writes.
// Retrieval modes and paging: docs/api.md#conversations-retrieval and
// #conversations-paging.

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Page sizes (docs/api.md#limits; under v3_limit: oas, D9).
const (
	ConvDefaultLimit = 5
	ConvMaxLimit     = 5000
	ConvOASLimit     = 1000
)

// Values of the v3 retrieval parameters.
var (
	ConvQueryTypes = []string{"transcript", "semantic"}
	ConvSamples    = []string{"random"}
	ConvTurnTypes  = []string{"user", "agent"}
)

// Conversations error codes (v1 renders only the message) and messages;
// the codes are [INF] (docs/api.md#conversations-errors).
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

// convLimits are a version's page size bounds.
func (s *Service) convLimits(version int) (def, maxLimit int) {
	if version == 3 && s.env.View().Fidelity("v3_limit") == "oas" {
		return ConvOASLimit, ConvOASLimit
	}
	return ConvDefaultLimit, ConvMaxLimit
}

// ConvQuery is a parsed list request.
type ConvQuery struct {
	version        int
	start, end     time.Time // zero: unbounded
	env            string
	channels       []string
	variantID      string
	variantName    string
	inProgress     *bool
	limit, offset  int
	cursor         string
	IncludeLatency bool
	queryType      string // transcript | semantic
	sample         string // random
	query          string
	turnType       string // user | agent | "" (both)
}

func convInvalid(format string, args ...any) *core.Error {
	return &core.Error{Kind: core.KindInvalid, Code: CodeConvInvalid, Message: fmt.Sprintf(format, args...)}
}

// ParseConvValues validates list parameters (unknown ones are ignored).
func (s *Service) ParseConvValues(vals url.Values, version int) (*ConvQuery, error) {
	q := &ConvQuery{version: version, env: "live"}
	if err := q.readFilters(vals); err != nil {
		return nil, err
	}
	def, maxLimit := s.convLimits(version)
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

// readFilters reads the record filters.
func (q *ConvQuery) readFilters(vals url.Values) error {
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

// readPaging reads limit, offset, include_latency and cursor.
func (q *ConvQuery) readPaging(vals url.Values, def, maxLimit int) error {
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
		q.IncludeLatency = b
	}
	q.cursor = vals.Get("cursor")
	return nil
}

// checkRetrieval validates the v3 retrieval parameters: one mode per
// request.
func (q *ConvQuery) checkRetrieval() error {
	if q.queryType != "" && !slices.Contains(ConvQueryTypes, q.queryType) {
		return convInvalid("query_type must be %s.", core.OneOfWords(ConvQueryTypes))
	}
	if q.sample != "" && !slices.Contains(ConvSamples, q.sample) {
		return convInvalid("sample must be %s.", core.OneOfWords(ConvSamples))
	}
	if q.turnType != "" && !slices.Contains(ConvTurnTypes, q.turnType) {
		return convInvalid("turn_type must be %s.", core.OneOfWords(ConvTurnTypes))
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
	if q.Mode() != "" && (q.start.IsZero() || q.end.IsZero()) {
		return convInvalid(MsgConvBoundsRequired)
	}
	return nil
}

func parseBoolParam(name, v string) (bool, error) {
	b, err := strconv.ParseBool(v)
	if err != nil {
		return false, convInvalid("%s must be true or false.", name)
	}
	return b, nil
}

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

// Mode is the retrieval mode ("" for a plain listing).
func (q *ConvQuery) Mode() string {
	if q.queryType != "" {
		return q.queryType
	}
	return q.sample
}

// match applies the record filters but the time bounds (the store's).
func (q *ConvQuery) match(c *store.Conversation) bool {
	return q.selects(&store.Summary{Environment: c.Environment, Channel: c.Channel, VariantID: c.VariantID,
		VariantName: c.VariantName, InProgress: c.InProgress})
}

func (q *ConvQuery) selects(c *store.Summary) bool {
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

// filterHash binds cursors to the filters and project they were issued
// for.
func (q *ConvQuery) filterHash(p *core.Principal) string {
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

func appendTimeKey(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return b
	}
	return strconv.AppendInt(b, t.UnixNano(), 10)
}

// EncodeConvCursor is base64url("c1|<filter hash>|<position>"), the position
// a store keyset position ("k") or a rank offset ("r").
func EncodeConvCursor(hash, pos string) string { return convCursor(hash, "", pos) }

func convCursor(hash, kind, pos string) string {
	var raw, enc [256]byte
	r := append(raw[:0], "c1|"...)
	r = append(append(r, hash...), '|')
	r = append(append(r, kind...), pos...)
	return string(base64.RawURLEncoding.AppendEncode(enc[:0], r))
}

func errConvBadCursor() *core.Error {
	return &core.Error{Kind: core.KindInvalid, Code: CodeConvCursor, Message: MsgConvBadCursor}
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
		return "", &core.Error{Kind: core.KindInvalid, Code: CodeConvCursor, Message: MsgConvCursorFilters}
	}
	return parts[2], nil
}

// ConvPage is one page of a listing.
type ConvPage struct {
	List       []*store.Conversation
	Cursor     *string
	NextOffset *int
	// cursorVal and offsetVal back cursor and nextOffset in one allocation.
	cursorVal string
	offsetVal int
}

// setNext sets the cursor, and the next offset when withOffset.
func (p *ConvPage) setNext(cursor string, offset int, withOffset bool) {
	p.cursorVal = cursor
	p.Cursor = &p.cursorVal
	if withOffset {
		p.offsetVal = offset
		p.NextOffset = &p.offsetVal
	}
}

// ConversationPage reads the page a parsed query asks for.
func (s *Service) ConversationPage(p *core.Principal, q *ConvQuery) (*ConvPage, error) {
	hash := q.filterHash(p)
	if q.Mode() != "" {
		return s.rankedPage(p, q, hash)
	}
	return s.keysetPage(p, q, hash)
}

// ConversationPage is one page of ListConversations.
type ConversationPage struct {
	// Conversations are the page's records (copies).
	Conversations []*store.Conversation
	// Cursor reads the next page with the same parameters; empty on the last.
	Cursor string
}

// ListConversations lists a project's conversations as GET
// .../v3/{account}/{project}/conversations would with vals, without a key
// (for the console). A bad parameter is a *core.Error.
func (s *Service) ListConversations(accountRef, projectRef string, vals url.Values) (ConversationPage, error) {
	acct := s.env.View().Account(accountRef)
	if acct == nil {
		return ConversationPage{}, &core.Error{Kind: core.KindNotFound, Code: "ACCOUNT_NOT_FOUND", Message: "Account ID does not exist."}
	}
	proj := acct.Project(projectRef)
	if proj == nil {
		return ConversationPage{}, &core.Error{Kind: core.KindNotFound, Code: "PROJECT_NOT_FOUND", Message: "Project ID does not exist."}
	}
	q, err := s.ParseConvValues(vals, 3)
	if err != nil {
		return ConversationPage{}, err
	}
	page, err := s.ConversationPage(&core.Principal{Account: acct, Project: proj, Region: acct.Region}, q)
	if err != nil {
		return ConversationPage{}, err
	}
	out := ConversationPage{Conversations: page.List}
	if page.Cursor != nil {
		out.Cursor = *page.Cursor
	}
	return out, nil
}

type rankedHit struct {
	conv  *store.Conversation
	score float64
}

// rankedPage runs a retrieval mode over the time bounds, paged by rank
// offset.
func (s *Service) rankedPage(p *core.Principal, q *ConvQuery, hash string) (*ConvPage, error) {
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
	switch q.Mode() {
	case "transcript":
		score = transcriptScorer(q.query, q.turnType)
	case "semantic":
		score = semanticScorer(q.query)
	default:
		score = sampleScorer(s.env.View().Scenario().Seed, hash)
	}
	var hits []rankedHit
	_, _, err := s.env.Store.ListConversations(store.ConversationQuery{Region: p.Region, AccountID: p.Account.ID,
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
	page := &ConvPage{}
	if start >= len(hits) {
		return page, nil
	}
	end := min(start+q.limit, len(hits))
	for _, h := range hits[start:end] {
		page.List = append(page.List, h.conv)
	}
	if end < len(hits) {
		page.setNext(EncodeConvCursor(hash, "r"+strconv.Itoa(end)), end, q.cursor == "")
	}
	return page, nil
}
