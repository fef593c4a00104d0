package engine

// Dynamic number reservation (docs/api.md#dni; docs/fidelity.md G19,
// M11.9): a reservation ("dni" document by number) holds one of the
// project's pool numbers for a window on the virtual clock; a call within
// it reaches the project's agent with the reservation's attributes.
// Expired reservations are reclaimed lazily, so no timer is needed.

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DNI messages ([OAS] 404 text; the 400 text is [INF]).
const (
	MsgDNINoRoute         = "no available route found"
	MsgDNIAttributes      = "attributes is required and must be an object"
	DocDNI                = "dni"
	dniConversationPrefix = "CA"
)

type dniReservation struct {
	Number     string         `json:"number"`
	AccountID  string         `json:"account_id"`
	ProjectID  string         `json:"project_id"`
	Attributes map[string]any `json:"attributes"`
	ReservedAt time.Time      `json:"reserved_at"`
	ExpiresAt  time.Time      `json:"expires_at"`
	// Used and Expired: a call was routed by it; its window was found over.
	Used    bool `json:"used,omitempty"`
	Expired bool `json:"expired,omitempty"`
}

type DniResponse struct {
	DNI string `json:"dni"`
}

var (
	errDNIBusy      = errors.New("number reserved")
	errDNIUnchanged = errors.New("reservation unchanged")
)

// ReserveNumber reserves the first free number of p's project pool for the
// pool's window, reclaiming expired ones; no free route is 404.
func (a *Engine) ReserveNumber(p *Principal, attributes map[string]any) (string, error) {
	if p.Project == nil || p.Project.DNI == nil {
		return "", &Error{Kind: KindNotFound, Message: MsgDNINoRoute}
	}
	pool := p.Project.DNI
	now := a.clock.Now()
	window := pool.Window.D()
	if window <= 0 {
		window = scenario.DefaultDNIWindow
	}
	res := dniReservation{AccountID: p.Account.ID, ProjectID: p.Project.ID, Attributes: attributes,
		ReservedAt: now, ExpiresAt: now.Add(window)}
	for _, number := range pool.Numbers {
		res.Number = number
		err := a.store.InsertDoc(DocDNI, p.Region, number, &res)
		if errors.Is(err, store.ErrExists) {
			var cur dniReservation
			var from string
			err = a.store.UpdateDoc(DocDNI, p.Region, number, &cur, func() error {
				if now.Before(cur.ExpiresAt) {
					return errDNIBusy
				}
				from = dniState(&cur)
				cur = res
				return nil
			})
			if err == nil && from != "expired" {
				a.RecordTransition(MachineDNIReservation, from, "expired")
			}
			if errors.Is(err, errDNIBusy) || errors.Is(err, store.ErrNotFound) {
				continue
			}
		}
		if err != nil {
			return "", err
		}
		a.RecordTransition(MachineDNIReservation, "", "reserved")
		return number, nil
	}
	return "", &Error{Kind: KindNotFound, Message: MsgDNINoRoute}
}

// ErrNotRouted is returned by Dial for a number with no active reservation.
var ErrNotRouted = errors.New("no active reservation for this number")

// DialResult is the voice conversation a dialled number started.
type DialResult struct {
	ConversationID string `json:"conversation_id"`
	// Response is the agent's greeting.
	Response string `json:"response"`
}

// Dial simulates a caller dialling a number: within its reservation it
// starts a VOICE-SIP conversation of the reserving agent carrying the
// reservation's attributes; otherwise ErrNotRouted.
func (a *Engine) Dial(number, from string) (*DialResult, error) {
	now := a.clock.Now()
	w := a.View()
	for _, region := range scenario.Regions {
		var res dniReservation
		var was, is string // the reservation's state before the call and after
		err := a.store.UpdateDoc(DocDNI, region, number, &res, func() error {
			was, is = dniState(&res), dniDialState(&res, now)
			if was == is {
				return errDNIUnchanged
			}
			res.Used, res.Expired = res.Used || is == "used", is == "expired"
			return nil
		})
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil && !errors.Is(err, errDNIUnchanged) {
			return nil, err
		}
		if was != is || is == "used" {
			a.RecordTransition(MachineDNIReservation, was, is)
		}
		if !now.Before(res.ExpiresAt) {
			return nil, fmt.Errorf("dial %s: reservation expired at %s: %w", number, res.ExpiresAt.Format(time.RFC3339), ErrNotRouted)
		}
		acct := w.Account(res.AccountID)
		proj := acct.Project(res.ProjectID)
		if acct == nil || proj == nil {
			return nil, fmt.Errorf("dial %s: %w", number, ErrNotRouted)
		}
		var variant *scenario.Variant
		for i := range proj.Variants {
			if proj.Variants[i].Default {
				variant = &proj.Variants[i]
			}
		}
		conv, out, err := a.StartConversation(ConvStart{
			Region: region, Account: acct, Project: proj, Environment: "live", Channel: "VOICE-SIP",
			Variant: variant, FromNumber: from, ToNumber: number, Attributes: res.Attributes,
			State: map[string]any{"dni": number},
			ID:    dniConversationPrefix + a.NewID("", "0123456789abcdef", 32),
		})
		if err != nil {
			return nil, err
		}
		return &DialResult{ConversationID: conv.ID, Response: out.Text}, nil
	}
	return nil, fmt.Errorf("dial %s: %w", number, ErrNotRouted)
}

// Reservation is a stored number reservation (its attributes left out).
type Reservation struct {
	Number     string    `json:"number"`
	Region     string    `json:"region"`
	AccountID  string    `json:"account_id"`
	ProjectID  string    `json:"project_id"`
	ReservedAt time.Time `json:"reserved_at"`
	ExpiresAt  time.Time `json:"expires_at"`
	// Active reports that the window is still open: a Dial is routed.
	Active bool `json:"active"`
}

// Reservations lists every region's stored reservations by number.
func (a *Engine) Reservations() ([]Reservation, error) {
	now := a.clock.Now()
	var out []Reservation
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, DocDNI, region, func(_ string, r *dniReservation) bool {
			out = append(out, Reservation{Number: r.Number, Region: region, AccountID: r.AccountID, ProjectID: r.ProjectID,
				ReservedAt: r.ReservedAt, ExpiresAt: r.ExpiresAt, Active: now.Before(r.ExpiresAt)})
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
