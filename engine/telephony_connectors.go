package engine

// Telephony connectors of an agent: list, get, batch get, lookup by
// number, update (one or a batch; moving a connector to another agent
// moves its numbers), delete (its numbers lose their routing). Connectors
// come from the scenario: the API has no create operation.

import (
	"slices"

	"github.com/agentplatform/mockplatform/scenario"
)

type (
	ConnectorList struct {
		Connectors []*ConnectorRec `json:"connectors"`
	}
	ConnectorsFound struct {
		Found    []*ConnectorRec `json:"found"`
		NotFound []string        `json:"notFound"`
	}
	ConnectorResults struct {
		Results []BatchResult `json:"results"`
	}
	ConnectorDeleted struct {
		DeletedConnector    string   `json:"deletedConnector"`
		DeletedPhoneNumbers []string `json:"deletedPhoneNumbers"`
	}
)

var ConnectorPatchRules = map[string]FieldRule{
	"variantId":   {Nullable: true, Doc: "A variant of the connector's agent; null or \"\" unassigns it."},
	"asrLangCode": {Pattern: scenario.LangCodeRE},
	"voiceName":   {Pattern: scenario.VoiceNameRE, Doc: "Also sets ttsLangCode (its language prefix)."},
	"projectId":   {MinLen: 1, Doc: "Another agent of the account to move the connector to."},
}

func (ConnectorRec) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: scenario.Environments}}
}

// connectorPatch is a validated connector update (OAS UpdateConnectorBody:
// only the given fields change; variantId null unassigns).
type ConnectorPatch struct {
	Variant, Asr, Voice, Project *string
	Target                       *AgentDoc // the agent of project, when given
}

// apply changes x by the patch (the agent is x's current agent); it
// returns a field error, leaving x unchanged, when the variant is not one
// of the (target) agent's main-branch variants.
func (cp ConnectorPatch) Apply(t *TelephonyDoc, cur *AgentDoc, x *ConnectorRec) *FieldError {
	owner := cur
	if cp.Target != nil {
		owner = cp.Target
	}
	if cp.Variant != nil && *cp.Variant != "" {
		main := owner.Branch(MainBranch)
		if main == nil || !slices.ContainsFunc(main.Content.Variants, func(v *Variant) bool { return v.ID == *cp.Variant }) {
			return &FieldError{Field: "variantId", Message: "not a variant of agent " + owner.AgentID}
		}
	}
	if cp.Variant != nil {
		x.VariantID = *cp.Variant
	} else if cp.Target != nil && cp.Target.AgentID != cur.AgentID {
		// The variant ids of one agent mean nothing to another.
		x.VariantID = ""
	}
	if cp.Asr != nil {
		x.ASRLangCode = *cp.Asr
	}
	if cp.Voice != nil {
		// "tts_lang_code is auto-derived from the voice name prefix" (OAS).
		x.VoiceName = *cp.Voice
		x.TTSLangCode = scenario.VoiceNameRE.FindStringSubmatch(*cp.Voice)[1]
	}
	if cp.Target != nil && cp.Target.AgentID != x.ProjectID {
		// The connector's numbers move with it.
		for _, n := range t.Numbers {
			if n.ConnectorID == x.ConnectorID && n.ProjectID == x.ProjectID {
				n.ProjectID = cp.Target.AgentID
			}
		}
		x.ProjectID = cp.Target.AgentID
	}
	return nil
}

// batchResult is one item of a batch connector update.
type BatchResult struct {
	ConnectorID string        `json:"connectorId"`
	Success     bool          `json:"success"`
	Data        *ConnectorRec `json:"data,omitempty"`
	Error       string        `json:"error,omitempty"`
}

// fieldText is a field error as one batch item's error text.
func FieldText(fe FieldError) string { return fe.Field + ": " + fe.Message }
