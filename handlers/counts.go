package handlers

// What each family holds, counted over every region: the console's
// overview.

// Count is how many resources of one kind a family holds.
type Count struct {
	Family string `json:"family"`
	What   string `json:"what"`
	N      int    `json:"n"`
}

// Counts counts the resources of each family that counts some (Family.Counts),
// in every region.
func (a *API) Counts() ([]Count, error) {
	var out []Count
	for _, f := range a.tab.families {
		for _, c := range f.Counts {
			n, err := c.N(a)
			if err != nil {
				return nil, err
			}
			out = append(out, Count{Family: f.Name, What: c.What, N: n})
		}
	}
	return out, nil
}

// countDocs counts a stored document kind in every region.
func countDocs(what, kind string) Counted {
	return Counted{What: what, N: func(a *API) (int, error) { return a.CountDocs(kind) }}
}

// countConversations counts the conversations of every region.
func (a *API) countConversations() (int, error) { return a.CountConversations() }

// countSessions counts the live messaging sessions.
func (a *API) countSessions() (int, error) {
	a.messaging.mu.Lock()
	defer a.messaging.mu.Unlock()
	return len(a.messaging.sessions), nil
}
