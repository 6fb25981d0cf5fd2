package xml

import (
	"bufio"
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// EnvVersion is the environment variable that sets the version the
// definitions read by Open and OpenFS report, whatever their files say.
const EnvVersion = "TS_XML_VERSION"

// UnknownVersion is what Version returns when nothing tells the version:
// what ts_xml's own __version__ holds when its version.py is missing.
const UnknownVersion = "?"

// EmbeddedVersion is the version of the embedded Example definitions:
// they are the SDK's own, not a ts_xml release.
const EmbeddedVersion = "salgo-example"

// Option configures Open, OpenFS, Embedded and FromEnv.
type Option func(*options)

type options struct {
	version string
}

// WithVersion sets the version the definitions report, overriding
// TS_XML_VERSION and every file. An empty v changes nothing.
func WithVersion(v string) Option { return func(o *options) { o.version = v } }

func applyOptions(opts []Option) options {
	var o options
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// gitTimeout bounds each git command Version runs.
const gitTimeout = 10 * time.Second

// Version returns the release of ts_xml the definitions come from, such
// as "28.0.1": what ts_salobj publishes as softwareVersions.xmlVersion.
// The first of these sources that gives one wins:
//
//  1. WithVersion.
//  2. TS_XML_VERSION (Open and OpenFS only).
//  3. Embedded: EmbeddedVersion.
//  4. An installed or built ts_xml package, when the definitions are its
//     lsst/ts/xml/data/sal_interfaces: lsst/ts/xml/version.py (written by
//     setuptools_scm; ts_xml's own __version__ comes from it).
//  5. The same package installed: the Version in the METADATA of the
//     ts_xml .dist-info in the site-packages folder that holds lsst/.
//  6. A SOURCE.md in the sal_interfaces folder or the folder above it, with
//     a line "Version: v28.0.1" (the "v" is dropped).
//  7. A git checkout of ts_xml whose root holds sal_interfaces,
//     data/sal_interfaces or python/lsst/ts/xml/data/sal_interfaces:
//     `git describe --tags --dirty` with its leading "v" dropped, so
//     "28.0.1" on the release tag and, past it, the describe text such as
//     "28.0.1-1-ga724e1ac" or "28.0.1-dirty" (not the development version
//     setuptools_scm would derive). Another repository that merely holds
//     a copy of the definitions is not asked.
//
// Otherwise it returns UnknownVersion. The files are read, and git run,
// once, on the first call.
func (d *Definitions) Version() string {
	d.verOnce.Do(func() {
		switch {
		case d.ver != "":
		case d.embedded:
			d.ver = EmbeddedVersion
		case d.absDir != "":
			d.ver = versionOf(d.absDir)
		}
		if d.ver == "" {
			d.ver = UnknownVersion
		}
	})
	return d.ver
}

// versionOf reads the version from the files around the sal_interfaces
// folder sal (an absolute path), or returns "".
func versionOf(sal string) string {
	data := filepath.Dir(sal)
	pkg := filepath.Dir(data) // lsst/ts/xml
	if filepath.Base(sal) == "sal_interfaces" && filepath.Base(data) == "data" && filepath.Base(pkg) == "xml" &&
		filepath.Base(filepath.Dir(pkg)) == "ts" && filepath.Base(filepath.Dir(filepath.Dir(pkg))) == "lsst" {
		if v := pyVersion(filepath.Join(pkg, "version.py")); v != "" {
			return v
		}
		if v := distInfoVersion(filepath.Dir(filepath.Dir(filepath.Dir(pkg)))); v != "" {
			return v
		}
	}
	for _, dir := range []string{sal, data} {
		if v := sourceMDVersion(filepath.Join(dir, "SOURCE.md")); v != "" {
			return v
		}
	}
	return gitVersion(sal)
}

var pyVersionRE = regexp.MustCompile(`(?m)^__version__\s*=\s*["']([^"'\s]+)["']`)

// pyVersion reads `__version__ = "X"` from a version.py.
func pyVersion(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	if m := pyVersionRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// distInfoVersion returns the Version of the ts_xml distribution
// installed in the site-packages folder site, from its
// <name>-<version>.dist-info/METADATA.
func distInfoVersion(site string) string {
	infos, err := filepath.Glob(filepath.Join(site, "*.dist-info"))
	if err != nil {
		return ""
	}
	sort.Strings(infos)
	for _, info := range infos {
		name, ver := metadata(filepath.Join(info, "METADATA"))
		if (name == "ts-xml" || name == "lsst-ts-xml") && ver != "" {
			return ver
		}
	}
	return ""
}

var nameSepRE = regexp.MustCompile(`[-_.]+`)

// metadata returns the normalized Name (PEP 503: lower case, runs of -_.
// as one -) and the Version of a core metadata file.
func metadata(file string) (name, version string) {
	b, err := os.ReadFile(file)
	if err != nil {
		return "", ""
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := sc.Text()
		if strings.TrimSpace(line) == "" {
			break // end of the headers
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		switch strings.ToLower(k) {
		case "name":
			name = nameSepRE.ReplaceAllString(strings.ToLower(strings.TrimSpace(v)), "-")
		case "version":
			version = strings.TrimSpace(v)
		}
	}
	return name, version
}

var sourceMDRE = regexp.MustCompile(`(?m)^\s*(?:[-*]\s+)?Version:\s*v?(\d[0-9A-Za-z.+-]*[0-9A-Za-z])`)

// sourceMDVersion reads a "Version: v28.0.1" line from a SOURCE.md.
func sourceMDVersion(file string) string {
	b, err := os.ReadFile(file)
	if err != nil {
		return ""
	}
	if m := sourceMDRE.FindSubmatch(b); m != nil {
		return string(m[1])
	}
	return ""
}

// gitVersion describes the git checkout of ts_xml holding sal, or returns
// "" when git is missing, sal is in no checkout, or the checkout's root
// is not where a ts_xml checkout keeps its sal_interfaces (so the tags of
// another repository that happens to hold a copy are never taken).
func gitVersion(sal string) string {
	if _, err := exec.LookPath("git"); err != nil {
		return ""
	}
	top, ok := git(sal, "rev-parse", "--show-toplevel")
	if !ok {
		return ""
	}
	top = filepath.Clean(top)
	salReal := sal
	if r, err := filepath.EvalSymlinks(sal); err == nil {
		salReal = r
	}
	if rt, err := filepath.EvalSymlinks(top); err == nil {
		top = rt
	}
	matched := false
	for _, rel := range []string{"sal_interfaces", filepath.Join("data", "sal_interfaces"), filepath.Join("python", "lsst", "ts", "xml", "data", "sal_interfaces")} {
		if filepath.Join(top, rel) == salReal {
			matched = true
		}
	}
	if !matched {
		return ""
	}
	desc, ok := git(top, "describe", "--tags", "--dirty")
	if !ok {
		return ""
	}
	if len(desc) > 1 && desc[0] == 'v' && desc[1] >= '0' && desc[1] <= '9' {
		desc = desc[1:]
	}
	return desc
}

// git runs a read-only git command in dir and returns its trimmed output.
// The repository is found from dir alone (GIT_DIR and the like of the
// environment are dropped), and GIT_OPTIONAL_LOCKS=0 keeps
// `describe --dirty` from rewriting the checkout's index.
func git(dir string, args ...string) (string, bool) {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...)
	env := []string{"GIT_OPTIONAL_LOCKS=0"}
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_DIR=") && !strings.HasPrefix(kv, "GIT_WORK_TREE=") && !strings.HasPrefix(kv, "GIT_INDEX_FILE=") && !strings.HasPrefix(kv, "GIT_CEILING_DIRECTORIES=") {
			env = append(env, kv)
		}
	}
	cmd.Env = env
	out, err := cmd.Output()
	if err != nil {
		return "", false
	}
	s := strings.TrimSpace(string(out))
	return s, s != ""
}
