package topics_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/lsst-sal/salgo/topics"
)

// poke sets element 0 of the array value v (a canonical slice) to a value
// other than the default, and says whether v was an array.
func poke(v any) bool {
	s := reflect.ValueOf(v)
	if s.Kind() != reflect.Slice || s.Len() == 0 {
		return false
	}
	switch e := s.Index(0); e.Kind() {
	case reflect.Bool:
		e.SetBool(!e.Bool())
	case reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		e.SetInt(e.Int() + 7)
	case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		e.SetUint(e.Uint() + 7)
	case reflect.Float32, reflect.Float64:
		e.SetFloat(e.Float() + 7)
	default:
		return false
	}
	return true
}

// TestWriter_DataIsACopy: Writer.Data returns a copy, arrays included:
// editing it leaves the writer's data alone, and SetWrite of the edited
// arrays sees the change and writes it, again and again when the caller
// keeps editing the same array. SetWriteResult.Data is a copy too.
func TestWriter_DataIsACopy(t *testing.T) {
	d := newDomain(t, nil)
	comp := example(t, d)
	ctx := ctxT(t)
	tp := comp.Event("arrays")
	_, rs := startInstance(t, d, comp, 1, topics.ReaderOptions{}, tp)
	r := rs[0]
	_, w := startWriter(t, d, comp, 1, tp)

	res, err := w.SetWrite(ctx, map[string]any{"int0": []int32{1, 2, 3, 4, 5}}, false)
	if err != nil || !res.Written {
		t.Fatalf("first SetWrite: %+v, %v", res, err)
	}

	// Every array of the copy, edited: the writer's data is unchanged.
	before := map[string]string{} // printed: a copy whatever Data returns
	for k, v := range w.Data() {
		before[k] = fmt.Sprint(v)
	}
	data := w.Data()
	n := 0
	for k, v := range data {
		if poke(v) {
			n++
			if got := fmt.Sprint(w.Data()[k]); got != before[k] {
				t.Errorf("editing %s of Data's copy changed the writer's data: %s, was %s", k, got, before[k])
			}
		}
	}
	if n != 10 {
		t.Fatalf("edited %d arrays of %s, want 10", n, tp)
	}
	poke(res.Data["short0"])
	if got := fmt.Sprint(w.Data()["short0"]); got != before["short0"] {
		t.Errorf("editing SetWriteResult.Data changed the writer's data: short0 %s, was %s", got, before["short0"])
	}

	// The edited array written back is a change, and written; the caller
	// edits the same array again: a change again.
	arr := data["int0"].([]int32)
	for i, want := range []int32{8, 9} {
		arr[0] = want
		res, err := w.SetWrite(ctx, map[string]any{"int0": arr}, false)
		if err != nil || !res.Changed || !res.Written {
			t.Fatalf("SetWrite %d of the edited int0 %v: changed %v written %v, %v; want a change written", i+1, arr, res.Changed, res.Written, err)
		}
	}
	for i, want := range []int32{1, 8, 9} {
		if got := next(t, ctx, r)["int0"].([]int32)[0]; got != want {
			t.Errorf("event %d: int0[0] = %d, want %d", i, got, want)
		}
	}
}
