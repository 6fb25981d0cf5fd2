package archtest

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/lsst-sal/salgo"

// allowed lists, per package of the module, the module packages it may
// import. Packages not listed (examples, benchmarks) may import any public
// package but no internal one other than what the table allows them.
var allowed = map[string][]string{
	"xml":                        {},
	"validate":                   {"xml"},
	"internal/codec":             {"xml", "topics/wire", "internal/avrobin", "internal/floatle"},
	"internal/floatle":           {},
	"internal/avrobin":           {},
	"topics/wire":                {"internal/avrobin", "internal/floatle"},
	"internal/registry":          {},
	"internal/kafka":             {},
	"internal/ratelog":           {},
	"internal/leaktest":          {},
	"internal/hostile":           {},
	"internal/cputime":           {},
	"internal/testbus":           {"topics", "xml", "validate", "internal/embedded", "internal/codec"},
	"internal/testcsc":           {"controller"},
	"internal/embedded":          {},
	"internal/archtest":          {},
	"internal/faults":            {},
	"internal/wirefixture":       {},
	"internal/pyrepr":            {},
	"internal/yamlx":             {"internal/pyrepr"},
	"internal/jsonschema":        {"internal/pyrepr", "internal/yamlx"},
	"internal/cscconfig":         {"internal/pyrepr", "internal/yamlx", "internal/jsonschema"},
	"internal/argparse":          {"internal/pyrepr"},
	"internal/plumb":             {},
	"internal/salgen":            {"xml"},
	"cmd/salgen":                 {"internal/salgen", "xml"},
	"internal/salgen/recordtest": {"internal/codec", "topics", "topics/wire", "validate", "xml"},
	"internal/benchkit":          {"internal/codec", "internal/salgen", "sal", "topics", "validate", "xml"},
	"internal/s3":                {},
	"internal/embedded/s3store":  {},
	"internal/s3child":           {"internal/embedded/s3store"},
	"lfa":                        {"topics", "xml", "internal/s3", "internal/embedded/s3store"},
	"topics":                     {"xml", "validate", "topics/wire", "internal/codec", "internal/registry", "internal/kafka", "internal/ratelog", "internal/yamlx", "internal/plumb"},
	"remote":                     {"topics", "internal/plumb", "xml", "validate", "internal/ratelog", "internal/pyrepr"},
	"controller":                 {"topics", "remote", "internal/plumb", "xml", "validate", "internal/ratelog", "internal/pyrepr", "internal/yamlx", "internal/jsonschema", "internal/cscconfig"},
	"sal":                        {"xml", "validate", "topics", "remote", "controller", "internal/embedded", "internal/kafka", "internal/registry", "internal/codec", "internal/argparse"},
	"sal/salprom":                {"sal", "topics"},
	"sal/saltest":                {"sal", "remote", "controller", "validate", "internal/cscconfig"},
}

// frontDoor lists the programs that show what an application writes:
// they import sal (and xml, validate, the roles' options in remote and
// controller) but not the runtime, topics. (cmd/salctl, a module of its
// own, works below the roles, with topics: TestSalctlImports.)
var frontDoor = []string{"examples/quickstart", "examples/remote", "examples/telemetrycsc", "examples/savefile"}

