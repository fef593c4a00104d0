package engine

// DefaultMaxBodyBytes bounds request bodies unless the scenario says otherwise.
const DefaultMaxBodyBytes = 1 << 20
