package cscconfig

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/big"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/lsst-sal/salgo/internal/jsonschema"
	"github.com/lsst-sal/salgo/internal/pyrepr"
	"github.com/lsst-sal/salgo/internal/yamlx"
)

// Error is a configuration failure with salobj's text.
type Error struct {
	// Kind is the Python exception salobj raises: "ExpectedError",
	// "RuntimeError", "ValueError", ...
	Kind string
	// Msg is its text.
	Msg string
}

func (e *Error) Error() string { return e.Msg }

// Expected reports whether salobj raises this failure as an ExpectedError.
func (e *Error) Expected() bool { return e.Kind == "ExpectedError" }

// IsExpected reports whether err is, or wraps, an *Error salobj raises as
// an ExpectedError.
func IsExpected(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Expected()
}

func expected(format string, args ...any) *Error {
	return &Error{Kind: "ExpectedError", Msg: fmt.Sprintf(format, args...)}
}

// Options are ConfigurableCsc's constructor inputs that concern
// configuration.
type Options struct {
	// Component is the SAL component name, e.g. "Test".
	Component string
	// Schema is the JSON schema, as YAML text (CONFIG_SCHEMA).
	Schema []byte
	// ConfigPkg is the configuration package, e.g. "ts_config_ocs"; the
	// folder is then $TS_CONFIG_OCS_DIR/<Component>/<schema version>.
	ConfigPkg string
	// ConfigDir, if set, is the folder to use instead (--configdir).
	ConfigDir string
	// OtherInfo is configurationApplied.otherInfo: the detailed
	// configuration events, comma-separated, without "logevent_".
	OtherInfo string
	// LookupEnv reads the environment; nil means os.LookupEnv.
	LookupEnv func(string) (string, bool)
}

// Configurator is one configurable CSC's configuration state. Its methods
// are safe for concurrent use.
type Configurator struct {
	schema        *jsonschema.Schema
	schemaVersion string
	site          string
	dir           string // absolute, symlinks resolved
	url           string
	otherInfo     string

	mu          sync.Mutex
	lastVersion string
}

// New checks the inputs in salobj's order: LSST_SITE, the schema and its
// title, then the folder.
func New(opts Options) (*Configurator, error) {
	lookup := opts.LookupEnv
	if lookup == nil {
		lookup = os.LookupEnv
	}
	site, ok := lookup("LSST_SITE")
	if !ok {
		return nil, &Error{Kind: "RuntimeError", Msg: "Environment variable $LSST_SITE not defined."}
	}
	c := &Configurator{site: site, otherInfo: opts.OtherInfo}
	if err := c.readSchema(opts.Schema); err != nil {
		return nil, err
	}
	dir := opts.ConfigDir
	if dir == "" {
		var err error
		if dir, err = c.defaultDir(opts.ConfigPkg, opts.Component, lookup); err != nil {
			return nil, err
		}
	} else if !isDir(dir) {
		return nil, &Error{Kind: "ValueError", Msg: fmt.Sprintf("config_dir=%s does not exist or is not a directory", dir)}
	}
	c.dir = resolve(dir)
	c.url = fileURI(c.dir)
	return c, nil
}

// readSchema compiles the schema and takes the version from its title:
// the text after the last space, which must start with "v".
func (c *Configurator) readSchema(text []byte) error {
	doc, err := yamlx.UnmarshalOrdered("config schema", text)
	if err != nil {
		return &Error{Kind: "ValueError", Msg: fmt.Sprintf("Schema invalid: %v", err)}
	}
	invalid := func(inner string) error {
		return &Error{Kind: "ValueError", Msg: fmt.Sprintf("Schema %s invalid: %s", pyrepr.Str(doc), inner)}
	}
	s, err := jsonschema.CompileValue("config schema", doc)
	if err != nil {
		return invalid(fmt.Sprintf("SchemaError(%s)", pyrepr.String(err.Error())))
	}
	m, _ := doc.(*yamlx.Map)
	var title any
	var has bool
	if m != nil {
		title, has = m.Get("title")
	}
	if !has {
		return invalid("KeyError('title')")
	}
	ts, isStr := title.(string)
	if !isStr {
		return invalid(fmt.Sprintf("AttributeError(%s)", pyrepr.String(fmt.Sprintf("'%s' object has no attribute 'rsplit'", pyTypeName(title)))))
	}
	i := strings.LastIndex(ts, " ")
	if i < 0 || !strings.HasPrefix(ts[i+1:], "v") {
		return invalid(fmt.Sprintf("ValueError(%s)", pyrepr.String(fmt.Sprintf("Schema title %s must end with ' v<version>'", pyrepr.String(ts)))))
	}
	c.schema = s
	c.schemaVersion = ts[i+1:]
	return nil
}

