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

// agentTopicsRoutes are the routes of AgentTopics.
var agentTopicsRoutes = []Route{
	route("GET /v1/agents/:agent/branches/:branch/knowledge-base/topics", (*API).handleTopicList, opTopicList),
	route("POST /v1/agents/:agent/branches/:branch/knowledge-base/topics", (*API).handleTopicCreate, opTopicCreate),
	route("GET /v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", (*API).handleTopicGet, opTopicGet),
	route("PATCH /v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", (*API).handleTopicUpdate, opTopicUpdate),
	route("DELETE /v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", (*API).handleTopicDelete, opTopicDelete),
}

var (
	opTopicList = &Op{ID: "topicList", Summary: "List knowledge-base topics",
		Doc: "A bare array (docs/api.md#agents-topics).", Responses: []Response{ok(200, []topicRec{})}, Errors: []int{404}}
	opTopicCreate = &Op{ID: "topicCreate", Summary: "Create a topic",
		Body: topicBody{}, Responses: []Response{ok(201, topicRec{})}, Errors: []int{400, 404, 409, 422}}
	opTopicGet = &Op{ID: "topicGet", Summary: "Read a topic",
		Responses: []Response{ok(200, topicRec{})}, Errors: []int{404}}
	opTopicUpdate = &Op{ID: "topicUpdate", Summary: "Update a topic",
		Body: topicBody{}, BodyPartial: true, Responses: []Response{{Status: 204}}, Errors: []int{400, 404, 409, 422}}
	opTopicDelete = &Op{ID: "topicDelete", Summary: "Delete a topic",
		Responses: []Response{{Status: 204}}, Errors: []int{404, 422}}
)

// topicBody is the body of a topic create (name and content required) or
// update; readTopic reads it field by field.
type topicBody struct {
	Name            string        `json:"name"`
	Content         string        `json:"content"`
	Actions         string        `json:"actions"`
	ExampleQueries  exampleQuries `json:"exampleQueries"`
	IsActive        bool          `json:"isActive"`
	SampleQuestions any           `json:"sampleQuestions"`
}

func (topicBody) FieldRules() map[string]FieldRule { return topicRules }

var topicRules = map[string]FieldRule{
	"name":            {Required: true, MinLen: 1, MaxLen: 255, Doc: "Unique in the branch, in any case."},
	"content":         {Required: true, MinLen: 1, MaxLen: behaviorMaxLen},
	"isActive":        {Doc: "Default true."},
	"sampleQuestions": {Doc: "Refused (400): the field is exampleQueries."},
}

func (exampleQuries) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"queries": {MaxItems: maxExampleQueries}}
}

// maxExampleQueries bounds a topic's example queries.
const maxExampleQueries = 100

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

// readTopic validates topic fields into t (all required ones on create).
func readTopic(c *gin.Context, t *topicRec, create bool) error {
	f, err := readFields(c, false, bodyFields(topicBody{})...)
	if err != nil {
		return err
	}
	if f.has("sampleQuestions") {
		f.fail("sampleQuestions", "is not supported: use exampleQueries")
	}
	if create {
		f.requireAll(topicBody{})
	}
	if s, ok := f.text("name", topicRules["name"]); ok {
		t.Name = s
	}
	if s, ok := f.text("content", topicRules["content"]); ok {
		t.Content = s
	}
	if s, ok := f.str("actions"); ok {
		t.Actions = s
	}
	if f.has("exampleQueries") {
		var q exampleQuries
		if f.object("exampleQueries", &q, "must be an object {queries: [string]}") {
			if len(q.Queries) > maxExampleQueries {
				f.fail("exampleQueries", "at most %d queries", maxExampleQueries)
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

// handleTopicUpdate handles "PATCH .../knowledge-base/topics/{topicId}"
// (204, docs/api.md#agents-topics).
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
