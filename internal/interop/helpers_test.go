package interop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/sal"
	salxml "github.com/lsst-sal/salgo/xml"
)

// Environment variables of the interop and security tests (besides the
// LSST_* ones of the SDK and the KAFKA_* ones of scripts/kafka/kafka.sh).
const (
	envPython  = "SALGO_PYTHON"       // a Python with py/requirements.txt installed
	envMTLS    = "SALGO_MTLS_ADDR"    // SSL listener of a broker started with KAFKA_MTLS=1
	envMTLSDir = "SALGO_MTLS_TLS_DIR" // that broker's KAFKA_TLS_DIR
)

// interopEnv is what the interop tests need: a real broker and registry
// and a Python with confluent-kafka.
type interopEnv struct {
	python   string
	script   string
	registry string
}

func needInterop(t *testing.T) *interopEnv {
	t.Helper()
	if os.Getenv("LSST_KAFKA_BROKER_ADDR") == "" {
		t.Skip("LSST_KAFKA_BROKER_ADDR is unset: the interop tests need a real Kafka broker (run scripts/ci-integration.sh)")
	}
	reg := os.Getenv("LSST_SCHEMA_REGISTRY_URL")
	if reg == "" {
		t.Skip("LSST_SCHEMA_REGISTRY_URL is unset: the interop tests need a schema registry that Python can reach too")
	}
	py := os.Getenv(envPython)
	if py == "" {
		t.Skip(envPython + " is unset: the interop tests need a Python with internal/interop/py/requirements.txt installed (run scripts/ci-integration.sh)")
	}
	script, err := filepath.Abs(filepath.Join("py", "salinterop.py"))
	if err != nil {
		t.Fatal(err)
	}
	return &interopEnv{python: py, script: script, registry: reg}
}

// component is one component the interop tests run on, with the folder
// Python reads its XML from.
type component struct {
	name   string
	index  int
	defs   *salxml.Definitions
	salDir string
}

// components returns Example (embedded definitions, read by Python from
// xml/example) and, when TS_XML_DIR is set, ts_xml's Test component.
func components(t *testing.T) []component {
	t.Helper()
	ex, err := filepath.Abs(filepath.Join("..", "..", "xml", "example"))
	if err != nil {
		t.Fatal(err)
	}
	out := []component{{name: "Example", index: 1, defs: salxml.Embedded(), salDir: ex}}
	if dir := os.Getenv(salxml.EnvDir); dir != "" {
		sal, err := salxml.Locate(dir)
		if err != nil {
			t.Fatal(err)
		}
		defs, err := salxml.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, component{name: "Test", index: 1, defs: defs, salDir: sal})
	} else {
		t.Logf("TS_XML_DIR is unset: running on the Example component only")
	}
	return out
}

func example(t *testing.T) component { return components(t)[0] }

// subname returns a topic subname unique to this test and run.
func subname(t testing.TB) string {
	base := os.Getenv("LSST_TOPIC_SUBNAME")
	if base == "" {
		base = "interop"
	}
	// Kafka topic names allow only [a-zA-Z0-9._-]; the subname no '.'.
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' {
			return r
		}
		return '_'
	}, t.Name())
	return fmt.Sprintf("%s_%s_%d", base, name, time.Now().UnixNano()%1e9)
}

// testLogger logs at debug level into a buffer (returned, to look for
// secrets) and, with SALGO_TEST_LOG set, to stderr too.
func testLogger() (*slog.Logger, *testbus.SyncBuffer) {
	buf := &testbus.SyncBuffer{}
	var w io.Writer = buf
	if os.Getenv("SALGO_TEST_LOG") != "" {
		w = io.MultiWriter(buf, os.Stderr)
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

func ctxFor(t *testing.T, d time.Duration) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	t.Cleanup(cancel)
	return ctx
}

// connect makes a Bus on the broker and registry of the LSST_* variables
// (opts may override them) with a subname of its own.
func connect(t *testing.T, defs *salxml.Definitions, sub string, opts ...sal.Option) *sal.Bus {
	t.Helper()
	log, _ := testLogger()
	all := append([]sal.Option{sal.WithDefinitions(defs), sal.WithSubname(sub), sal.WithLogger(log)}, opts...)
	bus, err := sal.Connect(ctxFor(t, time.Minute), all...)
	if err != nil {
		t.Fatalf("sal.Connect: %v", err)
	}
	if bus.Embedded() {
		bus.Close()
		t.Fatal("sal.Connect started the embedded broker although LSST_KAFKA_BROKER_ADDR is set")
	}
	t.Cleanup(func() { bus.Close() })
	return bus
}

// runPython runs one subcommand of py/salinterop.py with spec written to a
// file, fails the test when it fails, and returns its JSON summary.
func (e *interopEnv) runPython(t *testing.T, sub string, spec any) map[string]any {
	t.Helper()
	var b strings.Builder
	pyJSON(&b, spec)
	f := filepath.Join(t.TempDir(), sub+".json")
	if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx := ctxFor(t, 3*time.Minute)
	cmd := exec.CommandContext(ctx, e.python, e.script, sub, "--spec", f)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	t0 := time.Now()
	err := cmd.Run()
	if err != nil {
		t.Fatalf("python salinterop.py %s: %v (after %v)\nstderr:\n%s\nstdout:\n%s", sub, err, time.Since(t0).Round(time.Millisecond), stderr.String(), stdout.String())
	}
	lines := strings.Split(strings.TrimSpace(stdout.String()), "\n")
	var out map[string]any
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &out); err != nil {
		t.Fatalf("python salinterop.py %s: last line of stdout is not JSON: %v\n%s", sub, err, stdout.String())
	}
	t.Logf("python salinterop.py %s (%v): %s", sub, time.Since(t0).Round(time.Millisecond), lines[len(lines)-1])
	return out
}