func pyTypeName(v any) string {
	switch v.(type) {
	case nil:
		return "NoneType"
	case bool:
		return "bool"
	case int64, *big.Int:
		return "int"
	case float64:
		return "float"
	case []any:
		return "list"
	case *yamlx.Map:
		return "dict"
	case yamlx.Date:
		return "datetime.date"
	case yamlx.Timestamp:
		return "datetime.datetime"
	case []byte:
		return "bytes"
	}
	return fmt.Sprintf("%T", v)
}

// EnvVar is the variable that names a configuration package's folder:
// the package name in upper case with "_DIR" appended.
func EnvVar(configPkg string) string { return strings.ToUpper(configPkg) + "_DIR" }

func (c *Configurator) defaultDir(pkg, component string, lookup func(string) (string, bool)) (string, error) {
	env := EnvVar(pkg)
	val, ok := lookup(env)
	if !ok {
		return "", &Error{Kind: "RuntimeError", Msg: fmt.Sprintf("Environment variable %s not defined", env)}
	}
	pkgDir := resolve(val)
	if !isDir(pkgDir) {
		return "", &Error{Kind: "RuntimeError", Msg: fmt.Sprintf("PosixPath(%s) = $%s does not exists or is not a directory", pyrepr.String(pkgDir), env)}
	}
	dir := pyJoin(pyJoin(pkgDir, component), c.schemaVersion)
	if !isDir(dir) {
		return "", &Error{Kind: "RuntimeError", Msg: fmt.Sprintf("%s = $%s/SAL_component_name/schema_version does not exist or is not a directory", dir, env)}
	}
	return dir, nil
}

// SchemaVersion is the version from the schema title, e.g. "v2".
func (c *Configurator) SchemaVersion() string { return c.schemaVersion }

// Dir is the configuration folder, absolute with symlinks resolved.
func (c *Configurator) Dir() string { return c.dir }

// URL is the folder as a file URI (Python's Path.as_uri).
func (c *Configurator) URL() string { return c.url }

// Site is the LSST_SITE value read by New (possibly "").
func (c *Configurator) Site() string { return c.site }

// Schema is the compiled configuration schema.
func (c *Configurator) Schema() *jsonschema.Schema { return c.schema }

// Available is the content of configurationsAvailable.
type Available struct {
	Overrides     string
	Version       string
	URL           string
	SchemaVersion string
	// GitWarning, when not empty, is the warning salobj logs because git
	// could not describe the folder (Version is then "").
	GitWarning string
}

// Available reads the folder as salobj's read_config_dir does: the
// overrides (top-level *.yaml not starting with "_", hidden entries and
// folders included, sorted by code point) and the git version. The version
// is kept for Applied.
func (c *Configurator) Available(ctx context.Context) (Available, error) {
	entries, err := os.ReadDir(c.dir)
	if err != nil {
		return Available{}, &Error{Kind: "OSError", Msg: err.Error()}
	}
	var names []string
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".yaml") && !strings.HasPrefix(n, "_") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	version, warn := c.gitVersion(ctx)
	c.mu.Lock()
	c.lastVersion = version
	c.mu.Unlock()
	return Available{
		Overrides:     strings.Join(names, ","),
		Version:       version,
		URL:           c.url,
		SchemaVersion: c.schemaVersion,
		GitWarning:    warn,
	}, nil
}

// gitVersion runs git describe --all --long --always --dirty in the folder.
// A failure, including git not being installed, gives "" and the warning.
func (c *Configurator) gitVersion(ctx context.Context) (string, string) {
	cmd := exec.CommandContext(ctx, "git", "describe", "--all", "--long", "--always", "--dirty")
	cmd.Dir = c.dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Sprintf("Could not get git info for config_dir=%s", c.dir)
	}
	return strings.TrimSpace(strings.ToValidUTF8(string(out), "\uFFFD")), ""
}

// Plan is what a configurationOverride asks to read.
type Plan struct {
	// Files are the names to read, in order: _init.yaml, the site file if
	// it exists in the working tree, and the override file if one is named.
	Files []string
	// GitRef is the git reference after the first ":", or "".
	GitRef string
	// LogMessage is salobj's log D text naming what will be read.
	LogMessage string
}

