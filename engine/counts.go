package engine

// What the store holds, counted over every region: the console's
// overview.

import "github.com/agentplatform/mockplatform/scenario"

// CountDocs counts the stored documents of a kind in every region.
func (e *Engine) CountDocs(kind string) (int, error) {
	n := 0
	for _, region := range scenario.Regions {
		k, err := e.store.CountDocs(kind, region)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}

// CountConversations counts the conversations of every region.
func (e *Engine) CountConversations() (int, error) {
	n := 0
	for _, region := range scenario.Regions {
		k, err := e.store.CountConversations(region)
		if err != nil {
			return 0, err
		}
		n += k
	}
	return n, nil
}