// pyJSON writes v as JSON that Python's json module reads back exactly:
// float32 in its shortest form, NaN and ±Infinity as bare tokens, byte
// slices as lists of numbers.
func pyJSON(b *strings.Builder, v any) {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case string:
		s, _ := json.Marshal(x)
		b.Write(s)
	case int:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int16:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		b.WriteString(strconv.FormatInt(x, 10))
	case uint8:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case uint16:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case uint32:
		b.WriteString(strconv.FormatUint(uint64(x), 10))
	case float32:
		b.WriteString(pyFloat(float64(x), 32))
	case float64:
		b.WriteString(pyFloat(x, 64))
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		b.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				b.WriteString(", ")
			}
			pyJSON(b, k)
			b.WriteString(": ")
			pyJSON(b, x[k])
		}
		b.WriteByte('}')
	default:
		rv := reflect.ValueOf(v)
		if rv.Kind() != reflect.Slice {
			panic(fmt.Sprintf("pyJSON: %T", v))
		}
		b.WriteByte('[')
		for i := 0; i < rv.Len(); i++ {
			if i > 0 {
				b.WriteString(", ")
			}
			pyJSON(b, rv.Index(i).Interface())
		}
		b.WriteByte(']')
	}
}

func pyFloat(f float64, bits int) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "Infinity"
	case math.IsInf(f, -1):
		return "-Infinity"
	}
	return strconv.FormatFloat(f, 'g', -1, bits)
}

// Test values: edge values of every SAL type, NaN and infinities, and
// strings with what JSON and Avro must carry (quotes, backslash, control
// characters, non-ASCII, a character outside the BMP).
var testStrings = []string{"é\"\\\n\t<&>😀/", "", "plain ASCII text, longer than twenty bytes", "\x01\x1f ümlaut ∑ 𝄞"}

func scalarValue(f *salxml.Field, k int) any {
	k %= 4
	switch f.Type {
	case salxml.Boolean:
		return k%2 == 0
	case salxml.Byte:
		return []uint8{255, 0, 7, 128}[k]
	case salxml.Short:
		return []int16{math.MaxInt16, math.MinInt16, -1, 12345}[k]
	case salxml.Int, salxml.Long:
		return []int32{math.MaxInt32, math.MinInt32, -1, 123456789}[k]
	case salxml.LongLong:
		return []int64{math.MaxInt64, math.MinInt64, -1, 1<<53 + 1}[k]
	case salxml.UnsignedShort:
		return []uint16{math.MaxUint16, 0, 1, 40000}[k]
	case salxml.UnsignedInt:
		return []uint32{math.MaxUint32, 0, 1, 3000000000}[k]
	case salxml.Float:
		return []float32{math.MaxFloat32, -math.SmallestNonzeroFloat32, float32(math.Inf(1)), float32(math.NaN())}[k]
	case salxml.Double:
		return []float64{-math.MaxFloat64, math.SmallestNonzeroFloat64, math.Inf(-1), math.NaN()}[k]
	case salxml.String:
		return truncate(testStrings[k], f.MaxLen())
	}
	panic("scalarValue: type " + f.Type.String())
}