// Plan parses a configurationOverride, "[file][:gitref]" split at the
// first ":". The file must be in the folder and the reference a plain git
// reference (see CheckOverrideName and CheckGitRef); salobj checks
// neither.
func (c *Configurator) Plan(override string) (Plan, error) {
	if !utf8.ValidString(override) {
		return Plan{}, expected("configurationOverride=%s is not valid UTF-8", pyrepr.String(strings.ToValidUTF8(override, "\uFFFD")))
	}
	file, ref, _ := strings.Cut(override, ":")
	files := []string{"_init.yaml"}
	site := "_" + c.site + ".yaml"
	if isFile(pyJoin(c.dir, site)) {
		files = append(files, site)
	}
	if file != "" {
		if strings.HasPrefix(file, "_") {
			return Plan{}, expected("configurationOverride filename=%s must not start with '_'", pyrepr.String(file))
		}
		if err := c.CheckOverrideName(file); err != nil {
			return Plan{}, err
		}
		files = append(files, file)
	}
	if ref != "" {
		if err := CheckGitRef(ref); err != nil {
			return Plan{}, err
		}
	}
	return Plan{
		Files:      files,
		GitRef:     ref,
		LogMessage: fmt.Sprintf("Reading configuration from config_dir%s, git_hash=%s, files=%s", c.dir, pyrepr.String(ref), pyrepr.Repr(files)),
	}, nil
}

// CheckOverrideName refuses a configurationOverride file name that leaves
// the configuration folder: an absolute path, a name whose ".." go above
// the folder, or a name that, once its symlinks are resolved, is outside
// it (a symlink to a file elsewhere, or in a folder linked from elsewhere).
// salobj reads any path; its start ack then quotes the file's content when
// it is not a configuration, to everyone on the bus. Symlinks that stay
// inside the folder are followed. The check and the read are separate
// steps: someone who can change the folder's symlinks in between is
// trusted anyway.
func (c *Configurator) CheckOverrideName(name string) error {
	outside := expected("configurationOverride filename=%s is outside config_dir=%s", pyrepr.String(name), c.dir)
	if filepath.IsAbs(name) {
		return outside
	}
	if rel := filepath.Clean(name); rel == ".." || strings.HasPrefix(rel, "../") {
		return outside
	}
	// The path as the system reads it: ".." after a symlink is the link
	// target's parent, which a lexical clean would miss. A path that does
	// not resolve (does not exist) is not read: Read says so.
	r, err := filepath.EvalSymlinks(c.dir + "/" + name)
	if err != nil {
		return nil
	}
	if !within(r, c.dir) {
		return outside
	}
	return nil
}

func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// CheckGitRef refuses a git reference that git could take as an option or
// that is not a plain reference: one that starts with "-", is not valid
// UTF-8, or contains a space or control character, one of : ? * [ \, or
// "..", after git check-ref-format's rules. The revision suffixes ~<n>,
// ^<n>, ^{type} and @{...} are accepted. salobj passes the text to git as
// it comes.
func CheckGitRef(ref string) error {
	var why string
	switch {
	case strings.HasPrefix(ref, "-"):
		why = "it starts with '-'"
	case !utf8.ValidString(ref):
		why = "it is not valid UTF-8"
	case strings.ContainsFunc(ref, func(r rune) bool { return r <= ' ' || r == 0x7f }):
		why = "it contains a space or a control character"
	case strings.ContainsAny(ref, ":?*[\\"):
		why = "it contains one of : ? * [ \\"
	case strings.Contains(ref, ".."):
		why = "it contains '..'"
	default:
		return nil
	}
	return expected("configurationOverride git reference %s is not valid: %s", pyrepr.String(strings.ToValidUTF8(ref, "\uFFFD")), why)
}

// Load is Plan then Read: the part of the start command between reading
// the folder and calling the CSC's configure hook.
func (c *Configurator) Load(ctx context.Context, override string) (Config, Plan, error) {
	p, err := c.Plan(override)
	if err != nil {
		return Config{}, p, err
	}
	cfg, err := c.Read(ctx, p.Files, p.GitRef)
	return cfg, p, err
}

// Config is a validated configuration.
type Config struct {
	// Values are the top-level keys (without "metadata") and their values.
	Values map[string]any
	// Files are the files read, in order (configurationApplied.configurations
	// is them joined with ","). Empty names given to Read are kept out.
	Files []string
	// GitRef is the git reference the files were read at, or "".
	GitRef string
}

// Configurations is the configurationApplied.configurations text.
func (c Config) Configurations() string { return strings.Join(c.Files, ",") }

