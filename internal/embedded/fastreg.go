package embedded

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/twmb/franz-go/pkg/sr"
	"github.com/twmb/franz-go/pkg/sr/srfake"
)

// fastRegistry answers schema registrations (POST
// /subjects/{subject}/versions) from hash maps and hands everything else to
// srfake. srfake compares a new schema with every stored one, re-encoding
// both as JSON, under one lock: registering all 3,348 ts_xml topics took
// minutes. Here an exact text is looked up once; new texts are given an
// id here and seeded into srfake later, before srfake next answers any
// request (seeding parses, normalises and hashes the schema: a third of
// the CPU of starting Remotes of all 63 components), so its read routes
// always see every schema.
type fastRegistry struct {
	reg  *srfake.Registry
	next http.Handler
	down atomic.Bool // simulated outage: every request answers 503

	mu        sync.Mutex
	bySubText map[[2]string]int
	byText    map[string]int
	subjVer   map[string]int // versions given here; -1: srfake numbers the subject
	nextID    int
	pending   []seed // given ids, not yet in srfake

	log    *registryLog    // the data folder's RegistryFile, or nil
	logged map[[2]any]bool // subject and version in log
}

type seed struct {
	subject     string
	version, id int
	schema      sr.Schema
}

func newFastRegistry(reg *srfake.Registry) *fastRegistry {
	return &fastRegistry{
		reg: reg, next: reg.Handler(),
		bySubText: map[[2]string]int{}, byText: map[string]int{}, subjVer: map[string]int{}, nextID: 1,
		logged: map[[2]any]bool{},
	}
}

func (f *fastRegistry) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if f.down.Load() {
		http.Error(w, `{"error_code":50301,"message":"registry unavailable (simulated outage)"}`, http.StatusServiceUnavailable)
		return
	}
	subject, ok := strings.CutPrefix(req.URL.Path, "/subjects/")
	if req.Method != http.MethodPost || !ok || !strings.HasSuffix(subject, "/versions") || req.URL.RawQuery != "" {
		f.flush()
		f.next.ServeHTTP(w, req)
		return
	}
	subject = strings.TrimSuffix(subject, "/versions")
	body, err := io.ReadAll(http.MaxBytesReader(w, req.Body, 1<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusRequestEntityTooLarge)
		return
	}
	var s sr.Schema
	if err := json.Unmarshal(body, &s); err != nil || subject == "" || strings.Contains(subject, "/") ||
		len(s.References) > 0 || (s.Type != 0 && s.Type != sr.TypeAvro) || s.Schema == "" {
		f.slow(w, req, body, subject)
		return
	}
	id, ok, err := f.register(subject, s)
	if err != nil {
		http.Error(w, `{"error_code":50001,"message":`+strconv.Quote(err.Error())+`}`, http.StatusInternalServerError)
		return
	}
	if ok {
		w.Header().Set("Content-Type", "application/vnd.schemaregistry.v1+json")
		_ = json.NewEncoder(w).Encode(map[string]int{"id": id})
		return
	}
	f.slow(w, req, body, subject)
}

// flush seeds srfake with the schemas given ids since the last flush.
func (f *fastRegistry) flush() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushLocked()
}

// flushLocked seeds the pending schemas. srfake cannot refuse them: their
// ids are above every id srfake gave (see slow), and their versions follow
// the subject's last one, which only this type numbers until srfake takes
// the subject over (subjVer -1).
func (f *fastRegistry) flushLocked() {
	for _, p := range f.pending {
		f.reg.SeedSchema(p.subject, p.version, p.id, p.schema)
	}
	f.pending = f.pending[:0]
}

// register returns the id of s under subject, or false to use srfake.
// A new schema is written to the data folder before it is given an id.
func (f *fastRegistry) register(subject string, s sr.Schema) (id int, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if id, ok := f.bySubText[[2]string{subject, s.Schema}]; ok {
		return id, true, nil
	}
	if _, ok := f.byText[s.Schema]; ok {
		return 0, false, nil // same text under another subject: srfake reuses the id
	}
	last := f.subjVer[subject]
	if last < 0 || (last == 0 && f.reg.SubjectExists(subject)) {
		return 0, false, nil // srfake numbers this subject's versions
	}
	id = f.nextID
	version := last + 1
	if f.log != nil {
		if err := f.log.append(schemaEntry{Subject: subject, Version: version, ID: id, Schema: s}); err != nil {
			return 0, false, err
		}
		f.logged[[2]any{subject, version}] = true
	}
	f.pending = append(f.pending, seed{subject, version, id, s})
	f.nextID++
	f.byText[s.Schema] = id
	f.bySubText[[2]string{subject, s.Schema}] = id
	f.subjVer[subject] = version
	return id, true, nil
}

// slow hands the registration to srfake and records its answer; from
// then on srfake numbers the subject's versions.
func (f *fastRegistry) slow(w http.ResponseWriter, req *http.Request, body []byte, subject string) {
	rec := &recorder{header: http.Header{}}
	req.Body = io.NopCloser(bytes.NewReader(body))
	f.mu.Lock()
	defer f.mu.Unlock()
	f.flushLocked()
	f.next.ServeHTTP(rec, req)
	if subject != "" {
		f.subjVer[subject] = -1
	}
	var out struct{ ID int }
	if rec.code == 0 || rec.code == http.StatusOK {
		if json.Unmarshal(rec.buf.Bytes(), &out) == nil && out.ID > 0 && out.ID >= f.nextID {
			f.nextID = out.ID + 1
		}
		if out.ID > 0 && f.log != nil {
			if err := f.logSlow(subject, body); err != nil {
				http.Error(w, `{"error_code":50001,"message":`+strconv.Quote(err.Error())+`}`, http.StatusInternalServerError)
				return
			}
		}
	}
	for k, v := range rec.header {
		w.Header()[k] = v
	}
	if rec.code != 0 {
		w.WriteHeader(rec.code)
	}
	_, _ = w.Write(rec.buf.Bytes())
}

// logSlow writes to the data folder the version srfake registered (or
// found) for the schema of body under subject, if not already there. The
// registration's answer carries only the id: srfake's lookup of the schema
// under the subject gives the version.
func (f *fastRegistry) logSlow(subject string, body []byte) error {
	rec := &recorder{header: http.Header{}}
	req, err := http.NewRequest(http.MethodPost, "/subjects/"+url.PathEscape(subject), bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("embedded: persist subject %q: %w", subject, err)
	}
	req.Header.Set("Content-Type", "application/vnd.schemaregistry.v1+json")
	f.next.ServeHTTP(rec, req)
	var ss sr.SubjectSchema
	if (rec.code != 0 && rec.code != http.StatusOK) || json.Unmarshal(rec.buf.Bytes(), &ss) != nil || ss.Version < 1 || ss.ID < 1 {
		return fmt.Errorf("embedded: persist subject %q: srfake's lookup answered %d %s", subject, rec.code, rec.buf.Bytes())
	}
	if f.logged[[2]any{subject, ss.Version}] {
		return nil
	}
	if err := f.log.append(schemaEntry{Subject: subject, Version: ss.Version, ID: ss.ID, Schema: ss.Schema, Srfake: true}); err != nil {
		return err
	}
	f.logged[[2]any{subject, ss.Version}] = true
	return nil
}

type recorder struct {
	header http.Header
	code   int
	buf    bytes.Buffer
}

func (r *recorder) Header() http.Header         { return r.header }
func (r *recorder) Write(b []byte) (int, error) { return r.buf.Write(b) }
func (r *recorder) WriteHeader(code int)        { r.code = code }
