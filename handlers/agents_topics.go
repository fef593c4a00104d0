package handlers

// Knowledge-base topics of a branch. The topics of the
// deployment active in an environment answer that environment's runtime
// (engine_script.go).

import (
	"net/http"
	"slices"
	"strings"

	"github.com/gin-gonic/gin"
)

func (a *API) registerAgentTopics(rt gin.IRoutes) {
	rt.GET("/v1/agents/:agent/branches/:branch/knowledge-base/topics", a.wrap(famAgents, a.handleTopicList))
	rt.POST("/v1/agents/:agent/branches/:branch/knowledge-base/topics", a.wrap(famAgents, a.handleTopicCreate))
	rt.GET("/v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", a.wrap(famAgents, a.handleTopicGet))
	rt.PATCH("/v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", a.wrap(famAgents, a.handleTopicUpdate))
	rt.DELETE("/v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", a.wrap(famAgents, a.handleTopicDelete))
}

type topicRec struct {
	ID             string        `json:"id"`
	Name           string        `json:"name"`
	Content        string        `json:"content"`
	Actions        string        `json:"actions"`
	ExampleQueries exampleQuries `json:"exampleQueries"`
	IsActive       bool          `json:"isActive"`
}

type exampleQuries struct {
	Queries []string `json:"queries"`
}

// --- knowledge-base topics ---

var topicFields = []string{"name", "content", "actions", "exampleQueries", "isActive"}

// readTopic validates topic fields into t (all required ones on create).
func readTopic(c *gin.Context, t *topicRec, create bool) error {
	f, err := readFields(c, false, append(topicFields, "sampleQuestions")...)
	if err != nil {
		return err
	}
	if f.has("sampleQuestions") {
		f.fail("sampleQuestions", "is not supported: use exampleQueries")
	}
	if create {
		f.require("name")
		f.require("content")
	}
	if s, ok := f.strLen("name", 1, 255); ok {
		t.Name = s
	}
	if s, ok := f.strLen("content", 1, 1<<20); ok {
		t.Content = s
	}
	if s, ok := f.str("actions"); ok {
		t.Actions = s
	}
	if f.has("exampleQueries") {
		var q exampleQuries
		if f.object("exampleQueries", &q, "must be an object {queries: [string]}") {
			if len(q.Queries) > 100 {
				f.fail("exampleQueries", "at most 100 queries")
			}
			if q.Queries == nil {
				q.Queries = []string{}
			}
			t.ExampleQueries = q
		}
	}
	if b, ok := f.boolean("isActive"); ok {
		t.IsActive = b
	}
	return f.err()
}

func findTopic(cont *branchContent, id string) (int, *topicRec) {
	for i, t := range cont.Topics {
		if t.ID == id {
			return i, t
		}
	}
	return -1, nil
}

func topicNameTaken(cont *branchContent, name, except string) bool {
	for _, t := range cont.Topics {
		if t.ID != except && strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// handleTopicList handles "GET .../knowledge-base/topics" (a bare array).
func (a *API) handleTopicList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, cont.Topics)
	return nil
}

// handleTopicCreate handles "POST .../knowledge-base/topics" (201).
func (a *API) handleTopicCreate(c *gin.Context) error {
	t := &topicRec{ExampleQueries: exampleQuries{Queries: []string{}}, IsActive: true}
	if err := readTopic(c, t, true); err != nil {
		return err
	}
	t.ID = a.newID("TOPICS-", hexDigits, 8)
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		if topicNameTaken(cont, t.Name, "") {
			return errf(KindConflict, CodeTopicExists, MsgTopicExists)
		}
		cont.Topics = append(cont.Topics, t)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, t)
	return nil
}

// handleTopicGet handles "GET .../knowledge-base/topics/{topicId}".
func (a *API) handleTopicGet(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	_, t := findTopic(cont, c.Param("item"))
	if t == nil {
		return errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound)
	}
	c.JSON(http.StatusOK, t)
	return nil
}

// handleTopicUpdate handles "PATCH .../knowledge-base/topics/{topicId}" (204, notes §4).
func (a *API) handleTopicUpdate(c *gin.Context) error {
	var patch topicRec
	if err := readTopic(c, &patch, false); err != nil {
		return err
	}
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		_, t := findTopic(cont, id)
		if t == nil {
			return errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound)
		}
		// Apply the given fields (re-read from the body, a flat patch).
		if patch.Name != "" && topicNameTaken(cont, patch.Name, id) {
			return errf(KindConflict, CodeTopicExists, MsgTopicExists)
		}
		return readTopic(c, t, false)
	}); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// handleTopicDelete handles "DELETE .../knowledge-base/topics/{topicId}" (204).
func (a *API) handleTopicDelete(c *gin.Context) error {
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i, _ := findTopic(cont, id)
		if i < 0 {
			return errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound)
		}
		cont.Topics = slices.Delete(cont.Topics, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