// Read is salobj's read_config_files: each named file (empty names
// skipped) must exist in the working tree; its text is read from the file,
// or with gitRef from "git show <gitRef>:./<name>"; it is parsed as YAML
// 1.1; a null document is skipped and anything else is merged (mappings
// deeply, everything else replaced). Then the top-level "metadata" key is
// dropped and the result validated against the schema.
//
// The names are read as given: a name from the bus must go through Plan
// (CheckOverrideName) first. gitRef is checked (CheckGitRef) and given to
// git after --end-of-options.
func (c *Configurator) Read(ctx context.Context, files []string, gitRef string) (Config, error) {
	if gitRef != "" {
		if err := CheckGitRef(gitRef); err != nil {
			return Config{}, err
		}
	}
	merged := yamlx.NewMap(0)
	for _, name := range files {
		if name == "" {
			continue
		}
		path := pyJoin(c.dir, name)
		if !isFile(path) {
			return Config{}, expected("Config file '%s' does not exist", path)
		}
		var data []byte
		if gitRef != "" {
			cmd := exec.CommandContext(ctx, "git", "show", "--end-of-options", gitRef+":./"+name)
			cmd.Dir = c.dir
			out, err := cmd.CombinedOutput()
			var exitErr *exec.ExitError
			switch {
			case errors.As(err, &exitErr):
				return Config{}, expected("Could not read config file %s with git hash %s: %s", path, gitRef, pyrepr.Bytes(out))
			case err != nil:
				if errors.Is(err, exec.ErrNotFound) {
					return Config{}, &Error{Kind: "FileNotFoundError", Msg: "[Errno 2] No such file or directory: 'git'"}
				}
				return Config{}, &Error{Kind: "OSError", Msg: err.Error()}
			}
			data = out
		} else {
			b, err := os.ReadFile(path)
			if err != nil {
				return Config{}, &Error{Kind: "OSError", Msg: err.Error()}
			}
			if err := checkUTF8(b); err != nil {
				return Config{}, err
			}
			data = b
		}
		v, err := yamlx.UnmarshalOrdered(path, data)
		if err != nil {
			return Config{}, expected("Could not parse data in %s as a dict: %v", path, err)
		}
		if v == nil {
			continue
		}
		if err := Merge(merged, v, "config", name); err != nil {
			return Config{}, err
		}
	}
	if merged.Len() > 0 {
		merged.Delete("metadata")
	}
	if err := c.schema.Validate(merged); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return Config{}, expected("Configuration failed validation: %s", ve.PyRepr())
		}
		return Config{}, expected("Configuration failed validation: %v", err)
	}
	var names []string
	for _, f := range files {
		if f != "" {
			names = append(names, f)
		}
	}
	return Config{Values: yamlx.Plain(merged).(map[string]any), Files: names, GitRef: gitRef}, nil
}

// checkUTF8 is the UnicodeDecodeError Python's text read raises.
func checkUTF8(b []byte) error {
	if utf8.Valid(b) {
		return nil
	}
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			why := "invalid start byte"
			if b[i] >= 0xc2 && b[i] <= 0xf4 {
				why = "invalid continuation byte"
				if i+utf8.UTFMax > len(b) {
					why = "unexpected end of data"
				}
			}
			return &Error{Kind: "UnicodeDecodeError", Msg: fmt.Sprintf("'utf-8' codec can't decode byte 0x%02x in position %d: %s", b[i], i, why)}
		}
		i += n
	}
	return nil
}

// Merge is salobj's hierarchical_update: override (from the file named
// overrideName) is merged into main (named mainName in errors), which must
// be a *yamlx.Map. Mappings merge key by key, recursively; anything else
// replaces the old value; a mapping cannot replace a non-mapping nor the
// reverse. The errors are plain ValueErrors in salobj.
func Merge(main, override any, mainName, overrideName string) error {
	return merge(main, override, mainName, overrideName, "")
}

