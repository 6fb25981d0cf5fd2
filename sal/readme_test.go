package sal_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/sal"
)

// Example_readme is the README's "Use" program (TestReadme_UseIsExample
// keeps the two the same).
func Example_readme() {
	ctx := context.Background()
	// The process-wide bus: with no LSST_KAFKA_BROKER_ADDR, an in-process
	// Kafka and schema registry. The SDK's own Example component needs no
	// ts_xml; with TS_XML_DIR set, every real component is there instead
	// (sal.NewRemote("MTM1M3", 0)).
	if _, err := sal.Default(ctx, sal.WithDefinitions(sal.EmbeddedDefinitions())); err != nil {
		log.Fatal(err)
	}
	defer sal.Close()

	// A CSC: the summary state machine, heartbeat and generic events come
	// with it; it handles its own commands.
	csc, err := sal.NewCSC("Example", 1, controller.WithAllowMissing())
	if err != nil {
		log.Fatal(err)
	}
	defer csc.Close()
	csc.HandleFunc("setScalars", func(ctx context.Context, cmd *sal.Command) error {
		_, err := csc.MustTelemetry("scalars").Write(ctx, map[string]any{"int0": cmd.Data["int0"]})
		return err
	})
	if err := csc.Start(ctx); err != nil {
		log.Fatal(err)
	}

	// A Remote: it starts once the event history is caught up.
	r, err := sal.NewRemote("Example", 1)
	if err != nil {
		log.Fatal(err)
	}
	defer r.Close()
	state := r.MustEvent("summaryState").Get() // the newest sample, history included
	fmt.Println("summaryState:", sal.State(state["summaryState"].(int32)).Name())

	for _, cmd := range []string{"start", "enable"} {
		if _, err := r.Command(ctx, cmd, nil); err != nil { // waits for the final ack
			log.Fatal(err)
		}
	}
	ack, err := r.Command(ctx, "setScalars", map[string]any{"int0": 42})
	fmt.Println("setScalars:", ack.Code, err)
	rec, err := r.MustTelemetry("scalars").Next(ctx)
	fmt.Println("telemetry int0:", rec["int0"], err)
	_, err = r.Command(ctx, "start", nil) // refused: a *sal.AckError
	fmt.Println(err)
	// Output:
	// summaryState: STANDBY
	// setScalars: CMD_COMPLETE <nil>
	// telemetry int0: 42 <nil>
	// remote: Example:1 command start failed: ack=CMD_FAILED error=1 result="Failed: start not allowed in state <State.ENABLED: 2>"
}

// readmeBlocks returns the ```go blocks of the repository's README.md,
// with the heading of the section each is in.
func readmeBlocks(t *testing.T) (blocks []readmeBlock) {
	t.Helper()
	for _, b := range readmeFences(t) {
		if b.lang == "go" {
			blocks = append(blocks, b)
		}
	}
	return blocks
}

// readmeFences returns every fenced block of README.md, with its
// language, the section it is in, its line and the HTML comment on the
// line before it, if any ("file: config/_init.yaml", "fragment").
func readmeFences(t *testing.T) (blocks []readmeBlock) {
	t.Helper()
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var cur *readmeBlock
	section, prev := "", ""
	for i, line := range strings.Split(string(b), "\n") {
		switch {
		case cur != nil && line == "```":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.text += line + "\n"
		case strings.HasPrefix(line, "```"):
			cur = &readmeBlock{section: section, lang: line[3:], line: i + 1}
			if m, ok := strings.CutPrefix(prev, "<!--"); ok {
				cur.mark = strings.TrimSpace(strings.TrimSuffix(m, "-->"))
			}
		case strings.HasPrefix(line, "#"):
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
		if strings.TrimSpace(line) != "" {
			prev = strings.TrimSpace(line)
		}
	}
	return blocks
}

type readmeBlock struct {
	section, text, lang string
	line                int
	mark                string // the HTML comment before the block
}

// body returns the lines between the line opening fn's body and the line
// that ends it (or "// Output:"), trimmed, without blank lines.
func body(src, open, end string) []string {
	i := strings.Index(src, open)
	if i < 0 {
		return nil
	}
	var out []string
	for _, l := range strings.Split(src[i+len(open):], "\n") {
		l = strings.TrimSpace(l)
		if l == end || l == "// Output:" {
			break
		}
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// TestReadme_UseIsExample: the README's "Use" program is Example_readme,
// whose output is checked.
func TestReadme_UseIsExample(t *testing.T) {
	var use string
	for _, b := range readmeBlocks(t) {
		if b.section == "Use" {
			use = b.text
			break
		}
	}
	if use == "" {
		t.Fatal(`README.md has no Go block under "## Use"`)
	}
	src, err := os.ReadFile("readme_test.go")
	if err != nil {
		t.Fatal(err)
	}
	got, want := body(use, "func main() {", "}"), body(string(src), "func Example_readme() {", "}")
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("README's Use program differs from Example_readme:\nREADME:\n%s\nExample_readme:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
