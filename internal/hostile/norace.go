//go:build !race

package hostile

// Race reports whether the race detector is on (see Allocated).
const Race = false
