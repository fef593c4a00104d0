package scenario

import (
	"strings"
	"testing"
)

func TestDNINumberUniqueAcrossProjects(t *testing.T) {
	doc := projectBase + `        dni: {numbers: ["+14155550100"]}
      - slug: other
        id: "2002"
        dni: {numbers: ["+14155550100"]}
`
	got := strings.Join(problems(t, doc), "\n")
	if !strings.Contains(got, `duplicate DNI number "+14155550100"`) {
		t.Errorf("problems = %s", got)
	}
}
