package topics

import "testing"

// TestFillLevel: the queue's warning levels are the reference's,
// min(10, max(5, len/10)), len/2 for a queue of 20 or more, and 9*len/10,
// and the level reached is the position of the last of them in that order
// that the queue holds, as a list of the levels would give it.
func TestFillLevel(t *testing.T) {
	for l := 1; l <= 300; l++ {
		levels := []int{min(10, max(5, l/10))}
		if l >= 20 {
			levels = append(levels, l/2)
		}
		levels = append(levels, 9*l/10)
		for n := 0; n <= l; n++ {
			want := 0
			for i, v := range levels {
				if n >= v {
					want = i + 1
				}
			}
			if got := fillLevel(n, l); got != want {
				t.Fatalf("fillLevel(%d, %d) = %d, want %d (levels %v)", n, l, got, want, levels)
			}
		}
	}
	// Spot checks of the default queue of 100: 10, 50 and 90 records.
	for _, c := range []struct{ n, lvl int }{{9, 0}, {10, 1}, {49, 1}, {50, 2}, {89, 2}, {90, 3}, {100, 3}} {
		if got := fillLevel(c.n, 100); got != c.lvl {
			t.Errorf("fillLevel(%d, 100) = %d, want %d", c.n, got, c.lvl)
		}
	}
}
