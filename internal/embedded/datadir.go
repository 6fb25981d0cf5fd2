package embedded

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/twmb/franz-go/pkg/sr"
)

// RegistryFile is the registry's file in a data folder (Options.DataDir):
// one JSON object a line per registered schema version (subject, version,
// id, schema with its references), in the order they were registered.
const RegistryFile = "registry.jsonl"

// KafkaDir is the broker's folder in a data folder (kfake.DataDir).
const KafkaDir = "kafka"

// schemaEntry is one line of RegistryFile.
type schemaEntry struct {
	Subject string    `json:"subject"`
	Version int       `json:"version"`
	ID      int       `json:"id"`
	Schema  sr.Schema `json:"schema"`
	// Srfake: srfake registered it (the slow route), and numbers the
	// subject's versions from then on.
	Srfake bool `json:"srfake,omitempty"`
}

// registryLog appends the registrations to RegistryFile. Each entry is
// one write of a whole line to a file opened for appending, done before
// the registration is answered; a line cut short by a crash was never
// answered, and loading drops it. Writes are not synced, as kfake's are
// not without SyncWrites: a killed process loses nothing, a power cut
// may.
type registryLog struct {
	path string
	f    *os.File
}

// openRegistryLog reads the schemas of path (none if it does not exist)
// and opens it for appending. Anything but whole lines of valid entries
// (and a last line cut short, which is dropped) is an error naming the
// file and the line.
func openRegistryLog(path string) ([]schemaEntry, *registryLog, error) {
	data, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, nil, fmt.Errorf("embedded: read the schema registry's file: %w", err)
	}
	var entries []schemaEntry
	seen := map[string]bool{}
	good := 0 // bytes of whole lines
	for line := 1; good < len(data); line++ {
		n := bytes.IndexByte(data[good:], '\n')
		if n < 0 {
			break // cut short by a crash: never answered
		}
		var e schemaEntry
		dec := json.NewDecoder(bytes.NewReader(data[good : good+n]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, nil, fmt.Errorf("embedded: schema registry file %s line %d: %w", path, line, err)
		}
		key := e.Subject + "\x00" + strconv.Itoa(e.Version)
		switch {
		case e.Subject == "" || e.Version < 1 || e.ID < 1 || e.Schema.Schema == "":
			return nil, nil, fmt.Errorf("embedded: schema registry file %s line %d: want a subject, a version and an id from 1 and a schema", path, line)
		case seen[key]:
			return nil, nil, fmt.Errorf("embedded: schema registry file %s line %d: subject %q version %d a second time", path, line, e.Subject, e.Version)
		}
		seen[key] = true
		entries = append(entries, e)
		good += n + 1
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil, fmt.Errorf("embedded: open the schema registry's file: %w", err)
	}
	// Drop a cut-short last line, then append after the whole ones.
	if err := f.Truncate(int64(good)); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("embedded: schema registry file %s: %w", path, err)
	}
	if _, err := f.Seek(int64(good), 0); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("embedded: schema registry file %s: %w", path, err)
	}
	return entries, &registryLog{path: path, f: f}, nil
}

// append writes e as one line.
func (l *registryLog) append(e schemaEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := l.f.Write(append(b, '\n')); err != nil {
		return fmt.Errorf("embedded: write the schema registry's file: %w", err)
	}
	return nil
}

func (l *registryLog) close() error { return l.f.Close() }

// closeLog closes the data folder's RegistryFile, if any.
func (f *fastRegistry) closeLog() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.log != nil {
		_ = f.log.close()
		f.log = nil
	}
}

// load gives f and its srfake the schemas of entries, with their ids and
// versions, as they were when registered (see register and slow).
func (f *fastRegistry) load(path string, entries []schemaEntry) (err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	line := 0
	defer func() {
		// SeedSchema panics on a schema it cannot take.
		if p := recover(); p != nil {
			err = fmt.Errorf("embedded: schema registry file %s line %d: %v", path, line, p)
		}
	}()
	ids := map[int]bool{}
	for i, e := range entries {
		line = i + 1
		if !ids[e.ID] {
			f.reg.SeedSchema(e.Subject, e.Version, e.ID, e.Schema)
			ids[e.ID] = true
		} else if id, v, err := f.reg.RegisterSchema(e.Subject, e.Schema); err != nil || id != e.ID || v != e.Version {
			// The same schema under a second subject: srfake gives the
			// known id, numbering the subject's versions itself.
			return fmt.Errorf("embedded: schema registry file %s line %d: subject %q version %d id %d registers as version %d id %d (%v)",
				path, line, e.Subject, e.Version, e.ID, v, id, err)
		}
		f.logged[[2]any{e.Subject, e.Version}] = true
		if e.ID >= f.nextID {
			f.nextID = e.ID + 1
		}
		if e.Srfake {
			f.subjVer[e.Subject] = -1
			continue
		}
		if _, ok := f.byText[e.Schema.Schema]; !ok {
			f.byText[e.Schema.Schema] = e.ID
		}
		f.bySubText[[2]string{e.Subject, e.Schema.Schema}] = e.ID
		if f.subjVer[e.Subject] >= 0 && e.Version > f.subjVer[e.Subject] {
			f.subjVer[e.Subject] = e.Version
		}
	}
	return nil
}
