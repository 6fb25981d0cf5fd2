//go:build race

package yamlx

// raceEnabled: the race detector multiplies allocations, so byte bounds are not checked.
const raceEnabled = true
