package engine

// Attributes and variants of a branch: a variant carries a
// value per attribute; the default variant cannot be removed.

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
