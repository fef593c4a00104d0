package engine

// Agent-scoped outbound calls (docs/api.md#agents-outbound; docs/fidelity.md
// G26): the same stored calls as POST /v1/outbound-calling (outbound.go),
// plus the path's agent, the environment's connector (languages, variant)
// and upper-case statuses.

import (
	"cmp"
	"errors"
	"maps"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/store"
)

// Messages of the agent-scoped calls that tests compare.
const (
	MsgAgentCallNoConnector   = "No connector found for the specified environment."
	MsgAgentCallNotConfigured = "Outbound calling is not configured for this agent."
	MsgAgentCallOtherEnv      = "Call was not placed in this environment."
)

// AgentCallEncryptions are the agents document's encryption values (the
// first is the default).
var AgentCallEncryptions = []string{"tls_srtp", "udp_rtp", "udp_srtp", "tls_rtp"}

// AgentCallBody is an agent call's body (OAS InitiateOutboundCallBody).
type AgentCallBody struct {
	ToNumber    *string        `json:"toNumber"`
	Environment *string        `json:"environment"`
	CountryCode *string        `json:"countryCode"`
	VariantID   *string        `json:"variantId"`
	Encryption  *string        `json:"encryption"`
	Metadata    map[string]any `json:"metadata"`
}

func (AgentCallBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"toNumber":    {Required: true, Doc: "E.164, or a national number with countryCode."},
		"environment": {Required: true, Enum: DeployEnvs, Doc: "The connector of this environment places the call."},
		"countryCode": {Pattern: CountryCodeRE, Doc: "ISO 3166-1 alpha-2 code of a national toNumber."},
		"variantId":   {Doc: "A variant of the agent; default the connector's (else the default variant)."},
		"encryption":  {Enum: AgentCallEncryptions, Doc: "Default " + AgentCallEncryptions[0] + "."},
		"metadata":    {Doc: "String values, delivered as SIP headers; the base64 form must be under 26 KB."},
	}
}

// AgentCallQueued is the answer of a placed call (OAS OutboundCallResponse).
type AgentCallQueued struct {
	CallSID string `json:"callSid"`
	Status  string `json:"status"`
}

