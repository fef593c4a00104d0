package handlers

// Attributes and variants of a branch: a variant carries a
// value per attribute; the default variant cannot be removed.

import (
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// agentVariantsRoutes are the routes of AgentVariants.
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
	// variantBody is the body of a variant create (name required) or
	// update.
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
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.AttributeList{Attributes: cont.Attributes})
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
	at := &engine.Attribute{ID: a.NewID("ATTRIBUTE-", engine.UpperAlnum, 8), Name: name}
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		for _, x := range cont.Attributes {
			if x.Name == name {
				return engine.Errf(engine.KindConflict, engine.CodeAttributeDuplicate, engine.MsgAttributeDuplicate)
			}
		}
		cont.Attributes = append(cont.Attributes, at)
		return nil
	}); err != nil {
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
	id := c.Param("item")
	var out *engine.Attribute
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *engine.Attribute) bool { return x.ID == id })
		if i < 0 {
			return engine.Errf(engine.KindNotFound, engine.CodeItemNotFound, engine.MsgItemNotFound)
		}
		// A rename to another attribute's name is a duplicate, as on
		// create (docs/fidelity.md M12.20).
		for _, x := range cont.Attributes {
			if x.ID != id && x.Name == name {
				return engine.Errf(engine.KindConflict, engine.CodeAttributeDuplicate, engine.MsgAttributeDuplicate)
			}
		}
		out = cont.Attributes[i]
		out.Name = name
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handleAttributeDelete handles "DELETE .../attributes/{id}" (200 {id}).
func (a *API) handleAttributeDelete(c *gin.Context) error {
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *engine.Attribute) bool { return x.ID == id })
		if i < 0 {
			return engine.Errf(engine.KindNotFound, engine.CodeItemNotFound, engine.MsgItemNotFound)
		}
		cont.Attributes = slices.Delete(cont.Attributes, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.ItemID{ID: id})
	return nil
}

// handleVariantList handles "GET .../variants" → {"variants": [...]}.
func (a *API) handleVariantList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.VariantList{Variants: cont.Variants})
	return nil
}

func readVariant(c *gin.Context, v *engine.Variant, create bool) error {
	f, err := readFields(c, false, engine.BodyFields(variantBody{})...)
	if err != nil {
		return err
	}
	if create {
		f.requireAll(variantBody{})
	}
	if s, ok := f.text("name", engine.NameRules["name"]); ok {
		v.Name = s
	}
	if f.has("attributeValues") {
		var av engine.AttributeValues
		if f.object("attributeValues", &av, "must be an object {values: {name: string}}") {
			if av.Values == nil {
				av.Values = map[string]string{}
			}
			v.AttributeValues = av
		}
	}
	if b, ok := f.boolean("isDefault"); ok {
		v.IsDefault = b
	}
	return f.err()
}

// handleVariantCreate handles "POST .../variants" (201).
func (a *API) handleVariantCreate(c *gin.Context) error {
	v := &engine.Variant{AttributeValues: engine.AttributeValues{Values: map[string]string{}}}
	if err := readVariant(c, v, true); err != nil {
		return err
	}
	v.ID = a.NewID("VARIANT-", engine.UpperAlnum, 8)
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		for _, x := range cont.Variants {
			if x.Name == v.Name {
				return engine.Errf(engine.KindConflict, engine.CodeVariantDuplicate, engine.MsgVariantDuplicate)
			}
		}
		if v.IsDefault || len(cont.Variants) == 0 {
			v.IsDefault = true
			for _, x := range cont.Variants {
				x.IsDefault = false
			}
		}
		cont.Variants = append(cont.Variants, v)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, v)
	return nil
}

// handleVariantUpdate handles "PATCH .../variants/{id}" (200).
func (a *API) handleVariantUpdate(c *gin.Context) error {
	var patch engine.Variant
	if err := readVariant(c, &patch, false); err != nil {
		return err
	}
	id := c.Param("item")
	var out *engine.Variant
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		for _, x := range cont.Variants {
			if x.ID == id {
				out = x
			}
		}
		if out == nil {
			return engine.Errf(engine.KindNotFound, engine.CodeItemNotFound, engine.MsgItemNotFound)
		}
		for _, x := range cont.Variants {
			if x.ID != id && patch.Name != "" && x.Name == patch.Name {
				return engine.Errf(engine.KindConflict, engine.CodeVariantDuplicate, engine.MsgVariantDuplicate)
			}
		}
		wasDefault := out.IsDefault
		if err := readVariant(c, out, false); err != nil {
			return err
		}
		if out.IsDefault && !wasDefault {
			for _, x := range cont.Variants {
				x.IsDefault = x == out
			}
		}
		if wasDefault && !out.IsDefault {
			return engine.Errf(engine.KindInvalid, engine.CodeVariantDefault, engine.MsgVariantDefault)
		}
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handleVariantDelete handles "DELETE .../variants/{id}" (200 {id}); the
// default variant cannot be removed (400 VARIANTS_REMOVE_DEFAULT_ERROR).
func (a *API) handleVariantDelete(c *gin.Context) error {
	id := c.Param("item")
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error {
		i := slices.IndexFunc(cont.Variants, func(x *engine.Variant) bool { return x.ID == id })
		if i < 0 {
			return engine.Errf(engine.KindNotFound, engine.CodeItemNotFound, engine.MsgItemNotFound)
		}
		if cont.Variants[i].IsDefault {
			return engine.Errf(engine.KindInvalid, engine.CodeVariantDefault, engine.MsgVariantDefault)
		}
		cont.Variants = slices.Delete(cont.Variants, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.ItemID{ID: id})
	return nil
}
