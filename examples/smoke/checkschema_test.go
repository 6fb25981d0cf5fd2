package smoke

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestSalctlCheckSchema: salctl check-schema finds the registered schema
// identical, then reports a field whose type changed in edited definitions
// as incompatible and exits 1.
func TestSalctlCheckSchema(t *testing.T) {
	t.Parallel()
	lk := start(t, baseEnv(), "localkafka")
	m := lk.waitFor("stdout", exportLine)
	shared := busEnv(m)
	mustRun(t, shared, "salctl", "pub", "Example", "scalars", `{"int0": 1}`)

	r := mustRun(t, shared, "salctl", "check-schema", "Example")
	if !regexp.MustCompile(`check-schema: \d+ topics: [1-9]\d* identical, 0 compatible, 0 backward-only, 0 forward-only, 0 INCOMPATIBLE, \d+ new, 0 ORPHAN`).MatchString(r.stderr) {
		t.Errorf("unchanged definitions:\n%s", r)
	}

	// double0 of the scalars telemetry becomes a string.
	dir := smokeXML(t)
	p := filepath.Join(dir, "Example", "Example_Telemetry.xml")
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(<EFDB_Name>double0</EFDB_Name>\s*<Description>[^<]*</Description>\s*<IDL_Type>)double(</IDL_Type>)`)
	loc := re.FindSubmatchIndex(b)
	if loc == nil {
		t.Fatal("no double0 item in the telemetry file")
	}
	edited := string(b[:loc[3]]) + "string" + string(b[loc[4]:])
	if err := os.WriteFile(p, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	r = run(t, shared, "salctl", "check-schema", "-xml", dir, "Example")
	if r.code != 1 || !strings.Contains(r.stdout, "INCOMPATIBLE") || !strings.Contains(r.stdout, "Example.scalars") || !strings.Contains(r.stdout, "double0") {
		t.Errorf("type change not reported:\n%s", r)
	}
}
