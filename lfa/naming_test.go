package lfa_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/lfa"
)

// The table was made once by ts_salobj 8.2.12's own make_bucket_name and
// make_key (testdata/gen_naming.py says how: a venv with astropy 8.0.2,
// the two static methods taken out of the tag's async_s3_bucket.py and
// run as they are). The values are facts and are never edited to fit.
type namingTable struct {
	Salobj  string `json:"salobj"`
	Astropy string `json:"astropy"`
	Buckets []struct {
		Note     string  `json:"note"`
		Instance string  `json:"instance"`
		Category *string `json:"category"`
		Bucket   string  `json:"bucket"`
		Error    string  `json:"error"`
	} `json:"bucket_names"`
	Keys []struct {
		Note         string           `json:"note"`
		SALName      string           `json:"salname"`
		SALIndexName json.RawMessage  `json:"salindexname"`
		Generator    string           `json:"generator"`
		TAI          json.RawMessage  `json:"tai"`
		Other        *json.RawMessage `json:"other"`
		Stem         *string          `json:"stem"`
		Suffix       *string          `json:"suffix"`
		Key          string           `json:"key"`
		Error        string           `json:"error"`
		GoRefuses    string           `json:"go_refuses"`
	} `json:"keys"`
}

func readTable(t *testing.T) namingTable {
	t.Helper()
	b, err := os.ReadFile("testdata/naming.json")
	if err != nil {
		t.Fatal(err)
	}
	var tab namingTable
	if err := json.Unmarshal(b, &tab); err != nil {
		t.Fatal(err)
	}
	if tab.Salobj != "v8.2.12" {
		t.Fatalf("table made by salobj %q, want v8.2.12", tab.Salobj)
	}
	return tab
}

func TestMakeBucketNameMatchesSalobj(t *testing.T) {
	tab := readTable(t)
	if len(tab.Buckets) < 30 {
		t.Fatalf("only %d bucket rows", len(tab.Buckets))
	}
	for _, row := range tab.Buckets {
		category := lfa.DefaultCategory // salobj's default
		if row.Category != nil {
			category = *row.Category
		}
		got, err := lfa.MakeBucketName(row.Instance, category)
		if row.Error != "" {
			if !errors.Is(err, lfa.ErrBadName) {
				t.Errorf("%s: MakeBucketName(%q, %q) = %q, %v; salobj: %s", row.Note, row.Instance, category, got, err, row.Error)
				continue
			}
			// The text names the argument salobj names.
			want := "category"
			if strings.HasPrefix(row.Error, "ValueError: s3instance=") {
				want = "instance"
			} else if strings.HasPrefix(row.Error, "ValueError: Bucket name") {
				want = "too long: len="
			}
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not name %q (salobj: %s)", row.Note, err, want, row.Error)
			}
			continue
		}
		if err != nil || got != row.Bucket {
			t.Errorf("%s: MakeBucketName(%q, %q) = %q, %v; salobj %q", row.Note, row.Instance, category, got, err, row.Bucket)
		}
	}
}

func TestMakeKeyMatchesSalobj(t *testing.T) {
	tab := readTable(t)
	if len(tab.Keys) < 50 {
		t.Fatalf("only %d key rows", len(tab.Keys))
	}
	for _, row := range tab.Keys {
		tai := parseTAI(t, row.TAI)
		idx := indexName(t, row.SALIndexName)
		var opts []lfa.KeyOption
		if row.Other != nil && string(*row.Other) != "null" { // other=None is the default
			var s string
			if err := json.Unmarshal(*row.Other, &s); err != nil {
				t.Fatal(err)
			}
			opts = append(opts, lfa.WithOther(s))
		}
		if row.Stem != nil {
			opts = append(opts, lfa.WithStem(*row.Stem))
		}
		if row.Suffix != nil {
			opts = append(opts, lfa.WithSuffix(*row.Suffix))
		}
		got, err := lfa.MakeKey(row.SALName, idx, row.Generator, tai, opts...)
		switch {
		case row.Error != "" || row.GoRefuses != "":
			if !errors.Is(err, lfa.ErrBadName) || !strings.Contains(err.Error(), "date") {
				t.Errorf("%s: MakeKey(..., %v) = %q, %v; want ErrBadName naming the date (salobj: %s%s)", row.Note, tai, got, err, row.Error, row.Key)
			}
		case err != nil || got != row.Key:
			t.Errorf("%s: MakeKey(%q, %q, %q, %v) =\n%q, %v; salobj\n%q", row.Note, row.SALName, idx, row.Generator, tai, got, err, row.Key)
		}
	}
}

func parseTAI(t *testing.T, raw json.RawMessage) float64 {
	switch s := string(raw); s { // Python's repr, as a JSON string
	case `"nan"`:
		return math.NaN()
	case `"inf"`:
		return math.Inf(1)
	case `"-inf"`:
		return math.Inf(-1)
	}
	var f float64
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatalf("tai %s: %v", raw, err)
	}
	return f
}

