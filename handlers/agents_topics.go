package handlers

// Knowledge-base topics of a branch. The topics of the
// deployment active in an environment answer that environment's runtime
// (engine_script.go).

import (
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"

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
		Doc: "A bare array (docs/api.md#agents-topics).", Responses: []Response{ok(200, []engine.TopicRec{})}, Errors: []int{404}}
	opTopicCreate = &Op{ID: "topicCreate", Summary: "Create a topic",
		Body: topicBody{}, Responses: []Response{ok(201, engine.TopicRec{})}, Errors: []int{400, 404, 409, 422}}
	opTopicGet = &Op{ID: "topicGet", Summary: "Read a topic",
		Responses: []Response{ok(200, engine.TopicRec{})}, Errors: []int{404}}
	opTopicUpdate = &Op{ID: "topicUpdate", Summary: "Update a topic",
		Body: topicBody{}, BodyPartial: true, Responses: []Response{{Status: 204}}, Errors: []int{400, 404, 409, 422}}
	opTopicDelete = &Op{ID: "topicDelete", Summary: "Delete a topic",
		Responses: []Response{{Status: 204}}, Errors: []int{404, 422}}
)

// topicBody is the body of a topic create (name and content required) or
// update; readTopic reads it field by field.
type topicBody struct {
	Name            string               `json:"name"`
	Content         string               `json:"content"`
	Actions         string               `json:"actions"`
	ExampleQueries  engine.ExampleQuries `json:"exampleQueries"`
	IsActive        bool                 `json:"isActive"`
	SampleQuestions any                  `json:"sampleQuestions"`
}

func (topicBody) FieldRules() map[string]engine.FieldRule { return engine.TopicRules }

// --- knowledge-base topics ---

// readTopic validates topic fields into t (all required ones on create).
func readTopic(c *gin.Context, t *engine.TopicRec, create bool) error {
	f, err := readFields(c, false, engine.BodyFields(topicBody{})...)
	if err != nil {
		return err
	}
	if f.has("sampleQuestions") {
		f.fail("sampleQuestions", "is not supported: use exampleQueries")
	}
	if create {
		f.requireAll(topicBody{})
	}
	if s, ok := f.text("name", engine.TopicRules["name"]); ok {
		t.Name = s
	}
	if s, ok := f.text("content", engine.TopicRules["content"]); ok {
		t.Content = s
	}
	if s, ok := f.str("actions"); ok {
		t.Actions = s
	}
	if f.has("exampleQueries") {
		var q engine.ExampleQuries
		if f.object("exampleQueries", &q, "must be an object {queries: [string]}") {
			if len(q.Queries) > engine.MaxExampleQueries {
				f.fail("exampleQueries", "at most %d queries", engine.MaxExampleQueries)
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
	t := &engine.TopicRec{ExampleQueries: engine.ExampleQuries{Queries: []string{}}, IsActive: true}
	if err := readTopic(c, t, true); err != nil {
		return err
	}
	t.ID = a.NewID("TOPICS-", engine.HexDigits, 8)
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		if engine.TopicNameTaken(cont, t.Name, "") {
			return engine.Errf(engine.KindConflict, engine.CodeTopicExists, engine.MsgTopicExists)
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
	_, t := engine.FindTopic(cont, c.Param("item"))
	if t == nil {
		return engine.Errf(engine.KindNotFound, engine.CodeTopicNotFound, engine.MsgTopicNotFound)
	}
	c.JSON(http.StatusOK, t)
	return nil
}

// handleTopicUpdate handles "PATCH .../knowledge-base/topics/{topicId}"
// (204, docs/api.md#agents-topics).
func (a *API) handleTopicUpdate(c *gin.Context) error {
	var patch engine.TopicRec
	if err := readTopic(c, &patch, false); err != nil {
		return err
	}
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		_, t := engine.FindTopic(cont, id)
		if t == nil {
			return engine.Errf(engine.KindNotFound, engine.CodeTopicNotFound, engine.MsgTopicNotFound)
		}
		// Apply the given fields (re-read from the body, a flat patch).
		if patch.Name != "" && engine.TopicNameTaken(cont, patch.Name, id) {
			return engine.Errf(engine.KindConflict, engine.CodeTopicExists, engine.MsgTopicExists)
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
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		i, _ := engine.FindTopic(cont, id)
		if i < 0 {
			return engine.Errf(engine.KindNotFound, engine.CodeTopicNotFound, engine.MsgTopicNotFound)
		}
		cont.Topics = slices.Delete(cont.Topics, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
