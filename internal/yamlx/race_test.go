//go:build race

package yamlx_test

// raceBuild: the race detector's sync.Pool drops pooled objects at random
// (regexp then allocates its match state per match), so allocation bounds
// are checked only without it.
const raceBuild = true