func merge(main, override any, mainName, overrideName, prefix string) error {
	for _, a := range []struct {
		v    any
		name string
	}{{main, mainName}, {override, overrideName}} {
		if _, ok := a.v.(*yamlx.Map); !ok {
			return &Error{Kind: "ValueError", Msg: fmt.Sprintf("%s%s=%s is not a dict", a.name, prefix, pyrepr.Repr(a.v))}
		}
	}
	m, o := main.(*yamlx.Map), override.(*yamlx.Map)
	for _, k := range o.Keys() {
		ov, _ := o.Get(k)
		mv, in := m.Get(k)
		if !in {
			m.Set(k, ov)
			continue
		}
		if _, isMap := ov.(*yamlx.Map); isMap {
			if err := merge(mv, ov, mainName, overrideName, prefix+"["+k+"]"); err != nil {
				return err
			}
			continue
		}
		if _, isMap := mv.(*yamlx.Map); isMap {
			return &Error{Kind: "ValueError", Msg: fmt.Sprintf("%s%s[%s]=%s is a dict, but %s%s[%s] = %s is not",
				mainName, prefix, k, pyrepr.Str(mv), overrideName, prefix, k, pyrepr.Repr(ov))}
		}
		m.Set(k, ov)
	}
	return nil
}

// Applied is the content of configurationApplied.
type Applied struct {
	Configurations string
	Version        string
	URL            string
	SchemaVersion  string
	OtherInfo      string
}

// Applied gives the configurationApplied fields for a configuration that
// the CSC's configure hook accepted: Version is that of the last folder
// read (the working tree, not the git reference the files came from).
func (c *Configurator) Applied(cfg Config) Applied {
	c.mu.Lock()
	v := c.lastVersion
	c.mu.Unlock()
	return Applied{
		Configurations: cfg.Configurations(),
		Version:        v,
		URL:            c.url,
		SchemaVersion:  c.schemaVersion,
		OtherInfo:      c.otherInfo,
	}
}

// Decode fills v (a pointer) from the configuration; see the package doc
// for the rules.
func (c Config) Decode(v any) error {
	if p, ok := v.(*map[string]any); ok {
		*p = deepCopy(c.Values).(map[string]any)
		return nil
	}
	j, err := jsonable(c.Values, "config")
	if err != nil {
		return err
	}
	data, err := json.Marshal(j)
	if err != nil {
		return fmt.Errorf("config: %w", err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("config: %w", err)
	}
	return nil
}

func jsonable(v any, where string) (any, error) {
	return jsoner{}.json(v, where)
}

// jsoner converts each shared map or list once (the configuration keeps
// YAML aliases as shared values); encoding/json then writes each use.
type jsoner map[any]any

func (c jsoner) json(v any, where string) (any, error) {
	id, shared := identity(v)
	if shared {
		if out, ok := c[id]; ok {
			return out, nil
		}
	}
	var out any
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		for k, e := range x {
			j, err := c.json(e, where+"["+k+"]")
			if err != nil {
				return nil, err
			}
			m[k] = j
		}
		out = m
	case []any:
		l := make([]any, len(x))
		for i, e := range x {
			j, err := c.json(e, fmt.Sprintf("%s[%d]", where, i))
			if err != nil {
				return nil, err
			}
			l[i] = j
		}
		out = l
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s=%s: JSON has no such number, so it cannot be decoded into a Go value", where, pyrepr.Float(x))
		}
		return x, nil
	case *big.Int:
		return json.Number(x.String()), nil
	case yamlx.Date:
		return x.String(), nil
	case yamlx.Timestamp:
		if x.Naive {
			return x.Time.Format("2006-01-02T15:04:05.999999999"), nil
		}
		return x.Time.Format(time.RFC3339Nano), nil
	default:
		return v, nil
	}
	if shared {
		c[id] = out
	}
	return out, nil
}

// listID identifies a non-empty slice: its first element and length.
type listID struct {
	first *any
	n     int
}

// identity is a key for a map or non-empty list that is the same for every
// use of one shared value.
func identity(v any) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		return reflect.ValueOf(x).Pointer(), x != nil
	case []any:
		if len(x) > 0 {
			return listID{&x[0], len(x)}, true
		}
	}
	return nil, false
}

// deepCopy copies maps, lists and byte slices; a shared value is copied
// once and stays shared in the copy.
func deepCopy(v any) any {
	return copier{}.copy(v)
}

type copier map[any]any

func (c copier) copy(v any) any {
	id, shared := identity(v)
	if shared {
		if out, ok := c[id]; ok {
			return out
		}
	}
	switch x := v.(type) {
	case map[string]any:
		m := make(map[string]any, len(x))
		if shared {
			c[id] = m
		}
		for k, e := range x {
			m[k] = c.copy(e)
		}
		return m
	case []any:
		out := make([]any, len(x))
		if shared {
			c[id] = out
		}
		for i, e := range x {
			out[i] = c.copy(e)
		}
		return out
	case []byte:
		return bytes.Clone(x)
	}
	return v
}