// thirdParty maps a third-party import prefix to the packages allowed to use it.
var thirdParty = map[string][]string{
	"github.com/hamba/avro":                  {"internal/codec"},
	"github.com/twmb/franz-go/pkg/kfake":     {"internal/embedded"},
	"github.com/twmb/franz-go/pkg/sr/srfake": {"internal/embedded"},
	"github.com/twmb/franz-go/pkg/sr":        {"internal/registry", "internal/embedded"},
	"github.com/twmb/franz-go/pkg/kgo":       {"internal/kafka", "internal/embedded", "internal/testbus", "benchmarks", "internal/benchkit"},
	"github.com/twmb/franz-go/pkg/kadm":      {"internal/kafka", "benchmarks", "internal/benchkit"},
	"github.com/twmb/franz-go/pkg/sasl":      {"internal/kafka"},
	"github.com/twmb/franz-go/pkg/kmsg":      {"internal/kafka", "internal/embedded"},
	"github.com/prometheus/client_golang":    {"sal/salprom"},
	"go.uber.org/goleak":                     {"internal/leaktest"},
	"github.com/aws/aws-sdk-go-v2":           {"internal/s3"},
	// benchmarks: the baseline of BenchmarkLFAUpload, the SDK's own
	// uploader on a client of its own.
	"github.com/aws/aws-sdk-go-v2/aws":                {"internal/s3", "benchmarks"},
	"github.com/aws/aws-sdk-go-v2/service/s3":         {"internal/s3", "benchmarks"},
	"github.com/aws/aws-sdk-go-v2/feature/s3/manager": {"benchmarks"},
	"github.com/aws/smithy-go":                        {"internal/s3"},
	"github.com/johannesboyne/gofakes3":               {"internal/embedded"},
	"github.com/twmb/franz-go/plugin/kprom":           {"sal/salprom"},
	"github.com/santhosh-tekuri/jsonschema":           {"internal/jsonschema"},
	"go.yaml.in/yaml":                                 {"internal/yamlx"},
	"gopkg.in/yaml.v3":                                {"internal/yamlx"},
	// readline: only cmd/salctl/internal/lineedit, in cmd/salctl's own
	// module (TestSalctlImports); no package of this module.
	"github.com/chzyer/readline": {},
}

type pkg struct {
	ImportPath   string
	Imports      []string
	TestImports  []string
	XTestImports []string
}

func TestImportGraph(t *testing.T) {
	out, err := exec.Command("go", "list", "-json", mod+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		rel := strings.TrimPrefix(strings.TrimPrefix(p.ImportPath, mod), "/")
		for _, imp := range p.Imports {
			checkImport(t, rel, imp)
		}
	}
	if n < 3 {
		t.Fatalf("go list found only %d packages", n)
	}
}

// TestSalctlImports checks the cmd/salctl module, a module of its own so
// that its line editor stays out of the SDK's dependencies: its packages
// and their tests import the SDK's public packages only, and
// github.com/chzyer/readline only from its line editor.
func TestSalctlImports(t *testing.T) {
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..", "cmd", "salctl")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list in %s: %v", cmd.Dir, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	n := 0
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		n++
		from := strings.TrimPrefix(p.ImportPath, mod+"/")
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if strings.HasPrefix(imp, mod+"/internal/") {
				t.Errorf("%s imports %s: salctl uses the SDK's public API only", from, imp)
			}
			if (imp == "github.com/chzyer/readline" || strings.HasPrefix(imp, "github.com/chzyer/readline/")) && from != "cmd/salctl/internal/lineedit" {
				t.Errorf("%s imports %s: only cmd/salctl/internal/lineedit may", from, imp)
			}
		}
	}
	if n < 3 {
		t.Fatalf("go list found only %d packages in %s", n, cmd.Dir)
	}
}

func checkImport(t *testing.T, from, imp string) {
	t.Helper()
	if strings.HasPrefix(imp, mod+"/") || imp == mod {
		to := strings.TrimPrefix(imp, mod+"/")
		if list, ok := allowed[from]; ok {
			if !contains(list, to) {
				t.Errorf("%s imports %s: not allowed by docs/architecture.md", from, to)
			}
			return
		}
		// The quickstart and the operators' tool show the front door:
		// they use package sal (and the roles' options), never the runtime.
		if contains(frontDoor, from) && to == "topics" {
			t.Errorf("%s imports %s: it uses the front door, package sal, and the roles' options only", from, to)
		}
		// examples and benchmarks: public packages only, except that the
		// benchmarks measure the codec directly.
		if strings.HasPrefix(from, "benchmarks") && (to == "internal/codec" || to == "internal/benchkit") {
			return
		}
		if strings.HasPrefix(to, "internal/") {
			t.Errorf("%s imports %s: examples and benchmarks use the public API only", from, to)
		}
		return
	}
	best := ""
	for prefix := range thirdParty {
		if (imp == prefix || strings.HasPrefix(imp, prefix+"/")) && len(prefix) > len(best) {
			best = prefix
		}
	}
	if best != "" && !containsPrefix(thirdParty[best], from) {
		t.Errorf("%s imports %s: only %v may", from, imp, thirdParty[best])
	}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func containsPrefix(list []string, s string) bool {
	for _, x := range list {
		if s == x || strings.HasPrefix(s, x+"/") {
			return true
		}
	}
	return false
}
