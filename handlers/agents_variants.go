package handlers

// Attributes and variants of a branch: a variant carries a
// value per attribute; the default variant cannot be removed.

import (
	"net/http"
	"slices"

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
		Responses: []Response{ok(200, attributeList{})}, Errors: []int{404}}
	opAttributeCreate = &Op{ID: "attributeCreate", Summary: "Create an attribute",
		Body: nameBody{}, Responses: []Response{ok(201, attribute{})}, Errors: []int{400, 404, 409, 422}}
	opAttributeUpdate = &Op{ID: "attributeUpdate", Summary: "Rename an attribute",
		Body: nameBody{}, Responses: []Response{ok(200, attribute{})}, Errors: []int{400, 404, 409, 422}}
	opAttributeDelete = &Op{ID: "attributeDelete", Summary: "Delete an attribute",
		Responses: []Response{ok(200, itemID{})}, Errors: []int{404, 422}}
	opVariantList = &Op{ID: "variantList", Summary: "List variants",
		Responses: []Response{ok(200, variantList{})}, Errors: []int{404}}
	opVariantCreate = &Op{ID: "variantCreate", Summary: "Create a variant",
		Doc:  "The first variant, or one with isDefault, becomes the default.",
		Body: variantBody{}, Responses: []Response{ok(201, variant{})}, Errors: []int{400, 404, 409, 422}}
	opVariantUpdate = &Op{ID: "variantUpdate", Summary: "Update a variant",
		Doc:  "The default variant cannot stop being the default: make another one the default.",
		Body: variantBody{}, BodyPartial: true, Responses: []Response{ok(200, variant{})}, Errors: []int{400, 404, 409, 422}}
	opVariantDelete = &Op{ID: "variantDelete", Summary: "Delete a variant",
		Doc: "The default variant cannot be deleted.", Responses: []Response{ok(200, itemID{})}, Errors: []int{400, 404, 422}}
)

type (
	attributeList struct {
		Attributes []*attribute `json:"attributes"`
	}
	variantList struct {
		Variants []*variant `json:"variants"`
	}
	itemID struct {
		ID string `json:"id"`
	}
	// nameBody is the body of an attribute create or rename.
	nameBody struct {
		Name string `json:"name"`
	}
	// variantBody is the body of a variant create (name required) or
	// update.
	variantBody struct {
		Name            string          `json:"name"`
		AttributeValues attributeValues `json:"attributeValues"`
		IsDefault       bool            `json:"isDefault"`
	}
)

func (nameBody) FieldRules() map[string]FieldRule { return nameRules }

var nameRules = map[string]FieldRule{"name": {Required: true, MinLen: 1, MaxLen: 255, Doc: "Unique in the branch."}}

func (variantBody) FieldRules() map[string]FieldRule { return nameRules }

type attribute struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type variant struct {
	ID              string          `json:"id"`
	Name            string          `json:"name"`
	IsDefault       bool            `json:"isDefault"`
	AttributeValues attributeValues `json:"attributeValues"`
}

type attributeValues struct {
	Values map[string]string `json:"values"`
}

// --- attributes and variants ---

// handleAttributeList handles "GET .../attributes" → {"attributes": [...]}.
func (a *API) handleAttributeList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, attributeList{Attributes: cont.Attributes})
	return nil
}

func readName(c *gin.Context, required bool) (string, error) {
	f, err := readFields(c, false, bodyFields(nameBody{})...)
	if err != nil {
		return "", err
	}
	if required {
		f.requireAll(nameBody{})
	}
	name, _ := f.text("name", nameRules["name"])
	return name, f.err()
}

// handleAttributeCreate handles "POST .../attributes" (201 {id, name}).
func (a *API) handleAttributeCreate(c *gin.Context) error {
	name, err := readName(c, true)
	if err != nil {
		return err
	}
	at := &attribute{ID: a.newID("ATTRIBUTE-", upperAlnum, 8), Name: name}
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Attributes {
			if x.Name == name {
				return errf(KindConflict, CodeAttributeDuplicate, MsgAttributeDuplicate)
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
	var out *attribute
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *attribute) bool { return x.ID == id })
		if i < 0 {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		// A rename to another attribute's name is a duplicate, as on
		// create (docs/fidelity.md M12.20).
		for _, x := range cont.Attributes {
			if x.ID != id && x.Name == name {
				return errf(KindConflict, CodeAttributeDuplicate, MsgAttributeDuplicate)
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
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *attribute) bool { return x.ID == id })
		if i < 0 {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		cont.Attributes = slices.Delete(cont.Attributes, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, itemID{ID: id})
	return nil
}

// handleVariantList handles "GET .../variants" → {"variants": [...]}.
func (a *API) handleVariantList(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, variantList{Variants: cont.Variants})
	return nil
}

func readVariant(c *gin.Context, v *variant, create bool) error {
	f, err := readFields(c, false, bodyFields(variantBody{})...)
	if err != nil {
		return err
	}
	if create {
		f.requireAll(variantBody{})
	}
	if s, ok := f.text("name", nameRules["name"]); ok {
		v.Name = s
	}
	if f.has("attributeValues") {
		var av attributeValues
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
	v := &variant{AttributeValues: attributeValues{Values: map[string]string{}}}
	if err := readVariant(c, v, true); err != nil {
		return err
	}
	v.ID = a.newID("VARIANT-", upperAlnum, 8)
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Variants {
			if x.Name == v.Name {
				return errf(KindConflict, CodeVariantDuplicate, MsgVariantDuplicate)
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
	var patch variant
	if err := readVariant(c, &patch, false); err != nil {
		return err
	}
	id := c.Param("item")
	var out *variant
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		for _, x := range cont.Variants {
			if x.ID == id {
				out = x
			}
		}
		if out == nil {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		for _, x := range cont.Variants {
			if x.ID != id && patch.Name != "" && x.Name == patch.Name {
				return errf(KindConflict, CodeVariantDuplicate, MsgVariantDuplicate)
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
			return errf(KindInvalid, CodeVariantDefault, MsgVariantDefault)
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
	if _, err := a.editBranch(c, func(cont *branchContent) error {
		i := slices.IndexFunc(cont.Variants, func(x *variant) bool { return x.ID == id })
		if i < 0 {
			return errf(KindNotFound, CodeItemNotFound, MsgItemNotFound)
		}
		if cont.Variants[i].IsDefault {
			return errf(KindInvalid, CodeVariantDefault, MsgVariantDefault)
		}
		cont.Variants = slices.Delete(cont.Variants, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, itemID{ID: id})
	return nil
}
