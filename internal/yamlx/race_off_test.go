//go:build !race

package yamlx

const raceEnabled = false
