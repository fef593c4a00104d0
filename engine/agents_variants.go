package engine

// Attributes and variants of a branch; the default variant stays.

import "slices"

type (
	AttributeList struct {
		Attributes []*Attribute `json:"attributes"`
	}
	VariantList struct {
		Variants []*Variant `json:"variants"`
	}
	ItemID struct {
		ID string `json:"id"`
	}
)

var NameRules = map[string]FieldRule{"name": {Required: true, MinLen: 1, MaxLen: 255, Doc: "Unique in the branch."}}

type Attribute struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

type Variant struct {
	ID              string          `json:"id"`
	Name            string          `json:"name"`
	IsDefault       bool            `json:"isDefault"`
	AttributeValues AttributeValues `json:"attributeValues"`
}

type AttributeValues struct {
	Values map[string]string `json:"values"`
}

func errItemNotFound() error { return Errf(KindNotFound, CodeItemNotFound, MsgItemNotFound) }

// Attributes lists a branch's attributes.
func (a *Engine) Attributes(p *Principal, agent, branch string) ([]*Attribute, error) {
	cont, err := a.readBranch(p, agent, branch)
	if err != nil {
		return nil, err
	}
	return cont.Attributes, nil
}

// CreateAttribute adds an attribute with a name new in the branch.
func (a *Engine) CreateAttribute(p *Principal, agent, branch, name string) (*Attribute, error) {
	at := &Attribute{ID: a.NewID("ATTRIBUTE-", upperAlnum, 8), Name: name}
	if err := a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		for _, x := range cont.Attributes {
			if x.Name == name {
				return Errf(KindConflict, CodeAttributeDuplicate, MsgAttributeDuplicate)
			}
		}
		cont.Attributes = append(cont.Attributes, at)
		return nil
	}); err != nil {
		return nil, err
	}
	return at, nil
}

// RenameAttribute renames an attribute; a taken name is a duplicate
// (docs/fidelity.md M12.20).
func (a *Engine) RenameAttribute(p *Principal, agent, branch, id, name string) (*Attribute, error) {
	var out *Attribute
	if err := a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *Attribute) bool { return x.ID == id })
		if i < 0 {
			return errItemNotFound()
		}
		for _, x := range cont.Attributes {
			if x.ID != id && x.Name == name {
				return Errf(KindConflict, CodeAttributeDuplicate, MsgAttributeDuplicate)
			}
		}
		out = cont.Attributes[i]
		out.Name = name
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteAttribute deletes an attribute of a branch.
func (a *Engine) DeleteAttribute(p *Principal, agent, branch, id string) error {
	return a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		i := slices.IndexFunc(cont.Attributes, func(x *Attribute) bool { return x.ID == id })
		if i < 0 {
			return errItemNotFound()
		}
		cont.Attributes = slices.Delete(cont.Attributes, i, i+1)
		return nil
	})
}

// Variants lists a branch's variants.
func (a *Engine) Variants(p *Principal, agent, branch string) ([]*Variant, error) {
	cont, err := a.readBranch(p, agent, branch)
	if err != nil {
		return nil, err
	}
	return cont.Variants, nil
}

// VariantInput is a variant create or update; nil fields are not given.
type VariantInput struct {
	Name            *string
	AttributeValues *AttributeValues
	IsDefault       *bool
}

func (in VariantInput) apply(v *Variant) {
	if in.Name != nil {
		v.Name = *in.Name
	}
	if in.AttributeValues != nil {
		v.AttributeValues = *in.AttributeValues
	}
	if in.IsDefault != nil {
		v.IsDefault = *in.IsDefault
	}
}

func errVariantDuplicate() error {
	return Errf(KindConflict, CodeVariantDuplicate, MsgVariantDuplicate)
}

// CreateVariant adds a variant with a name new in the branch; the first
// variant, or one with isDefault, becomes the default.
func (a *Engine) CreateVariant(p *Principal, agent, branch string, in VariantInput) (*Variant, error) {
	v := &Variant{AttributeValues: AttributeValues{Values: map[string]string{}}}
	in.apply(v)
	v.ID = a.NewID("VARIANT-", upperAlnum, 8)
	if err := a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		for _, x := range cont.Variants {
			if x.Name == v.Name {
				return errVariantDuplicate()
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
		return nil, err
	}
	return v, nil
}

// UpdateVariant sets a variant's given fields; making it the default
// unsets the others', and the default cannot be unset (400).
func (a *Engine) UpdateVariant(p *Principal, agent, branch, id string, in VariantInput) (*Variant, error) {
	var out *Variant
	if err := a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		for _, x := range cont.Variants {
			if x.ID == id {
				out = x
			}
		}
		if out == nil {
			return errItemNotFound()
		}
		for _, x := range cont.Variants {
			if x.ID != id && in.Name != nil && x.Name == *in.Name {
				return errVariantDuplicate()
			}
		}
		wasDefault := out.IsDefault
		in.apply(out)
		if out.IsDefault && !wasDefault {
			for _, x := range cont.Variants {
				x.IsDefault = x == out
			}
		}
		if wasDefault && !out.IsDefault {
			return Errf(KindInvalid, CodeVariantDefault, MsgVariantDefault)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return out, nil
}

// DeleteVariant deletes a variant other than the default.
func (a *Engine) DeleteVariant(p *Principal, agent, branch, id string) error {
	return a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		i := slices.IndexFunc(cont.Variants, func(x *Variant) bool { return x.ID == id })
		if i < 0 {
			return errItemNotFound()
		}
		if cont.Variants[i].IsDefault {
			return Errf(KindInvalid, CodeVariantDefault, MsgVariantDefault)
		}
		cont.Variants = slices.Delete(cont.Variants, i, i+1)
		return nil
	})
}
