package handlers

// Conversations API v1/v2/v3 (docs/api.md#conversations; docs/fidelity.md
// G5, D9, D19, M11); the queries are engine/convquery's.

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famConversations is the Conversations API, v3 and v2.
var famConversations = &Family{
	Name: "conversations", Base: "runtime", Shape: shapeEnvelope,
	Credential: scenario.KindConversations, Headers: []string{"X-Api-Key"}, Forbid: true,
	Doc:      "Conversation records, v3, v2 and v1 (docs/api.md#conversations).",
	Schemes:  conversationsSchemes,
	Security: [][]string{{"conversationsKey"}},
	Routes:   conversationsRoutes,
	Counts:   []Counted{{What: "conversations", N: (*API).countConversations}},

	Codes: []ErrorCode{
		{Status: 400, Code: convquery.CodeConvInvalid},
		{Status: 400, Code: convquery.CodeConvCursor, Ops: []string{"conversationsListV3"}},
	},
	ClockEvents: []ClockEvent{engine.ClockConversationsRetention},
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
	Codes:    []ErrorCode{{Status: 400, Code: convquery.CodeConvInvalid}},
}

// conversationsSchemes is the credential of conversations and concurrency.
var conversationsSchemes = map[string]Scheme{
	"conversationsKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A conversations key of the account or project (credential kind conversations)."},
}

var conversationsRoutes = []Route{
	route("GET /v3/:account/:project/conversations", (*API).handleConversationsListV3, opConversationsV3),
	route("GET /v2/:account/:project/conversations", (*API).handleConversationsListV2, opConversationsV2),
}

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

// convParams are the query parameters of every version, convParamsV3
// v3's; a v3 parameter on v1 or v2 is 400.
var (
	convParams = []Param{
		{Name: "start_time", Type: "date-time", Doc: "Lower bound on started_at (ISO 8601); required with a retrieval mode."},
		{Name: "end_time", Type: "date-time", Doc: "Upper bound on started_at, not before start_time; required with a retrieval mode."},
		{Name: "client_env", Enum: scenario.Environments, Doc: "Default live."},
		{Name: "channel", Repeated: true, Doc: "Channel labels, any case (CHAT, WEBCHAT, VOICE-SIP, ...)."},
		{Name: "variant_id"},
		{Name: "variant_name"},
		{Name: "in_progress", Type: "boolean", Doc: "Default both."},
		{Name: "limit", Type: "integer", Min: engine.I64(1), Max: engine.I64(convquery.ConvMaxLimit), Doc: fmt.Sprintf("Default %d.", convquery.ConvDefaultLimit),
			Fidelity: &engine.Fidelity{ID: "D9", Switch: "v3_limit", Value: "oas", Note: fmt.Sprintf("on v3: 1 to %d, default %d", convquery.ConvOASLimit, convquery.ConvOASLimit)}},
		{Name: "offset", Type: "integer", Min: engine.I64(0), Doc: "Offset paging: next_offset of the previous page."},
		{Name: "include_latency", Type: "boolean", Doc: "Adds latency to each turn (v2, v3)."},
	}
	convParamsV3 = append(slices.Clone(convParams),
		Param{Name: "cursor", Doc: "The cursor of the previous page, every other parameter the same."},
		Param{Name: "query_type", Enum: convquery.ConvQueryTypes, Doc: "A retrieval mode; needs query."},
		Param{Name: "query", Doc: "The search text of query_type."},
		Param{Name: "turn_type", Enum: convquery.ConvTurnTypes, Doc: "Transcript search: user or agent text (default both)."},
		Param{Name: "sample", Enum: convquery.ConvSamples, Doc: "A retrieval mode: a seeded shuffle."},
	)
	convParamNames = paramNames(convParamsV3)
)

// parseConvQuery validates the query string of a list request.
func (a *API) parseConvQuery(c *gin.Context, version int) (*convquery.ConvQuery, error) {
	vals := c.Request.URL.Query()
	for k := range vals {
		if !convParamNames[k] {
			addWarning(c, "unknown query parameter %q (ignored)", k)
		}
	}
	return a.ConvQuery().ParseConvValues(vals, version)
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
	if q.Mode() == "" {
		return a.answerKeysetPage(c, p, q, version)
	}
	page, err := a.ConvQuery().ConversationPage(p, q)
	if err != nil {
		return err
	}
	now := a.Clock().Now()
	access := convquery.DataAccessOf(p.Project)
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		return appendConvPage(b, version, page, now, access, q.IncludeLatency)
	}, func() any { return renderConvPage(version, page, now, access, q.IncludeLatency) })
	return nil
}

// appendConvPage writes renderConvPage's value as encoding/json would.
func appendConvPage(b []byte, version int, page *convquery.ConvPage, now time.Time, access convquery.DataAccess, latency bool) ([]byte, bool) {
	b = append(b, `{"conversations":[`...)
	for i, conv := range page.List {
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
func appendConvOf(b []byte, version int, conv *engine.Conversation, now time.Time, access convquery.DataAccess, latency bool) ([]byte, bool) {
	if version == 1 {
		return appendConvV1(b, conv, now, access)
	}
	return appendConvV3(b, conv, now, access, latency)
}

// appendConvPageEnd appends what follows a page's records.
func appendConvPageEnd(b []byte, version int, page *convquery.ConvPage) []byte {
	b = append(b, ']')
	if version == 3 {
		b = append(b, `,"cursor":`...)
		b = jsonw.AppendNullString(b, page.Cursor)
	}
	if page.NextOffset != nil {
		b = append(b, `,"next_offset":`...)
		b = strconv.AppendInt(b, int64(*page.NextOffset), 10)
	}
	return append(b, '}')
}

// renderConvPage is a page's answer as a value (for c.JSON).
func renderConvPage(version int, page *convquery.ConvPage, now time.Time, access convquery.DataAccess, latency bool) any {
	if version == 1 {
		out := convListV1{Conversations: make([]convV1, len(page.List)), NextOffset: page.NextOffset}
		for i, conv := range page.List {
			out.Conversations[i] = renderConvV1(conv, now, access)
		}
		return out
	}
	convs := make([]convV3, len(page.List))
	for i, conv := range page.List {
		convs[i] = renderConvV3(conv, now, access, latency)
	}
	if version == 2 {
		return convListV2{Conversations: convs, NextOffset: page.NextOffset}
	}
	return convListV3{Conversations: convs, Cursor: page.Cursor, NextOffset: page.NextOffset}
}
