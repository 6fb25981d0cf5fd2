package wirefixture

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// EnvDir names the fixture folder, overriding the default
// <repository>/../shared/fixtures/salobj8-wire.
const EnvDir = "SALGO_FIXTURES_DIR"

// EnvXML names the ts_xml definitions the fixture was written with (the
// Test component of ts_xml 28.0.1).
const EnvXML = "TS_XML_DIR"

// The session's constants: LSST_TOPIC_SUBNAME, the component and the SAL
// index of the TestCsc.
const (
	Subname   = "capture"
	Component = "Test"
	Index     = 5
)

// topicPrefix is what every Kafka topic name of the fixture starts with.
const topicPrefix = "lsst." + Subname + "." + Component + "."

// Record is one line of records.jsonl.
type Record struct {
	Line             int // 1-based line in records.jsonl
	Topic            string
	Partition        int32
	Offset           int64
	KafkaTimestampMs int64
	Key              string
	SchemaID         int32
	// Value is the whole Kafka value (value_hex): magic byte, big-endian
	// schema id, Avro body.
	Value []byte
	// Decoded is fastavro's decoding, fields in schema order, numbers as
	// json.Number, arrays as []any, special floats as the strings "NaN",
	// "Infinity", "-Infinity" and "-0.0".
	Decoded []Field
}

// Field is one field of a decoded record.
type Field struct {
	Name  string
	Value any
}

// SALName returns the SAL topic name of the record's topic, such as
// "logevent_summaryState" for lsst.capture.Test.logevent_summaryState.
func (r *Record) SALName() string { return strings.TrimPrefix(r.Topic, topicPrefix) }

// Body returns the Avro body: Value after its 5-byte header.
func (r *Record) Body() []byte { return r.Value[5:] }

// Get returns the decoded value of the named field.
func (r *Record) Get(name string) (any, bool) {
	for _, f := range r.Decoded {
		if f.Name == name {
			return f.Value, true
		}
	}
	return nil, false
}

// Int returns the decoded integer field name, failing t if it is missing
// or not an integer.
func (r *Record) Int(t testing.TB, name string) int64 {
	t.Helper()
	v, ok := r.Get(name)
	n, isNum := v.(json.Number)
	if !ok || !isNum {
		t.Fatalf("records.jsonl line %d (%s): field %s is %v, not an integer", r.Line, r.Topic, name, v)
	}
	i, err := n.Int64()
	if err != nil {
		t.Fatalf("records.jsonl line %d (%s): field %s: %v", r.Line, r.Topic, name, err)
	}
	return i
}

// String returns the decoded string field name, failing t if it is
// missing or not a string.
func (r *Record) String(t testing.TB, name string) string {
	t.Helper()
	v, ok := r.Get(name)
	s, isStr := v.(string)
	if !ok || !isStr {
		t.Fatalf("records.jsonl line %d (%s): field %s is %v, not a string", r.Line, r.Topic, name, v)
	}
	return s
}

// Schema is one line of schemas.jsonl: a subject version as the registry
// returned it.
type Schema struct {
	Subject string `json:"subject"`
	ID      int32  `json:"id"`
	Version int    `json:"version"`
	Schema  string `json:"schema"`
}

// Posted is one line of schemas_posted.jsonl: the schema text salobj
// registers for a subject.
type Posted struct {
	Subject string `json:"subject"`
	Schema  string `json:"schema"`
}

// SubjectSALName returns the SAL topic name of a subject
// lsst.capture.Test.<sal_name>-value.
func SubjectSALName(subject string) string {
	return strings.TrimSuffix(strings.TrimPrefix(subject, topicPrefix), "-value")
}

// Dir returns the fixture folder, or skips t saying why it is missing.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvDir)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Skipf("salobj8-wire fixture not found (set %s): %v", EnvDir, err)
		}
		dir = filepath.Join(root, "..", "shared", "fixtures", "salobj8-wire")
	}
	if _, err := os.Stat(filepath.Join(dir, "records.jsonl")); err != nil {
		t.Skipf("salobj8-wire fixture not found (set %s to the folder holding records.jsonl): %v", EnvDir, err)
	}
	return dir
}

// XMLDir returns the ts_xml folder named by TS_XML_DIR, or skips t.
func XMLDir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(EnvXML)
	if dir == "" {
		t.Skipf("%s is not set: the fixture's Test component is only in the real ts_xml (.ci/run sets it to ../shared/ts_xml)", EnvXML)
	}
	return dir
}