// AgentCallStatus is a call's status (OAS OutboundCallStatusResponse).
type AgentCallStatus struct {
	CallSID string `json:"callSid"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
}

func (AgentCallStatus) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"status": {Enum: AgentCallStatuses}}
}

// AgentCallStatuses are the statuses in the agents document's form.
var AgentCallStatuses = []string{"QUEUED", "CALLING", "SUCCESS", "FAILURE"}

// agentCallInput reads the body, reporting every bad field at once.
func agentCallInput(b AgentCallBody) (env string, in CallRequest, err error) {
	var fields []FieldError
	bad := func(field, msg string) { fields = append(fields, FieldError{Field: field, Message: msg}) }
	switch {
	case b.ToNumber == nil:
		bad("toNumber", "is required")
	default:
		if in.To, err = OutboundNumber(b.ToNumber, b.CountryCode); err != nil {
			if e := (*Error)(nil); errors.As(err, &e) && e.Message == MsgOutboundCountry {
				bad("countryCode", "must be a supported ISO 3166-1 alpha-2 code")
			} else {
				bad("toNumber", "must be a phone number in E.164 format (e.g. +14155552671), or a national number with countryCode")
			}
		}
	}
	switch {
	case b.Environment == nil:
		bad("environment", "is required")
	case !slices.Contains(DeployEnvs, *b.Environment):
		bad("environment", "must be one of: "+strings.Join(DeployEnvs, ", "))
	default:
		env = *b.Environment
	}
	in.Encryption = Encryptions[0]
	if b.Encryption != nil {
		i := slices.Index(AgentCallEncryptions, *b.Encryption)
		if i < 0 {
			bad("encryption", "must be one of: "+strings.Join(AgentCallEncryptions, ", "))
		} else {
			in.Encryption = strings.ToUpper(strings.ReplaceAll(*b.Encryption, "_", "/"))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(b.Metadata)) {
		if _, ok := b.Metadata[k].(string); !ok {
			bad("metadata/"+k, "must be a string")
		}
	}
	if len(fields) == 0 {
		if in.Metadata, err = OutboundMetadata(b.Metadata); err != nil {
			bad("metadata", "its base64 form must be under 26 KB")
		}
	}
	if len(fields) > 0 {
		return "", CallRequest{}, Invalid(CodeValidation, MsgValidationFailed, fields...)
	}
	return env, in, nil
}

// PlaceAgentCall places a call for the path's agent
// (docs/api.md#agents-outbound) after checking the body, agent, outbound
// configuration, connector and variant; outcome forces the outcome.
func (a *Engine) PlaceAgentCall(p *Principal, agent string, b AgentCallBody, outcome string) (AgentCallQueued, error) {
	env, in, err := agentCallInput(b)
	if err != nil {
		return AgentCallQueued{}, err
	}
	ag, cn, err := a.tel.ConnectorOf(p, agent, env)
	if err != nil {
		return AgentCallQueued{}, err
	}
	proj := p.Account.Project(ag.ID)
	if proj == nil || proj.Outbound == nil || !proj.Outbound.Enabled {
		return AgentCallQueued{}, Errf(KindInvalid, CodeOutboundNotEnabled, MsgAgentCallNotConfigured)
	}
	if cn == nil {
		return AgentCallQueued{}, Errf(KindNotFound, telephony.CodeConnectorNotFound, MsgAgentCallNoConnector)
	}
	variant := cn.VariantID
	if b.VariantID != nil {
		v := proj.Variant(*b.VariantID)
		if v == nil {
			return AgentCallQueued{}, Invalid(CodeValidation, MsgValidationFailed,
				FieldError{Field: "variantId", Message: "not a variant of agent " + ag.ID})
		}
		variant = v.ID
	}
	in.Outcome = outcome
	sid, err := a.queueCall(p, proj, in, func(call *callRecord) {
		call.Environment, call.VariantID, call.ConnectorID = env, variant, cn.ConnectorID
		call.ASRLangCode, call.TTSLangCode = cn.ASRLangCode, cn.TTSLangCode
	})
	if err != nil {
		return AgentCallQueued{}, err
	}
	return AgentCallQueued{CallSID: sid, Status: "QUEUED"}, nil
}

// AgentCall reads a call of the agent placed in env: 400 for a bad env or
// no connector there or another env, 404 for unknown or expired calls.
func (a *Engine) AgentCall(p *Principal, agent, sid, env string) (AgentCallStatus, error) {
	switch {
	case env == "":
		return AgentCallStatus{}, Invalid(CodeValidation, MsgValidationFailed, FieldError{Field: "environment", Message: "is required"})
	case !slices.Contains(DeployEnvs, env):
		return AgentCallStatus{}, Invalid(CodeValidation, MsgValidationFailed,
			FieldError{Field: "environment", Message: "must be one of: " + strings.Join(DeployEnvs, ", ")})
	case !CallSIDRE.MatchString(sid):
		return AgentCallStatus{}, Errf(KindInvalid, CodeOutboundCallSID, MsgOutboundCallSID)
	}
	ag, cn, err := a.tel.ConnectorOf(p, agent, env)
	if err != nil {
		return AgentCallStatus{}, err
	}
	if cn == nil {
		return AgentCallStatus{}, Errf(KindInvalid, telephony.CodeConnectorNotFound, MsgAgentCallNoConnector)
	}
	var call callRecord
	if err := a.store.GetDoc(DocOutboundCall, p.Region, sid, &call); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return AgentCallStatus{}, Errf(KindNotFound, CodeOutboundNotFound, MsgOutboundNotFound)
		}
		return AgentCallStatus{}, err
	}
	if call.AccountID != p.Account.ID || call.ProjectID != ag.ID || call.expired(a.clock.Now()) {
		return AgentCallStatus{}, Errf(KindNotFound, CodeOutboundNotFound, MsgOutboundNotFound)
	}
	if callEnv := cmp.Or(call.Environment, "live"); callEnv != env {
		return AgentCallStatus{}, Errf(KindInvalid, CodeOutboundInvalid, MsgAgentCallOtherEnv)
	}
	return AgentCallStatus{CallSID: sid, Status: strings.ToUpper(call.Status), Reason: call.Reason}, nil
}
