package scenario

// The one region table: builder families address an account by its pair
// ("us"), runtime families by the pair's runtime region ("us-1").

// Region is a region pair with its runtime region.
type Region struct {
	Pair    string // "us", "uk", "eu"
	Runtime string // "us-1", "uk-1", "euw-1"
}

var regionTable = [...]Region{
	{Pair: "us", Runtime: "us-1"},
	{Pair: "uk", Runtime: "uk-1"},
	{Pair: "eu", Runtime: "euw-1"},
}

// Regions are the region pairs an account may live in.
var Regions = func() []string {
	out := make([]string, len(regionTable))
	for i, r := range regionTable {
		out[i] = r.Pair
	}
	return out
}()

// RuntimeRegion resolves a runtime region ("us-1") to its pair ("us").
func RuntimeRegion(name string) (pair string, ok bool) {
	for _, r := range regionTable {
		if r.Runtime == name {
			return r.Pair, true
		}
	}
	return "", false
}

// RuntimeName is the runtime region of a pair ("" for another name).
func RuntimeName(pair string) string {
	for _, r := range regionTable {
		if r.Pair == pair {
			return r.Runtime
		}
	}
	return ""
}

// BuilderRegion resolves a builder region (a pair, "us") to the pair.
func BuilderRegion(name string) (pair string, ok bool) {
	for _, r := range regionTable {
		if r.Pair == name {
			return r.Pair, true
		}
	}
	return "", false
}

// regionNames lists every region name a fault rule may match.
func regionNames() []string {
	out := append([]string{}, Regions...)
	for _, r := range regionTable {
		out = append(out, r.Runtime)
	}
	return out
}
