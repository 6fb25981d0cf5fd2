package sal_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// envNameRE is the shape of the SDK's own variables' names.
var envNameRE = regexp.MustCompile(`^(LSST|TS|SALGO)_[A-Z0-9_]+$`)

// notSDK are the folders of the module whose environment is not the
// SDK's: example programs, benchmarks and test-only support.
var notSDK = []string{"examples", "benchmarks", "scripts", "internal/wirefixture", "internal/interop",
	"internal/faults", "internal/hostile", "internal/testbus", "internal/archtest", "internal/s3child",
	"internal/benchkit"}

// notConfig are variables the SDK reads only to pass them on.
var notConfig = []string{"PATH"}

// sdkEnvVars returns the environment variables the SDK's non-test Go
// files read, each with a file that names it: every string literal shaped
// as one of its variables (LSST_*, TS_*, SALGO_*; a constant or an
// argument), and every literal given to os.Getenv or os.LookupEnv. The
// configuration packages' variable, built at run time from the package's
// name (cscconfig.EnvVar), is TS_CONFIG_<PKG>_DIR.
func sdkEnvVars(t *testing.T) map[string]string {
	t.Helper()
	vars := map[string]string{"TS_CONFIG_<PKG>_DIR": "internal/cscconfig/cscconfig.go"}
	err := filepath.WalkDir("..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel("..", path)
		rel = filepath.ToSlash(rel)
		if d.IsDir() {
			if rel != "." && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata" || slices.Contains(notSDK, rel)) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.BasicLit:
				if s, err := strconv.Unquote(n.Value); n.Kind == token.STRING && err == nil && envNameRE.MatchString(s) {
					vars[s] = rel
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok || len(n.Args) != 1 || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") {
					return true
				}
				if x, ok := sel.X.(*ast.Ident); !ok || x.Name != "os" {
					return true
				}
				if lit, ok := n.Args[0].(*ast.BasicLit); ok && lit.Kind == token.STRING {
					if s, err := strconv.Unquote(lit.Value); err == nil && !slices.Contains(notConfig, s) {
						vars[s] = rel
					}
				}
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return vars
}

// readmeEnvTable returns the variables named in the first column of the
// README's Configuration table, each written in full in backquotes.
func readmeEnvTable(t *testing.T) map[string]bool {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Configuration\n")
	if !ok {
		t.Fatal(`README.md has no "## Configuration" section`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	names := map[string]bool{}
	for _, line := range strings.Split(sec, "\n") {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			continue
		}
		for _, m := range regexp.MustCompile("`([^`]+)`").FindAllStringSubmatch(cells[1], -1) {
			names[m[1]] = true
		}
	}
	return names
}

// TestReadme_EnvTable: every environment variable the SDK reads is in the
// README's Configuration table.
func TestReadme_EnvTable(t *testing.T) {
	vars, table := sdkEnvVars(t), readmeEnvTable(t)
	if !table["LSST_KAFKA_BROKER_ADDR"] {
		t.Fatalf("README.md's Configuration table not found or without LSST_KAFKA_BROKER_ADDR: %v", table)
	}
	var missing []string
	for v, file := range vars {
		if !table[v] {
			missing = append(missing, v+" (read in "+file+")")
		}
	}
	slices.Sort(missing)
	for _, m := range missing {
		t.Errorf("README.md's Configuration table does not list %s", m)
	}
}