// truncate cuts s to at most n bytes (0: no bound) on a rune boundary.
func truncate(s string, n int) string {
	if n <= 0 || len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// fieldValue is the value of field f in test record number variant.
func fieldValue(f *salxml.Field, variant int) any {
	if !f.IsArray() {
		return scalarValue(f, variant)
	}
	n := f.Count
	switch f.Type {
	case salxml.Boolean:
		return fill[bool](f, n, variant)
	case salxml.Byte:
		return fill[uint8](f, n, variant)
	case salxml.Short:
		return fill[int16](f, n, variant)
	case salxml.Int, salxml.Long:
		return fill[int32](f, n, variant)
	case salxml.LongLong:
		return fill[int64](f, n, variant)
	case salxml.UnsignedShort:
		return fill[uint16](f, n, variant)
	case salxml.UnsignedInt:
		return fill[uint32](f, n, variant)
	case salxml.Float:
		return fill[float32](f, n, variant)
	case salxml.Double:
		return fill[float64](f, n, variant)
	}
	panic("fieldValue: array of " + f.Type.String())
}

func fill[T any](f *salxml.Field, n, variant int) []T {
	out := make([]T, n)
	for i := range out {
		out[i] = scalarValue(f, variant+i).(T)
	}
	return out
}

// record returns test record number variant of topic tp: every user field set.
func record(tp *salxml.Topic, variant int) map[string]any {
	rec := map[string]any{}
	for _, f := range tp.UserFields() {
		if f.Nullable {
			continue
		}
		rec[f.Name] = fieldValue(f, variant)
	}
	return rec
}

// equalValue compares canonical values; NaN equals NaN, types must match.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case float32:
		y, ok := b.(float32)
		return ok && sameFloat(float64(x), float64(y))
	case float64:
		y, ok := b.(float64)
		return ok && sameFloat(x, y)
	}
	va, vb := reflect.ValueOf(a), reflect.ValueOf(b)
	if va.Kind() == reflect.Slice {
		if va.Type() != vb.Type() || va.Len() != vb.Len() {
			return false
		}
		for i := 0; i < va.Len(); i++ {
			if !equalValue(va.Index(i).Interface(), vb.Index(i).Interface()) {
				return false
			}
		}
		return true
	}
	return reflect.DeepEqual(a, b)
}

func sameFloat(x, y float64) bool {
	if math.IsNaN(x) || math.IsNaN(y) {
		return math.IsNaN(x) && math.IsNaN(y)
	}
	return x == y && math.Signbit(x) == math.Signbit(y)
}

// checkRecord reports every field of want that differs in got.
func checkRecord(t *testing.T, where string, got, want map[string]any) {
	t.Helper()
	names := make([]string, 0, len(want))
	for k := range want {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if g, ok := got[k]; !ok {
			t.Errorf("%s: field %s missing", where, k)
		} else if !equalValue(g, want[k]) {
			t.Errorf("%s: %s = %#v (%T), want %#v (%T)", where, k, g, g, want[k], want[k])
		}
	}
}

// regCapture records, per subject, the schema text the SDK posted to
// POST /subjects/{subject}/versions and the id the registry answered.
type regCapture struct {
	mu   sync.Mutex
	regs map[string]regEntry
}

type regEntry struct {
	Schema string `json:"schema"`
	ID     int    `json:"id"`
	Posts  int    `json:"-"`
}

type captureKey struct{}

type pending struct{ subject, schema string }

// registryProxy starts a reverse proxy in front of the registry at target
// that captures schema registrations; point the SDK at its URL.
func registryProxy(t *testing.T, target string) (string, *regCapture) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	c := &regCapture{regs: map[string]regEntry{}}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.ModifyResponse = func(resp *http.Response) error {
		p, _ := resp.Request.Context().Value(captureKey{}).(*pending)
		if p == nil || resp.StatusCode != http.StatusOK {
			return nil
		}
		body, err := io.ReadAll(resp.Body)
		if err != nil {
			return err
		}
		resp.Body = io.NopCloser(bytes.NewReader(body))
		var r struct {
			ID int `json:"id"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return fmt.Errorf("registration answer %q: %w", body, err)
		}
		c.mu.Lock()
		e := c.regs[p.subject]
		c.regs[p.subject] = regEntry{Schema: p.schema, ID: r.ID, Posts: e.Posts + 1}
		c.mu.Unlock()
		return nil
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		path := r.URL.Path
		if r.Method == http.MethodPost && strings.HasPrefix(path, "/subjects/") && strings.HasSuffix(path, "/versions") {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			var s struct {
				Schema string `json:"schema"`
			}
			if err := json.Unmarshal(body, &s); err == nil {
				subject := strings.TrimSuffix(strings.TrimPrefix(path, "/subjects/"), "/versions")
				r = r.WithContext(context.WithValue(r.Context(), captureKey{}, &pending{subject: subject, schema: s.Schema}))
			}
		}
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, c
}

func (c *regCapture) snapshot() map[string]regEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]regEntry, len(c.regs))
	for k, v := range c.regs {
		out[k] = v
	}
	return out
}

// num reads a JSON number of the Python summary.
func num(v any) int64 {
	f, _ := v.(float64)
	return int64(f)
}