// indexName reads salindexname as salobj took it: None, an int or a str.
func indexName(t *testing.T, raw json.RawMessage) string {
	if string(raw) == "null" {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var n int
	if err := json.Unmarshal(raw, &n); err != nil {
		t.Fatalf("salindexname %s: %v", raw, err)
	}
	return lfa.IndexName(n)
}

func TestMakeKeyErrors(t *testing.T) {
	const tai = 1709668800 // 2024-03-05T20:00:00 TAI
	for _, c := range []struct {
		name      string
		salName   string
		idx       string
		generator string
		tai       float64
		opts      []lfa.KeyOption
		want      string
	}{
		{"NaN", "A", "", "g", math.NaN(), nil, `lfa: bad name: date NaN: not a finite TAI time`},
		{"year 999", "A", "", "g", -30610224000, nil, `lfa: bad name: date -3.0610224e+10 (TAI Unix seconds): the date and its observing day (12 hours earlier) must be in the years 1000 to 9999`},
		{"salName", "A\xff", "", "g", tai, nil, `lfa: bad name: salName "A\xff": not valid UTF-8`},
		{"salIndexName", "A", "\xc3", "g", tai, nil, `lfa: bad name: salIndexName "\xc3": not valid UTF-8`},
		{"generator", "A", "", "\x80g", tai, nil, `lfa: bad name: generator "\x80g": not valid UTF-8`},
		{"other", "A", "", "g", tai, []lfa.KeyOption{lfa.WithOther("\xfe")}, `lfa: bad name: other "\xfe": not valid UTF-8`},
		{"stem", "A", "", "g", tai, []lfa.KeyOption{lfa.WithStem("\xfe")}, `lfa: bad name: stem "\xfe": not valid UTF-8`},
		{"suffix", "A", "", "g", tai, []lfa.KeyOption{lfa.WithSuffix(".\xfe")}, `lfa: bad name: suffix ".\xfe": not valid UTF-8`},
	} {
		_, err := lfa.MakeKey(c.salName, c.idx, c.generator, c.tai, c.opts...)
		if !errors.Is(err, lfa.ErrBadName) || err.Error() != c.want {
			t.Errorf("%s: error\n%v, want\n%s", c.name, err, c.want)
		}
	}
}

func TestMakeBucketNameErrors(t *testing.T) {
	for _, c := range []struct{ instance, category, want string }{
		{"Sum mit", "LFA", `lfa: bad name: instance "Sum mit" invalid: must start and end with a letter or digit and hold only letters, digits and "."`},
		{"Summit", "L_FA", `lfa: bad name: category "L_FA" invalid: must start and end with a letter or digit and hold only letters, digits and "."`},
		{"a b", "c d", `lfa: bad name: instance "a b" invalid: must start and end with a letter or digit and hold only letters, digits and "."`},
		{"foo\n", "LFA", `lfa: bad name: instance "foo\n" invalid: must start and end with a letter or digit and hold only letters, digits and "."`},
		{"\xffa", "LFA", `lfa: bad name: instance "\xffa" invalid: must start and end with a letter or digit and hold only letters, digits and "."`},
		{strings.Repeat("a", 51), "LFA", `lfa: bad name: bucket name "rubinobs-lfa-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa" too long: len=64 > 63 chars`},
		{strings.Repeat("a", 100), "LFA", `lfa: bad name: bucket name "rubinobs-lfa-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"... (113 bytes) too long: len=113 > 63 chars`},
	} {
		_, err := lfa.MakeBucketName(c.instance, c.category)
		if !errors.Is(err, lfa.ErrBadName) || err.Error() != c.want {
			t.Errorf("MakeBucketName(%q, %q): error\n%v, want\n%s", c.instance, c.category, err, c.want)
		}
	}
}

// TestHostileInputsBounded: a name made of untrusted text (a component's
// name from the bus, a stem from a command) costs memory in proportion to
// it, and an error quotes at most maxQuoted bytes of it.
func TestHostileInputsBounded(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	key, err := lfa.MakeKey(big, big, big, 1709668800, lfa.WithOther(big), lfa.WithSuffix(big))
	runtime.ReadMemStats(&ms1)
	if err != nil {
		t.Fatal(err)
	}
	alloc := ms1.TotalAlloc - ms0.TotalAlloc
	t.Logf("MakeKey of a %d-byte key: %d bytes allocated", len(key), alloc)
	if alloc > 2*uint64(len(key))+64<<10 {
		t.Errorf("MakeKey of a %d-byte key allocated %d bytes, want at most twice the key", len(key), alloc)
	}
	for _, c := range []struct{ instance, category string }{{big, "LFA"}, {"Summit", big + " "}, {big + "\xff", "LFA"}} {
		_, err := lfa.MakeBucketName(c.instance, c.category)
		if !errors.Is(err, lfa.ErrBadName) || len(err.Error()) > 400 {
			t.Errorf("MakeBucketName of %d bytes: error of %d bytes: %.400v", len(c.instance)+len(c.category), len(err.Error()), err)
		}
	}
	_, err = lfa.MakeKey(big+"\xff", "", "g", 0)
	if !errors.Is(err, lfa.ErrBadName) || len(err.Error()) > 400 {
		t.Errorf("MakeKey of invalid UTF-8: error of %d bytes", len(err.Error()))
	}
	allocs := testing.AllocsPerRun(100, func() {
		_, _ = lfa.MakeKey("ATSpectrograph", "", "ATSpec", 1709668800.123, lfa.WithSuffix(".fits"))
	})
	t.Logf("MakeKey: %v allocations a call", allocs)
	if allocs > 20 {
		t.Errorf("MakeKey: %v allocations a call, want at most 20", allocs)
	}
}

func TestIndexName(t *testing.T) {
	for in, want := range map[int]string{0: "", 1: "1", 5: "5", -1: "-1", 2147483647: "2147483647"} {
		if got := lfa.IndexName(in); got != want {
			t.Errorf("IndexName(%d) = %q, want %q", in, got, want)
		}
	}
}

func FuzzMakeBucketName(f *testing.F) {
	for _, s := range [][2]string{{"Summit", "LFA"}, {"a.b", "c"}, {".a", "b"}, {"a.", "b"}, {"İ", "K"}, {"ſı", "1"}, {"a\n", "b"}, {"\xff", "a"}, {"", ""}, {strings.Repeat("a", 50), "LFA"}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, instance, category string) {
		name, err := lfa.MakeBucketName(instance, category)
		if err != nil {
			if !errors.Is(err, lfa.ErrBadName) {
				t.Fatalf("error %v does not wrap ErrBadName", err)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if n := utf8.RuneCountInString(name); n > lfa.MaxBucketName || !strings.HasPrefix(name, "rubinobs-") {
			t.Fatalf("name %q of %d characters", name, n)
		}
		if strings.ToUpper(name) == name && strings.ToLower(name) != name {
			t.Fatalf("name %q not lower case", name)
		}
		for _, r := range name {
			if 'A' <= r && r <= 'Z' {
				t.Fatalf("name %q holds upper case %q", name, r)
			}
		}
	})
}

func FuzzMakeKey(f *testing.F) {
	f.Add("ATSpectrograph", "", "ATSpec", 1709639999.999, "", false, "", false, ".dat", true)
	f.Add("Foo", "Blue", "testFiberSpecBlue", 1585828799.9999, "othertext", true, "", false, "", false)
	f.Add("Foo", "5", "g", 1585828799.9999, "", false, "FF_O_20200402_000001", true, ".fits", true)
	f.Add("A", "", "g", math.NaN(), "", false, "", false, "", false)
	f.Add("A", "", "g", math.Inf(1), "", false, "", false, "", false)
	f.Add("A", "", "g", -1e11, "", false, "", false, "", false)
	f.Add("A", "", "g", 1e300, "", false, "", false, "", false)
	f.Add("A\xff", "", "g", 0.0, "", false, "", false, "", false)
	f.Add("A", "", "g", -30610180800.0, "", false, "", false, "", false) // 1000-01-01T12:00 TAI
	f.Add("A", "", "g", 253402300799.9995, "", false, "", false, "", false)
	f.Fuzz(func(t *testing.T, salName, idx, generator string, tai float64, other string, hasOther bool, stem string, hasStem bool, suffix string, hasSuffix bool) {
		var opts []lfa.KeyOption
		if hasOther {
			opts = append(opts, lfa.WithOther(other))
		}
		if hasStem {
			opts = append(opts, lfa.WithStem(stem))
		}
		if hasSuffix {
			opts = append(opts, lfa.WithSuffix(suffix))
		}
		key, err := lfa.MakeKey(salName, idx, generator, tai, opts...)
		if err != nil {
			if !errors.Is(err, lfa.ErrBadName) {
				t.Fatalf("error %v does not wrap ErrBadName", err)
			}
			if len(err.Error()) > 400 {
				t.Fatalf("error of %d bytes", len(err.Error()))
			}
			return
		}
		if bound := 2*(len(salName)+len(idx)+len(generator)+1) + len(other) + len(stem) + len(suffix) + len(lfa.DefaultSuffix) + 40; len(key) > bound {
			t.Fatalf("key of %d bytes > %d", len(key), bound)
		}
		if !utf8.ValidString(key) {
			t.Fatalf("key %q not UTF-8", key)
		}
		// The observing day's path segment is four, two and two digits.
		rest := key[len(salName)+len(generator)+1:]
		if idx != "" {
			rest = rest[len(idx)+1:]
		}
		if len(rest) < 12 || rest[0] != '/' || rest[5] != '/' || rest[8] != '/' || rest[11] != '/' {
			t.Fatalf("key %q: no /yyyy/mm/dd/ after the generator", key)
		}
		for _, i := range []int{1, 2, 3, 4, 6, 7, 9, 10} {
			if rest[i] < '0' || rest[i] > '9' {
				t.Fatalf("key %q: observing day %q not digits", key, rest[:12])
			}
		}
	})
}
