package xml

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// EnvDir is the environment variable naming the ts_xml definitions.
const EnvDir = "TS_XML_DIR"

// ErrUnknownComponent is matched by the error for a component name that
// SALSubsystems.xml does not list.
var ErrUnknownComponent = errors.New("unknown SAL component")

//go:embed all:example
var exampleFS embed.FS

// Definitions is a set of SAL interface definitions: SALSubsystems.xml,
// SALGenerics.xml and the component files. Components are parsed on first
// use and cached; a Definitions is safe for concurrent use.
type Definitions struct {
	// Dir is the sal_interfaces folder read, or "(embedded)".
	Dir string

	sal      fs.FS // root holding SALSubsystems.xml
	avsc     fs.FS // root holding <Component>/*.avsc, or nil
	salLabel string
	avLabel  string

	subsystems []*subsystem
	byName     map[string]*subsystem
	generics   *generics

	mu    sync.Mutex
	comps map[string]*compEntry

	embedded bool   // the embedded definitions
	absDir   string // Dir as an absolute path, for Open; else ""
	ver      string // the version, once known (see Version)
	verOnce  sync.Once
}

type compEntry struct {
	once sync.Once
	c    *Component
	err  error
}

// Locate finds the sal_interfaces folder under dir. It accepts the folder
// itself, a ts_xml "data" folder (holding sal_interfaces and interfaces),
// or a ts_xml checkout root.
func Locate(dir string) (string, error) {
	if dir == "" {
		return "", fmt.Errorf("xml: no definitions folder given (set %s)", EnvDir)
	}
	cands := []string{
		dir,
		filepath.Join(dir, "sal_interfaces"),
		filepath.Join(dir, "data", "sal_interfaces"),
		filepath.Join(dir, "python", "lsst", "ts", "xml", "data", "sal_interfaces"),
	}
	for _, c := range cands {
		if st, err := os.Stat(filepath.Join(c, "SALSubsystems.xml")); err == nil && !st.IsDir() {
			return c, nil
		}
	}
	if _, err := os.Stat(dir); err != nil {
		return "", fmt.Errorf("xml: definitions folder %s: %w", dir, err)
	}
	return "", fmt.Errorf("xml: no SALSubsystems.xml in %s, its sal_interfaces, data/sal_interfaces or python/lsst/ts/xml/data/sal_interfaces", dir)
}

// Open reads the definitions found under dir (see Locate). The camera
// .avsc topics are read from the "interfaces" folder beside
// sal_interfaces, when present.
func Open(dir string, opts ...Option) (*Definitions, error) {
	sal, err := Locate(dir)
	if err != nil {
		return nil, err
	}
	var avsc fs.FS
	avDir := filepath.Join(filepath.Dir(sal), "interfaces")
	if st, err := os.Stat(avDir); err == nil && st.IsDir() {
		avsc = os.DirFS(avDir)
	}
	d, err := openFS(sal, os.DirFS(sal), sal, avsc, avDir)
	if err != nil {
		return nil, err
	}
	d.ver = overrideVersion(opts, true)
	if d.absDir, err = filepath.Abs(sal); err != nil {
		d.absDir = ""
	}
	return d, nil
}

// OpenFS reads definitions from file systems: sal holds SALSubsystems.xml,
// SALGenerics.xml and one folder per component; avsc (may be nil) holds
// <Component>/*.avsc. Error messages name files relative to the roots.
func OpenFS(sal, avsc fs.FS, opts ...Option) (*Definitions, error) {
	d, err := openFS("(fs)", sal, "", avsc, "interfaces")
	if err != nil {
		return nil, err
	}
	d.ver = overrideVersion(opts, true)
	return d, nil
}

// Files returns the file systems the definitions are read from: sal holds
// SALSubsystems.xml, SALGenerics.xml and one folder per component; avsc
// holds <Component>/*.avsc, or is nil. For Open they are os.DirFS of the
// sal_interfaces folder and of the interfaces folder beside it (nil when
// absent), for Embedded the embedded example folder (and nil), for OpenFS
// the file systems it was given. cmd/salgen copies a component's files
// from them.
func (d *Definitions) Files() (sal, avsc fs.FS) { return d.sal, d.avsc }

