package handlers

// Outbound calling (docs/api.md#outbound; docs/fidelity.md G3, G7, G11, G18,
// G21, D7): place a call, read its status (the calls and their timeline:
// engine/outbound.go).

import (
	"maps"
	"net/http"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// famOutbound is outbound calling (docs/api.md#outbound).
var famOutbound = &Family{
	Name: "outbound", Base: "runtime", Shape: shapeOutbound,
	Credential: scenario.KindOutbound, Headers: []string{"X-Service-Auth-Token", "X-Polyai-Auth-Token"},
	Marks: []string{"/outbound-calling"},
	Doc:   "Place a call, read its status (docs/api.md#outbound).",
	Schemes: map[string]Scheme{
		"outboundToken": {Type: "apiKey", In: "header", Name: "X-Service-Auth-Token", Doc: "An outbound token of the account or project (credential kind outbound)."},
		"outboundTokenAlt": {Type: "apiKey", In: "header", Name: "X-PolyAi-Auth-Token", Doc: "The same outbound token, under the header the real service's guides name.",
			Fidelity: &engine.Fidelity{ID: "D7", Note: "accepted side by side with X-Service-Auth-Token"}},
	},
	Security: [][]string{{"outboundToken"}, {"outboundTokenAlt"}},
	Routes:   outboundRoutes,
	Counts:   []Counted{countDocs("outbound calls", engine.DocOutboundCall)},
	Presets: []faults.Preset{
		{Name: engine.PresetOutboundOutcome, Family: "outbound", Arg: faults.ArgOneOf, Values: scenario.Outcomes},
	},
	ApplyPreset: markPreset,
	Codes: []ErrorCode{
		{Status: 400, Code: engine.CodeOutboundInvalid, Ops: []string{"outboundCallCreate"}},
		{Status: 400, Code: engine.CodeOutboundPhone, Ops: []string{"outboundCallCreate"}},
		{Status: 400, Code: engine.CodeOutboundMetadata, Ops: []string{"outboundCallCreate"}},
		{Status: 400, Code: engine.CodeOutboundMetadataSize, Ops: []string{"outboundCallCreate"}},
		{Status: 401, Code: engine.CodeOutboundNotEnabled, Ops: []string{"outboundCallCreate"}},
		{Status: 429, Code: engine.CodeOutboundRateLimited},
		{Status: 400, Code: engine.CodeOutboundCallSID, Ops: []string{"outboundCallStatus"}},
		{Status: 404, Code: engine.CodeOutboundNotFound, Ops: []string{"outboundCallStatus"}},
		{Status: 404, Code: engine.CodeOutboundVersion},
	},
	Machines:    []*Machine{engine.MachineOutboundCall},
	ClockEvents: []ClockEvent{engine.ClockOutboundProgress, engine.ClockOutboundRetention},
}

// outboundRoutes are its routes.
var outboundRoutes = []Route{
	route("POST /:version/outbound-calling", (*API).handleOutboundCreate, opOutboundCreate),
	route("GET /:version/outbound-calling/:call_sid/status", (*API).handleOutboundStatus, opOutboundStatus),
}

var (
	opOutboundCreate = &Op{ID: "outboundCallCreate", Summary: "Place an outbound call",
		Doc: "Queues a call from the key's project (which must have outbound calling enabled); its status " +
			"moves on the virtual clock (docs/api.md#outbound).",
		Body: outboundRequest{}, Responses: []Response{ok(200, engine.OutboundResponse{})}, Errors: []int{400, 404, 429}}
	opOutboundStatus = &Op{ID: "outboundCallStatus", Summary: "Read a call's status",
		Doc:       "The call's status, readable until its retention ends after the call (docs/api.md#outbound-states).",
		Path:      []Param{{Name: "call_sid", Pattern: engine.CallSIDRE, Doc: "The call_sid of the placed call."}},
		Responses: []Response{ok(200, outboundStatus{})}, Errors: []int{400, 404}}
)

func (outboundRequest) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{
		"to_number": {Required: true, Doc: "E.164, or a national number with country_code."},
		"country_code": {Pattern: engine.CountryCodeRE, Doc: "ISO 3166-1 alpha-2 code (any case) of a national to_number: " +
			strings.Join(slices.Sorted(maps.Keys(engine.CountryCodes)), ", ") + "."},
		"metadata":   {Doc: "Attached to the call; its base64 form must be under 26 KB."},
		"encryption": {Enum: engine.Encryptions, Doc: "Default " + engine.Encryptions[0] + "."},
	}
}

func (outboundStatus) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"status": {Enum: engine.CallStatuses}, "reason": {Doc: "Why the call failed (empty otherwise)."}}
}

type outboundRequest struct {
	ToNumber    *string        `json:"to_number"`
	CountryCode *string        `json:"country_code"`
	Metadata    map[string]any `json:"metadata"`
	Encryption  *string        `json:"encryption"`
}

type outboundStatus struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// handleOutboundCreate handles "POST {runtime}/v1/outbound-calling"
// (docs/api.md#outbound-create): it validates the request and places the
// call (engine.PlaceCall: outbound enabled, the rate limit, the queue).
func (a *API) handleOutboundCreate(c *gin.Context) error {
	if err := outboundVersion(c); err != nil {
		return err
	}
	var req outboundRequest
	if err := bindJSON(c, &req, false, engine.CodeOutboundInvalid); err != nil {
		return err
	}
	to, err := engine.OutboundNumber(req.ToNumber, req.CountryCode)
	if err != nil {
		return err
	}
	meta, err := engine.OutboundMetadata(req.Metadata)
	if err != nil {
		return err
	}
	enc := engine.Encryptions[0]
	if req.Encryption != nil {
		if !slices.Contains(engine.Encryptions, *req.Encryption) {
			return engine.Errf(engine.KindInvalid, engine.CodeOutboundInvalid, engine.MsgOutboundEncryption)
		}
		enc = *req.Encryption
	}
	in := engine.CallRequest{To: to, Metadata: meta, Encryption: enc}
	if pr, ok := requestPreset(c); ok && pr.Name == engine.PresetOutboundOutcome {
		in.Outcome = pr.Value
	}
	sid, err := a.PlaceCall(principal(c), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.OutboundResponse{CallSID: sid})
	return nil
}

// handleOutboundStatus handles "GET {runtime}/v1/outbound-calling/{call_sid}/status"
// (docs/api.md#outbound-status): {"status","reason"}; 404 for an unknown
// call, one of another account, and one past its retention.
func (a *API) handleOutboundStatus(c *gin.Context) error {
	if err := outboundVersion(c); err != nil {
		return err
	}
	sid := c.Param("call_sid")
	if !engine.CallSIDRE.MatchString(sid) {
		return engine.Errf(engine.KindInvalid, engine.CodeOutboundCallSID, engine.MsgOutboundCallSID)
	}
	call, err := a.OutboundCall(principal(c), sid)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, outboundStatus{Status: call.Status, Reason: call.Reason})
	return nil
}

func outboundVersion(c *gin.Context) error {
	if v := c.Param("version"); v != "v1" {
		return engine.Errf(engine.KindNotFound, engine.CodeOutboundVersion, "Unsupported API version %q: outbound calling is v1.", v)
	}
	return nil
}
