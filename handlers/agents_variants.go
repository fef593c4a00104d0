package handlers

// Attributes and variants of a branch: a variant carries a
// value per attribute; the default variant cannot be removed.

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

var agentVariantsRoutes = []Route{
	route("GET /v1/agents/:agent/branches/:branch/attributes", (*API).handleAttributeList, opAttributeList),
	route("POST /v1/agents/:agent/branches/:branch/attributes", (*API).handleAttributeCreate, opAttributeCreate),
	route("PATCH /v1/agents/:agent/branches/:branch/attributes/:item", (*API).handleAttributeUpdate, opAttributeUpdate),
	route("DELETE /v1/agents/:agent/branches/:branch/attributes/:item", (*API).handleAttributeDelete, opAttributeDelete),
	route("GET /v1/agents/:agent/branches/:branch/variants", (*API).handleVariantList, opVariantList),
	route("POST /v1/agents/:agent/branches/:branch/variants", (*API).handleVariantCreate, opVariantCreate),
	route("PATCH /v1/agents/:agent/branches/:branch/variants/:item", (*API).handleVariantUpdate, opVariantUpdate),
	route("DELETE /v1/agents/:agent/branches/:branch/variants/:item", (*API).handleVariantDelete, opVariantDelete),
}

var (
	opAttributeList = &Op{ID: "attributeList", Summary: "List attributes",
		Responses: []Response{ok(200, engine.AttributeList{})}, Errors: []int{404}}
	opAttributeCreate = &Op{ID: "attributeCreate", Summary: "Create an attribute",
		Body: nameBody{}, Responses: []Response{ok(201, engine.Attribute{})}, Errors: []int{400, 404, 409, 422}}
	opAttributeUpdate = &Op{ID: "attributeUpdate", Summary: "Rename an attribute",
		Body: nameBody{}, Responses: []Response{ok(200, engine.Attribute{})}, Errors: []int{400, 404, 409, 422}}
	opAttributeDelete = &Op{ID: "attributeDelete", Summary: "Delete an attribute",
		Responses: []Response{ok(200, engine.ItemID{})}, Errors: []int{404, 422}}
	opVariantList = &Op{ID: "variantList", Summary: "List variants",
		Responses: []Response{ok(200, engine.VariantList{})}, Errors: []int{404}}
	opVariantCreate = &Op{ID: "variantCreate", Summary: "Create a variant",
		Doc:  "The first variant, or one with isDefault, becomes the default.",
		Body: variantBody{}, Responses: []Response{ok(201, engine.Variant{})}, Errors: []int{400, 404, 409, 422}}
	opVariantUpdate = &Op{ID: "variantUpdate", Summary: "Update a variant",
		Doc:  "The default variant cannot stop being the default: make another one the default.",
		Body: variantBody{}, BodyPartial: true, Responses: []Response{ok(200, engine.Variant{})}, Errors: []int{400, 404, 409, 422}}
	opVariantDelete = &Op{ID: "variantDelete", Summary: "Delete a variant",
		Doc: "The default variant cannot be deleted.", Responses: []Response{ok(200, engine.ItemID{})}, Errors: []int{400, 404, 422}}
)

type (
	// nameBody is the body of an attribute create or rename.
	nameBody struct {
		Name string `json:"name"`
	}
	// variantBody is the body of a variant create or update.
	variantBody struct {
		Name            string                 `json:"name"`
		AttributeValues engine.AttributeValues `json:"attributeValues"`
		IsDefault       bool                   `json:"isDefault"`
	}
)

func (nameBody) FieldRules() map[string]engine.FieldRule { return engine.NameRules }

func (variantBody) FieldRules() map[string]engine.FieldRule { return engine.NameRules }

// --- attributes and variants ---

// handleAttributeList handles "GET .../attributes" → {"attributes": [...]}.
func (a *API) handleAttributeList(c *gin.Context) error {
	list, err := a.Attributes(principal(c), c.Param("agent"), c.Param("branch"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.AttributeList{Attributes: list})
	return nil
}

func readName(c *gin.Context, required bool) (string, error) {
	f, err := readFields(c, false, engine.BodyFields(nameBody{})...)
	if err != nil {
		return "", err
	}
	if required {
		f.requireAll(nameBody{})
	}
	name, _ := f.text("name", engine.NameRules["name"])
	return name, f.err()
}

// handleAttributeCreate handles "POST .../attributes" (201 {id, name}).
func (a *API) handleAttributeCreate(c *gin.Context) error {
	name, err := readName(c, true)
	if err != nil {
		return err
	}
	at, err := a.CreateAttribute(principal(c), c.Param("agent"), c.Param("branch"), name)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, at)
	return nil
}

// handleAttributeUpdate handles "PATCH .../attributes/{id}" (200).
func (a *API) handleAttributeUpdate(c *gin.Context) error {
	name, err := readName(c, true)
	if err != nil {
		return err
	}
	at, err := a.RenameAttribute(principal(c), c.Param("agent"), c.Param("branch"), c.Param("item"), name)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, at)
	return nil
}

// handleAttributeDelete handles "DELETE .../attributes/{id}" (200 {id}).
func (a *API) handleAttributeDelete(c *gin.Context) error {
	id := c.Param("item")
	if err := a.DeleteAttribute(principal(c), c.Param("agent"), c.Param("branch"), id); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.ItemID{ID: id})
	return nil
}

// handleVariantList handles "GET .../variants" → {"variants": [...]}.
func (a *API) handleVariantList(c *gin.Context) error {
	list, err := a.Variants(principal(c), c.Param("agent"), c.Param("branch"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.VariantList{Variants: list})
	return nil
}

// readVariant validates the variant fields of the body.
func readVariant(c *gin.Context, create bool) (engine.VariantInput, error) {
	var in engine.VariantInput
	f, err := readFields(c, false, engine.BodyFields(variantBody{})...)
	if err != nil {
		return in, err
	}
	if create {
		f.requireAll(variantBody{})
	}
	if s, ok := f.text("name", engine.NameRules["name"]); ok {
		in.Name = &s
	}
	if f.has("attributeValues") {
		var av engine.AttributeValues
		if f.object("attributeValues", &av, "must be an object {values: {name: string}}") {
			if av.Values == nil {
				av.Values = map[string]string{}
			}
			in.AttributeValues = &av
		}
	}
	if b, ok := f.boolean("isDefault"); ok {
		in.IsDefault = &b
	}
	return in, f.err()
}

// handleVariantCreate handles "POST .../variants" (201).
func (a *API) handleVariantCreate(c *gin.Context) error {
	in, err := readVariant(c, true)
	if err != nil {
		return err
	}
	v, err := a.CreateVariant(principal(c), c.Param("agent"), c.Param("branch"), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, v)
	return nil
}

// handleVariantUpdate handles "PATCH .../variants/{id}" (200).
func (a *API) handleVariantUpdate(c *gin.Context) error {
	in, err := readVariant(c, false)
	if err != nil {
		return err
	}
	v, err := a.UpdateVariant(principal(c), c.Param("agent"), c.Param("branch"), c.Param("item"), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, v)
	return nil
}

// handleVariantDelete handles "DELETE .../variants/{id}" (200 {id}).
func (a *API) handleVariantDelete(c *gin.Context) error {
	id := c.Param("item")
	if err := a.DeleteVariant(principal(c), c.Param("agent"), c.Param("branch"), id); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.ItemID{ID: id})
	return nil
}