// Embedded returns the project's own definitions, built into the SDK:
// the example component "Example" and the "Script" component that SAL
// scripts serve (ts_xml's interface, in the project's own words). It is
// what the SDK uses when TS_XML_DIR is not set. Its Version is EmbeddedVersion unless WithVersion says
// otherwise.
func Embedded(opts ...Option) *Definitions {
	sub, err := fs.Sub(exampleFS, "example")
	if err == nil {
		var d *Definitions
		if d, err = openFS("(embedded)", sub, "(embedded)", nil, ""); err == nil {
			d.embedded = true
			d.ver = overrideVersion(opts, false)
			return d
		}
	}
	panic("xml: embedded example definitions are broken: " + err.Error())
}

// FromEnv opens the definitions named by TS_XML_DIR, or the embedded
// example definitions when it is unset or empty.
func FromEnv(opts ...Option) (*Definitions, error) {
	if dir := os.Getenv(EnvDir); dir != "" {
		return Open(dir, opts...)
	}
	return Embedded(opts...), nil
}

// overrideVersion returns the version set by WithVersion or, if env,
// TS_XML_VERSION; "" if neither is.
func overrideVersion(opts []Option, env bool) string {
	if o := applyOptions(opts); o.version != "" {
		return o.version
	}
	if env {
		return os.Getenv(EnvVersion)
	}
	return ""
}

func openFS(dir string, sal fs.FS, salLabel string, avsc fs.FS, avLabel string) (*Definitions, error) {
	d := &Definitions{Dir: dir, sal: sal, avsc: avsc, salLabel: salLabel, avLabel: avLabel, comps: map[string]*compEntry{}}
	data, name, err := d.read(sal, salLabel, "SALSubsystems.xml")
	if err != nil {
		return nil, err
	}
	if d.subsystems, err = parseSubsystems(name, data); err != nil {
		return nil, err
	}
	d.byName = make(map[string]*subsystem, len(d.subsystems))
	for _, s := range d.subsystems {
		d.byName[s.name] = s
	}
	data, name, err = d.read(sal, salLabel, "SALGenerics.xml")
	if err != nil {
		return nil, err
	}
	if d.generics, err = parseGenerics(name, data); err != nil {
		return nil, err
	}
	return d, nil
}

func (d *Definitions) read(fsys fs.FS, label, p string) ([]byte, string, error) {
	name := p
	if label != "" {
		name = path.Join(filepath.ToSlash(label), p)
	}
	data, err := fs.ReadFile(fsys, p)
	if err != nil {
		return nil, name, &ParseError{File: name, Msg: "cannot read: " + err.Error(), Err: err}
	}
	return data, name, nil
}

// Names returns the component names in SALSubsystems.xml order.
func (d *Definitions) Names() []string {
	out := make([]string, len(d.subsystems))
	for i, s := range d.subsystems {
		out[i] = s.name
	}
	return out
}

// Has reports whether the named component is listed.
func (d *Definitions) Has(name string) bool { return d.byName[name] != nil }

// Component returns the named component, parsing its files on first use.
func (d *Definitions) Component(name string) (*Component, error) {
	if d.byName[name] == nil {
		return nil, d.unknown(name)
	}
	d.mu.Lock()
	e := d.comps[name]
	if e == nil {
		e = &compEntry{}
		d.comps[name] = e
	}
	d.mu.Unlock()
	e.once.Do(func() { e.c, e.err = d.build(d.byName[name]) })
	return e.c, e.err
}

