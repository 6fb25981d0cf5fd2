package codec_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/validate"
	"github.com/lsst-sal/salgo/xml"
)

// watchTopic has every SAL type as a scalar, array and nullable scalar,
// a bounded string and a nullable array (allTypes with a bound).
func watchTopic() *xml.Topic {
	t := allTypes()
	t.Fields = append(privateFields(), t.Fields...)
	b := field("bounded", xml.String, 1)
	b.Size = 5
	t.Fields = append(t.Fields, b)
	return t
}

// TestWatch_AgreesWithCheck: over records that break the check's rules
// in every way the wire allows (arrays of other lengths, strings over
// their bound or not UTF-8, through the fast paths and value()), and
// records that break none, decoded fresh and into a reused map, a decode
// whose Watch is not Suspect gives a record validate's Check passes, and a
// record Check refuses is always Suspect. The watched values are those
// of the record.
func TestWatch_AgreesWithCheck(t *testing.T) {
	for _, top := range []*xml.Topic{watchTopic(), forceActuatorData()} {
		c := mustNew(t, top)
		val := validate.Compile(top)
		names := []string{"private_seqNum", "private_identity", "private_sndStamp", "nope"}
		w, err := c.Decoder().NewWatch(names...)
		if err != nil {
			t.Fatal(err)
		}
		r := rand.New(rand.NewPCG(41, 42))
		reused := map[string]any{}
		suspects, clean := 0, 0
		for i := range 400 {
			rec := randomRecord(r, top)
			rec["private_identity"] = "user@host"
			if i%2 == 1 {
				breakRule(r, top, rec)
			}
			body, err := c.Append(nil, rec)
			if err != nil {
				t.Fatal(err)
			}
			for _, into := range []map[string]any{{}, reused} {
				if _, err := c.Decoder().DecodeWatch(body, into, w); err != nil {
					t.Fatal(err)
				}
				rep := val.Check(into)
				if !w.Suspect && !rep.OK() {
					t.Fatalf("%s: not suspect, but Check says %s", top, rep)
				}
				if w.Suspect {
					suspects++
				} else {
					clean++
				}
				for j, n := range names {
					if !reflect.DeepEqual(w.Vals[j], into[n]) {
						t.Fatalf("%s: watched %s = %v, record holds %v", top, n, w.Vals[j], into[n])
					}
				}
			}
		}
		if suspects == 0 || clean == 0 {
			t.Errorf("%s: %d suspect and %d clean decodes: the test does not test both", top, suspects, clean)
		}
	}
}

// breakRule changes one value of rec so that it breaks a rule of the
// check but can still be encoded.
func breakRule(r *rand.Rand, top *xml.Topic, rec map[string]any) {
	for {
		f := top.Fields[r.IntN(len(top.Fields))]
		switch v := rec[f.Name].(type) {
		case string:
			if r.IntN(2) == 0 {
				rec[f.Name] = v + "\xff"
			} else if f.MaxLen() > 0 {
				rec[f.Name] = strings.Repeat("x", f.MaxLen()+1)
			} else {
				continue
			}
			return
		case []float32:
			rec[f.Name] = append(v, 1)
			return
		case []float64:
			rec[f.Name] = v[:len(v)-1]
			return
		case []int64:
			rec[f.Name] = append(v, 2)
			return
		case []bool:
			rec[f.Name] = v[:1]
			return
		}
	}
}

// TestNewWatch_Arrays: an array field cannot be watched.
func TestNewWatch_Arrays(t *testing.T) {
	c := mustNew(t, forceActuatorData())
	if _, err := c.Decoder().NewWatch("xForce"); err == nil {
		t.Error("NewWatch of an array field: no error")
	}
}

// TestWatch_Stamp: DecodeWatch stores Watch.Stamp in the field named to
// SetStamp, fresh and into a reused map, and reads the rest of the record
// as usual; a Watch without a stamp, or stamping a field the topic lacks,
// leaves the decoded value and reports Stamped false.
func TestWatch_Stamp(t *testing.T) {
	top := watchTopic()
	c := mustNew(t, top)
	rec := randomRecord(rand.New(rand.NewPCG(7, 8)), top)
	rec["private_rcvStamp"] = 12.5
	body, err := c.Append(nil, rec)
	if err != nil {
		t.Fatal(err)
	}
	w, err := c.Decoder().NewWatch("private_seqNum")
	if err != nil {
		t.Fatal(err)
	}
	into := map[string]any{}
	if _, err := c.Decoder().DecodeWatch(body, into, w); err != nil {
		t.Fatal(err)
	}
	if w.Stamped || into["private_rcvStamp"] != 12.5 {
		t.Fatalf("no stamp set: Stamped %v, private_rcvStamp %v, want false and the wire's 12.5", w.Stamped, into["private_rcvStamp"])
	}
	w.SetStamp("private_rcvStamp")
	for i, stamp := range []float64{100.25, 200.5} { // fresh, then into the reused map
		w.Stamp = stamp
		if _, err := c.Decoder().DecodeWatch(body, into, w); err != nil {
			t.Fatal(err)
		}
		if !w.Stamped || into["private_rcvStamp"] != stamp {
			t.Fatalf("decode %d: Stamped %v, private_rcvStamp %v, want true and %v", i, w.Stamped, into["private_rcvStamp"], stamp)
		}
		if into["private_seqNum"] != rec["private_seqNum"] || w.Vals[0] != rec["private_seqNum"] {
			t.Fatalf("decode %d: private_seqNum %v (watched %v), want %v", i, into["private_seqNum"], w.Vals[0], rec["private_seqNum"])
		}
	}
	w.SetStamp("nope")
	if _, err := c.Decoder().DecodeWatch(body, into, w); err != nil {
		t.Fatal(err)
	}
	if w.Stamped || into["private_rcvStamp"] != 12.5 {
		t.Fatalf("stamp of a missing field: Stamped %v, private_rcvStamp %v, want false and 12.5", w.Stamped, into["private_rcvStamp"])
	}
}
