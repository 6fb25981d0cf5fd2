// Package hostile is for tests only: the hostile inputs of the "hostile
// bus" tests (YAML bombs) and the measure of what they cost, shared by
// the packages that read configurations from the bus.
package hostile

import (
	"runtime"
	"strings"
)

// Allocated is the bytes the process allocated while f ran
// (runtime.MemStats TotalAlloc: run the measured test on its own, not in
// parallel). Under the race detector it returns 0: its sync.Pool drops
// pooled objects at random, so allocation bounds hold only without it.
func Allocated(f func()) uint64 {
	if Race {
		f()
		return 0
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// Laughs is the "billion laughs" YAML document with the given number of
// levels: a list of nine strings under "a", then each level a list of
// nine aliases of the one before, under the next letter, or under last
// for the last level if last is not empty. With nine levels and no last
// key it is 414 bytes and expands to 9^9 strings.
func Laughs(levels int, last string) string {
	var b strings.Builder
	b.WriteString(`a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]` + "\n")
	for i := 1; i < levels; i++ {
		prev, cur := string(rune('a'+i-1)), string(rune('a'+i))
		key := cur
		if i == levels-1 && last != "" {
			key = last
		}
		b.WriteString(key + ": &" + cur + " [" + strings.TrimSuffix(strings.Repeat("*"+prev+", ", 9), ", ") + "]\n")
	}
	return b.String()
}
