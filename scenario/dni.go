package scenario

// The number reservation (dni) block of a project.

import (
	"regexp"
	"time"
)

// DefaultDNIWindow is how long a reservation holds by default.
const DefaultDNIWindow = 15 * time.Minute

// DNIPool is a project's reservable numbers.
type DNIPool struct {
	// Numbers are E.164 numbers; each belongs to one project.
	Numbers []string `yaml:"numbers" json:"numbers"`
	// Window is how long a reservation holds (default 15m).
	Window Duration `yaml:"window" json:"window,omitempty"`
}

var E164RE = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)

// dni validates the projects' number pools; a number is in one pool.
func (v *validator) dni(s *Scenario) {
	numbers := map[string]path{}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		for j := range a.Projects {
			if pr := &a.Projects[j]; pr.DNI != nil {
				v.dniPool(pr.DNI, path{"accounts", i, "projects", j, "dni"}, numbers)
			}
		}
	}
}

func (v *validator) dniPool(d *DNIPool, p path, seen map[string]path) {
	if len(d.Numbers) == 0 {
		v.reportf(p.with("numbers"), "required: at least one E.164 number")
	}
	v.numberList(p.with("numbers"), d.Numbers, seen, "DNI number")
	v.clockSetting(p.with("window"), d.Window)
	if d.Window == 0 {
		d.Window = Duration(DefaultDNIWindow)
	}
}
