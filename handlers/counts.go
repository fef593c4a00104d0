package handlers

// What each family holds, counted over every region: the console's
// overview.

import "github.com/agentplatform/mockplatform/scenario"

// Count is how many resources of one kind a family holds.
type Count struct {
	Family string `json:"family"`
	What   string `json:"what"`
	N      int    `json:"n"`
}

// countedDocs are the stored document kinds Counts reports.
var countedDocs = []struct{ family, what, kind string }{
	{"agents", "agents", docAgent},
	{"alerts", "alert rules", docAlertRule},
	{"webhooks", "webhook endpoints", docWebhook},
	{"outbound", "outbound calls", docOutboundCall},
	{"dni", "number reservations", docDNI},
}

// Counts counts the stored resources of each family in every region, and
// the live messaging sessions.
func (a *API) Counts() ([]Count, error) {
	conv := Count{Family: "conversations", What: "conversations"}
	docs := make([]Count, len(countedDocs))
	for i, d := range countedDocs {
		docs[i] = Count{Family: d.family, What: d.what}
	}
	for _, region := range scenario.Regions {
		n, err := a.store.CountConversations(region)
		if err != nil {
			return nil, err
		}
		conv.N += n
		for i, d := range countedDocs {
			n, err := a.store.CountDocs(d.kind, region)
			if err != nil {
				return nil, err
			}
			docs[i].N += n
		}
	}
	a.messaging.mu.Lock()
	sessions := Count{Family: "messaging", What: "live sessions", N: len(a.messaging.sessions)}
	a.messaging.mu.Unlock()
	return append(append([]Count{conv}, docs...), sessions), nil
}