// repoRoot is the folder holding the module's go.mod, found upwards from
// the working directory (a package folder under go test).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = up
	}
}

// Records returns every record of records.jsonl in file order.
func Records(t testing.TB) []Record {
	t.Helper()
	var out []Record
	eachLine(t, "records.jsonl", func(line int, b []byte) error {
		var raw struct {
			Topic            string          `json:"topic"`
			Partition        int32           `json:"partition"`
			Offset           int64           `json:"offset"`
			KafkaTimestampMs int64           `json:"kafka_timestamp_ms"`
			Key              *string         `json:"key"`
			ValueHex         string          `json:"value_hex"`
			SchemaID         int32           `json:"schema_id"`
			Decoded          json.RawMessage `json:"decoded"`
		}
		if err := json.Unmarshal(b, &raw); err != nil {
			return err
		}
		if raw.Key == nil {
			return fmt.Errorf("key is null")
		}
		val, err := hex.DecodeString(raw.ValueHex)
		if err != nil {
			return fmt.Errorf("value_hex: %w", err)
		}
		if len(val) < 5 {
			return fmt.Errorf("value_hex: %d bytes, shorter than the header", len(val))
		}
		dec, err := orderedFields(raw.Decoded)
		if err != nil {
			return fmt.Errorf("decoded: %w", err)
		}
		out = append(out, Record{Line: line, Topic: raw.Topic, Partition: raw.Partition, Offset: raw.Offset,
			KafkaTimestampMs: raw.KafkaTimestampMs, Key: *raw.Key, SchemaID: raw.SchemaID, Value: val, Decoded: dec})
		return nil
	})
	return out
}

// Schemas returns every line of schemas.jsonl in file order.
func Schemas(t testing.TB) []Schema {
	t.Helper()
	var out []Schema
	eachLine(t, "schemas.jsonl", func(_ int, b []byte) error {
		var s Schema
		err := json.Unmarshal(b, &s)
		out = append(out, s)
		return err
	})
	return out
}

// SchemaByID returns the registry's schema texts by id.
func SchemaByID(t testing.TB) map[int32]string {
	t.Helper()
	out := map[int32]string{}
	for _, s := range Schemas(t) {
		out[s.ID] = s.Schema
	}
	return out
}

// PostedSchemas returns every line of schemas_posted.jsonl in file order.
func PostedSchemas(t testing.TB) []Posted {
	t.Helper()
	var out []Posted
	eachLine(t, "schemas_posted.jsonl", func(_ int, b []byte) error {
		var p Posted
		err := json.Unmarshal(b, &p)
		out = append(out, p)
		return err
	})
	return out
}

// eachLine calls fn for each non-empty line of the named fixture file,
// failing t with the file and line of the first error.
func eachLine(t testing.TB, name string, fn func(line int, b []byte) error) {
	t.Helper()
	path := filepath.Join(Dir(t), name)
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		if err := fn(n, sc.Bytes()); err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// orderedFields decodes a JSON object keeping its key order, with numbers
// as json.Number.
func orderedFields(b []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, fmt.Errorf("not an object (%v %v)", tok, err)
	}
	var out []Field
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("field %s: %w", name, err)
		}
		out = append(out, Field{Name: name, Value: v})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	return out, nil
}

// EnvShared names the folder of the shared fixtures (ts_config_ocs, the
// Test CSC's configuration schema, salobj8-wire), overriding the default
// <repository>/../shared/fixtures.
const EnvShared = "SALGO_SHARED_FIXTURES"

// Shared returns the path of a shared fixture (e.g. Shared(t,
// "ts_config_ocs")), or skips t saying why it is missing.
func Shared(t testing.TB, parts ...string) string {
	t.Helper()
	dir := os.Getenv(EnvShared)
	if dir == "" {
		root, err := repoRoot()
		if err != nil {
			t.Skipf("shared fixtures not found (set %s): %v", EnvShared, err)
		}
		dir = filepath.Join(root, "..", "shared", "fixtures")
	}
	p := filepath.Join(append([]string{dir}, parts...)...)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("shared fixture %s not found (set %s to the fixtures folder): %v", filepath.Join(parts...), EnvShared, err)
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		t.Fatal(err)
	}
	return abs
}