// All returns every component in SALSubsystems.xml order, or the first error.
func (d *Definitions) All() ([]*Component, error) {
	out := make([]*Component, 0, len(d.subsystems))
	for _, s := range d.subsystems {
		c, err := d.Component(s.name)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (d *Definitions) unknown(name string) error {
	var close []string
	ln := strings.ToLower(name)
	for _, s := range d.subsystems {
		l := strings.ToLower(s.name)
		if strings.Contains(l, ln) || strings.Contains(ln, l) || editDistance(l, ln) <= 2 {
			close = append(close, s.name)
		}
	}
	if len(close) > 0 {
		return fmt.Errorf("xml: %w %q (did you mean %s?)", ErrUnknownComponent, name, strings.Join(close, ", "))
	}
	return fmt.Errorf("xml: %w %q (%d components are defined in %s)", ErrUnknownComponent, name, len(d.subsystems), d.Dir)
}

// Closest returns the names among cands closest to name (for usage errors).
func Closest(name string, cands []string) []string {
	var out []string
	ln := strings.ToLower(name)
	for _, c := range cands {
		l := strings.ToLower(c)
		if strings.Contains(l, ln) || strings.Contains(ln, l) || editDistance(l, ln) <= 2 {
			out = append(out, c)
		}
	}
	return out
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

var kindFiles = []struct {
	kind   Kind
	suffix string
}{{Command, "Commands"}, {Event, "Events"}, {Telemetry, "Telemetry"}}

func (d *Definitions) build(s *subsystem) (*Component, error) {
	c := &Component{
		Name:                s.name,
		Description:         s.description,
		IndexEnumeration:    s.indexEnum,
		Indexed:             s.indexEnum != "no",
		AddedGenerics:       s.added,
		GenericEnumerations: d.generics.enums,
	}
	subsFile := path.Join(filepath.ToSlash(d.salLabel), "SALSubsystems.xml")
	names, err := indexNames(subsFile, s.line, s.name, s.indexEnum)
	if err != nil {
		return nil, err
	}
	c.IndexNames = names

	addDef := func(td *topicDef) error {
		t := c.makeTopic(td)
		if err := c.add(t); err != nil {
			return invalidf(td.file, td.line, "component %s: %v", c.Name, err)
		}
		return nil
	}
	for _, entry := range append([]string{"mandatory"}, s.added...) {
		if strings.Contains(entry, "_") {
			td := d.generics.byName[entry]
			if td == nil {
				return nil, invalidf(subsFile, s.line, "component %s: unknown generic topic %q in AddedGenerics", s.name, entry)
			}
			if err := addDef(td); err != nil {
				return nil, err
			}
			continue
		}
		tds, ok := d.generics.categories[entry]
		if !ok {
			return nil, invalidf(subsFile, s.line, "component %s: unknown generic category %q in AddedGenerics", s.name, entry)
		}
		for _, td := range tds {
			if err := addDef(td); err != nil {
				return nil, err
			}
		}
	}
	for _, kf := range kindFiles {
		p := s.name + "/" + s.name + "_" + kf.suffix + ".xml"
		data, err := fs.ReadFile(d.sal, p)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		file := path.Join(filepath.ToSlash(d.salLabel), p)
		if err != nil {
			return nil, &ParseError{File: file, Msg: "cannot read: " + err.Error(), Err: err}
		}
		tds, enums, err := parseComponentFile(file, data, s.name, kf.kind)
		if err != nil {
			return nil, err
		}
		c.Enumerations = append(c.Enumerations, enums...)
		for _, td := range tds {
			if err := addDef(td); err != nil {
				return nil, err
			}
		}
	}
	if err := c.add(c.ackTopic()); err != nil {
		return nil, err
	}
	if err := d.addAvsc(c); err != nil {
		return nil, err
	}
	for _, t := range c.Topics {
		t.index()
	}
	return c, nil
}

func (d *Definitions) addAvsc(c *Component) error {
	if d.avsc == nil {
		return nil
	}
	ents, err := fs.ReadDir(d.avsc, c.Name)
	if err != nil {
		return nil // no .avsc topics for this component
	}
	var files []string
	for _, e := range ents {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".avsc") {
			files = append(files, e.Name())
		}
	}
	sort.Strings(files)
	for _, fn := range files {
		p := c.Name + "/" + fn
		file := path.Join(filepath.ToSlash(d.avLabel), p)
		data, err := fs.ReadFile(d.avsc, p)
		if err != nil {
			return &ParseError{File: file, Msg: "cannot read: " + err.Error(), Err: err}
		}
		t, err := parseAvsc(file, data, c, strings.TrimSuffix(fn, ".avsc"))
		if err != nil {
			return err
		}
		// As the reference keys topics by attribute name, an .avsc topic
		// replaces an XML topic of the same name in place.
		if old := c.byName[t.SALName]; old != nil {
			if old.Kind != Telemetry {
				return invalidf(file, 1, "component %s: .avsc topic %s clashes with %s topic", c.Name, t.SALName, old.Kind)
			}
			for i, ot := range c.Topics {
				if ot == old {
					c.Topics[i] = t
				}
			}
			c.byName[t.SALName] = t
			continue
		}
		if err := c.add(t); err != nil {
			return invalidf(file, 1, "component %s: %v", c.Name, err)
		}
	}
	return nil
}

// makeTopic binds a parsed topic to the component, prepending the private fields.
func (c *Component) makeTopic(td *topicDef) *Topic {
	t := &Topic{
		Component:   c.Name,
		SALName:     td.salName,
		Kind:        td.kind,
		Description: td.description,
		Indexed:     c.Indexed,
		Generic:     td.generic,
		Namespace:   "lsst.sal." + c.Name,
		File:        td.file,
		Line:        td.line,
	}
	t.Fields = append(PrivateFields(c.Indexed), cloneFields(td.fields)...)
	return t
}

func cloneFields(in []*Field) []*Field {
	out := make([]*Field, len(in))
	for i, f := range in {
		cp := *f
		out[i] = &cp
	}
	return out
}

func (c *Component) ackTopic() *Topic {
	t := &Topic{
		Component:   c.Name,
		SALName:     "ackcmd",
		Kind:        Ack,
		Description: "Command acknowledgement",
		Indexed:     c.Indexed,
		Namespace:   "lsst.sal." + c.Name,
	}
	t.Fields = append(PrivateFields(c.Indexed), ackFields()...)
	return t
}

// PrivateFields returns new copies of the fields a SAL topic's schema
// starts with, in order: salIndex when indexed, then the eight private_
// fields (private_sndStamp ... private_origin). A topic read from an .avsc
// file may hold them elsewhere.
func PrivateFields(indexed bool) []*Field {
	var out []*Field
	if indexed {
		out = append(out, &Field{Name: "salIndex", Type: Long, Count: 1, Units: "unitless", Description: "SAL index (only present for indexed SAL components)", Private: true})
	}
	out = append(out,
		&Field{Name: "private_sndStamp", Type: Double, Count: 1, Units: "second", Description: "Time of instance publication", Private: true},
		&Field{Name: "private_rcvStamp", Type: Double, Count: 1, Units: "second", Description: "Time of instance reception", Private: true},
		&Field{Name: "private_efdStamp", Type: Double, Count: 1, Units: "second", Description: "UTC time for EFD timestamp. An integer (the number of leap seconds) different from private_sndStamp.", Private: true},
		&Field{Name: "private_kafkaStamp", Type: Double, Count: 1, Units: "second", Description: "TAI time at which the Kafka message was created.", Private: true},
		&Field{Name: "private_seqNum", Type: Long, Count: 1, Units: "unitless", Description: "Sequence number", Private: true},
		&Field{Name: "private_revCode", Type: String, Count: 1, Units: "unitless", Description: "Revision hashcode", Private: true},
		&Field{Name: "private_identity", Type: String, Count: 1, Units: "unitless", Description: "Identity of publisher: SAL component name for a CSC or user@host for a user", Private: true},
		&Field{Name: "private_origin", Type: Long, Count: 1, Units: "unitless", Description: "Process ID of publisher", Private: true},
	)
	return out
}

func ackFields() []*Field {
	return []*Field{
		{Name: "ack", Type: Long, Count: 1, Units: "unitless", Description: "Acknowledgement code"},
		{Name: "error", Type: Long, Count: 1, Units: "unitless", Description: "An error code; only relevant if ack=FAILED"},
		{Name: "result", Type: String, Count: 1, Units: "unitless", Description: "Message"},
		{Name: "identity", Type: String, Count: 1, Units: "unitless", Description: "private_identity field of the command being acknowledged"},
		{Name: "origin", Type: Long, Count: 1, Units: "unitless", Description: "private_origin field of the command being acknowledged"},
		{Name: "cmdtype", Type: Long, Count: 1, Units: "unitless", Description: "Index of command in alphabetical list of commands, with 0 being the first"},
		{Name: "timeout", Type: Double, Count: 1, Units: "second", Description: "Estimated remaining duration of command; only relevant if ack=INPROGRESS"},
	}
}
