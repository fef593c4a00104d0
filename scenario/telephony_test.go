package scenario

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTelephonyConnectors(t *testing.T) {
	s := mustParse(t, "c.yaml", builderBase+`        variants:
          - {id: VARIANT-0000DEF0, name: Default, default: true}
          - {id: VARIANT-00000B2B, name: Spring Promo}
        connectors:
          - id: CONN-1
            name: Main
            variant: Spring Promo
            voice_name: en-GB-Wavenet-B
            phone_numbers: ["+14155550150"]
          - {id: CONN-2, name: Test, client_env: sandbox, asr_lang_code: fr-FR, disable_handoff: true}
`)
	want := []Connector{
		{ID: "CONN-1", Name: "Main", ClientEnv: "live", Variant: "VARIANT-00000B2B", ASRLangCode: "en-US", TTSLangCode: "en-GB",
			VoiceName: "en-GB-Wavenet-B", PhoneNumbers: []string{"+14155550150"}},
		{ID: "CONN-2", Name: "Test", ClientEnv: "sandbox", ASRLangCode: "fr-FR", TTSLangCode: "fr-FR", VoiceName: "fr-FR-Standard-A", DisableHandoff: true},
	}
	if diff := cmp.Diff(want, s.Accounts[0].Projects[0].Connectors); diff != "" {
		t.Fatalf("defaults (-want +got):\n%s", diff)
	}
	// The default scenario has one connector with one number.
	if d := testVoc.Default().Accounts[0].Projects[0].Connectors; len(d) != 1 || len(d[0].PhoneNumbers) != 1 {
		t.Fatalf("default connectors %+v", d)
	}

	cases := map[string]struct{ doc, want string }{
		"id":        {"connectors: [{name: a}]", "connectors[0].id: required"},
		"id chars":  {"connectors: [{id: 'a b', name: a}]", "invalid connector id"},
		"name":      {"connectors: [{id: c}]", "connectors[0].name: required"},
		"env":       {"connectors: [{id: c, name: a, client_env: prod}]", `"prod" is not one of`},
		"variant":   {"connectors: [{id: c, name: a, variant: Gold}]", `unknown variant "Gold"`},
		"asr":       {"connectors: [{id: c, name: a, asr_lang_code: English}]", "invalid language code"},
		"voice":     {"connectors: [{id: c, name: a, voice_name: robot}]", "invalid voice name"},
		"tts":       {"connectors: [{id: c, name: a, voice_name: en-GB-Wavenet-B, tts_lang_code: en-US}]", "disagrees with voice_name"},
		"number":    {"connectors: [{id: c, name: a, phone_numbers: ['555-0100']}]", "invalid number"},
		"dup id":    {"connectors: [{id: c, name: a}, {id: c, name: b}]", "duplicate connector id"},
		"dup num":   {"connectors: [{id: c, name: a, phone_numbers: ['+14155550150']}, {id: d, name: b, phone_numbers: ['+14155550150']}]", "duplicate phone number"},
		"dni clash": {"dni: {numbers: ['+14155550150']}\n        connectors: [{id: c, name: a, phone_numbers: ['+14155550150']}]", "also in a dni pool"},
	}
	for name, tc := range cases {
		t.Run(name, func(t *testing.T) {
			got := problems(t, builderBase+"        "+tc.doc+"\n")
			if len(got) != 1 || !strings.Contains(got[0], tc.want) {
				t.Fatalf("problems %q, want one containing %q", got, tc.want)
			}
		})
	}
}
