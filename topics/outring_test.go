package topics

import "testing"

// TestOutRing: the records given out that Recycle may take back: the
// newest maxOut, each once, found whatever the order they come back in.
func TestOutRing(t *testing.T) {
	var o outRing
	recs := make([]map[string]any, maxOut+6)
	for i := range recs {
		recs[i] = map[string]any{"i": i}
		o.add(recs[i])
	}
	if o.n != maxOut {
		t.Fatalf("%d remembered, want %d", o.n, maxOut)
	}
	for i := range 6 {
		if o.remove(recs[i]) {
			t.Errorf("record %d, given out before the newest %d, taken back", i, maxOut)
		}
	}
	o.removeNewest(recs[len(recs)-2]) // not the newest: stays
	o.removeNewest(recs[len(recs)-1])
	if o.remove(recs[len(recs)-1]) || !o.remove(recs[len(recs)-2]) {
		t.Error("removeNewest removed the wrong record")
	}
	// Back in another order than they went out, each once.
	for _, i := range []int{40, 6, 7, 60, 20} {
		if !o.remove(recs[i]) {
			t.Errorf("record %d not found", i)
		}
		if o.remove(recs[i]) {
			t.Errorf("record %d found twice", i)
		}
	}
	for i := 6; i < len(recs)-2; i++ {
		switch i {
		case 40, 6, 7, 60, 20:
		default:
			if !o.remove(recs[i]) {
				t.Errorf("record %d not found", i)
			}
		}
	}
	if o.n != 0 {
		t.Errorf("%d left", o.n)
	}
}
