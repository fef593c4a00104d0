package scenario

// The telephony block: the projects' connectors with their phone numbers.

import (
	"maps"
	"regexp"
	"slices"
)

// Connector is a seeded telephony connector: the voice,
// language, variant and environment bundle that answers incoming calls to
// its phone numbers.
type Connector struct {
	// ID is the connectorId (letters, digits, dashes and underscores);
	// required and unique in the scenario.
	ID string `yaml:"id" json:"id"`
	// Name is the display name (required).
	Name string `yaml:"name" json:"name"`
	// ClientEnv is live (default), pre-release or sandbox.
	ClientEnv string `yaml:"client_env" json:"client_env,omitempty"`
	// Variant is a variant of the project (id or name; stored as its id);
	// empty means unassigned (the default variant answers).
	Variant string `yaml:"variant" json:"variant,omitempty"`
	// ASRLangCode is the speech recognition language (default en-US).
	ASRLangCode string `yaml:"asr_lang_code" json:"asr_lang_code,omitempty"`
	// TTSLangCode is the text-to-speech language (default: the prefix of
	// voice_name, else asr_lang_code).
	TTSLangCode string `yaml:"tts_lang_code" json:"tts_lang_code,omitempty"`
	// VoiceName is the synthetic voice, "<lang>-<REGION>-<name>" (default
	// <tts_lang_code>-Standard-A).
	VoiceName string `yaml:"voice_name" json:"voice_name,omitempty"`
	// DisableHandoff disables call handoff.
	DisableHandoff bool `yaml:"disable_handoff" json:"disable_handoff,omitempty"`
	// PhoneNumbers are E.164 numbers routed to the connector (unique in the
	// scenario, and not in any dni pool).
	PhoneNumbers []string `yaml:"phone_numbers" json:"phone_numbers,omitempty"`
}

var (
	ConnectorIDRE = regexp.MustCompile(`^[A-Za-z0-9_-]+$`)
	// LangCodeRE is a language code such as en-US (ASR and TTS codes).
	LangCodeRE = regexp.MustCompile(`^[a-z]{2,3}(-[A-Za-z0-9]{2,8})*$`)
	// VoiceNameRE is a voice name; its first group is the TTS language.
	VoiceNameRE = regexp.MustCompile(`^([a-z]{2,3}-[A-Z]{2})-[A-Za-z0-9-]+$`)
)

// connectors validates a project's connectors and fills in defaults.
func (v *validator) connectors(proj *Project, pp path, ids, numbers map[string]path) {
	for k := range proj.Connectors {
		cn := &proj.Connectors[k]
		p := pp.with("connectors", k)
		switch {
		case cn.ID == "":
			v.reportf(p.with("id"), "required")
		case !ConnectorIDRE.MatchString(cn.ID):
			v.reportf(p.with("id"), "invalid connector id %q (want letters, digits, dashes and underscores)", cn.ID)
		}
		v.unique(ids, cn.ID, p.with("id"), "connector id")
		if cn.Name == "" {
			v.reportf(p.with("name"), "required")
		}
		if cn.ClientEnv == "" {
			cn.ClientEnv = "live"
		}
		v.oneOf(p.with("client_env"), cn.ClientEnv, Environments)
		if cn.Variant != "" {
			found := false
			for _, vr := range proj.Variants {
				if vr.ID == cn.Variant || vr.Name == cn.Variant {
					cn.Variant, found = vr.ID, true
					break
				}
			}
			if !found {
				v.reportf(p.with("variant"), "unknown variant %q of project %q", cn.Variant, proj.Slug)
			}
		}
		if cn.ASRLangCode == "" {
			cn.ASRLangCode = "en-US"
		}
		if !LangCodeRE.MatchString(cn.ASRLangCode) {
			v.reportf(p.with("asr_lang_code"), "invalid language code %q (want e.g. en-US)", cn.ASRLangCode)
		}
		implied := ""
		if cn.VoiceName != "" {
			m := VoiceNameRE.FindStringSubmatch(cn.VoiceName)
			if m == nil {
				v.reportf(p.with("voice_name"), "invalid voice name %q (want e.g. en-US-Neural2-A)", cn.VoiceName)
			} else {
				implied = m[1]
			}
		}
		switch {
		case cn.TTSLangCode == "" && implied != "":
			cn.TTSLangCode = implied
		case cn.TTSLangCode == "":
			cn.TTSLangCode = cn.ASRLangCode
		case !LangCodeRE.MatchString(cn.TTSLangCode):
			v.reportf(p.with("tts_lang_code"), "invalid language code %q (want e.g. en-US)", cn.TTSLangCode)
		case implied != "" && implied != cn.TTSLangCode:
			v.reportf(p.with("tts_lang_code"), "%q disagrees with voice_name %q (the voice implies %s)", cn.TTSLangCode, cn.VoiceName, implied)
		}
		if cn.VoiceName == "" {
			cn.VoiceName = cn.TTSLangCode + "-Standard-A"
		}
		v.numberList(p.with("phone_numbers"), cn.PhoneNumbers, numbers, "phone number")
	}
}

// numberList reports numbers that are not E.164 or were seen before.
func (v *validator) numberList(p path, list []string, seen map[string]path, what string) {
	for k, n := range list {
		np := p.with(k)
		if !E164RE.MatchString(n) {
			v.reportf(np, "invalid number %q (want E.164, e.g. +14155550100)", n)
			continue
		}
		v.unique(seen, n, np, what)
	}
}

// telephony validates the connectors; ids and numbers are unique, and no
// number is also in a dni pool (dialling it would be ambiguous).
func (v *validator) telephony(s *Scenario) {
	connIDs, numbers := map[string]path{}, map[string]path{}
	dniNumbers := map[string]bool{}
	for i := range s.Accounts {
		for j := range s.Accounts[i].Projects {
			if d := s.Accounts[i].Projects[j].DNI; d != nil {
				for _, n := range d.Numbers {
					dniNumbers[n] = true
				}
			}
		}
	}
	defer func() {
		for _, n := range slices.Sorted(maps.Keys(numbers)) {
			if dniNumbers[n] {
				v.reportf(numbers[n], "number %q is also in a dni pool", n)
			}
		}
	}()
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		for j := range a.Projects {
			v.connectors(&a.Projects[j], ap.with("projects", j), connIDs, numbers)
		}
	}
}
