package main

import (
	"bufio"
	"flag"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

type chart struct {
	file, title, metric, match string
}

// The default charts; -chart adds more ("file:metric:regexp:title").
var defaults = []chart{
	{"codec-time.svg", "Codec: time per record (lower is better; SDK beside hamba/avro)", "ns/op", `^(ValidateEncode|HambaValidateEncode|Decode|HambaDecode)/`},
	{"write-throughput.svg", "Writes: records per second (SDK beside raw franz-go)", "msgs/s", `Write`},
	{"write-mbs.svg", "Writes by record size: MB/s (SDK beside raw franz-go)", "MB/s", `^Write`},
	{"read-throughput.svg", "Reads: records per second (SDK beside raw franz-go)", "msgs/s", `Read`},
	{"read-mbs.svg", "Reads (read + decode + check) by record size: MB/s (SDK beside raw franz-go)", "MB/s", `^Read`},
	{"x-raw.svg", "SDK rate / raw franz-go rate (1 = as fast as raw Kafka)", "x-raw", `.`},
	{"latency-p50.svg", "Latency p50 (µs)", "p50-µs", `.`},
	{"latency-p99.svg", "Latency p99 (µs)", "p99-µs", `.`},
	{"commands.svg", "Command round trips per second", "cmds/s", `Command`},
}

func main() {
	in := flag.String("in", "-", "benchmark output (- for stdin)")
	out := flag.String("out", ".", "folder for the SVG files")
	var extra []string
	flag.Func("chart", `extra chart "file.svg:metric:regexp:title"`, func(s string) error { extra = append(extra, s); return nil })
	flag.Parse()
	if err := run(*in, *out, extra); err != nil {
		fmt.Fprintln(os.Stderr, "charts:", err)
		os.Exit(1)
	}
}

var line = regexp.MustCompile(`^Benchmark(\S+?)(-\d+)?\s+\d+\s+(.*)$`)

func run(in, out string, extra []string) error {
	f := os.Stdin
	if in != "-" {
		var err error
		if f, err = os.Open(in); err != nil {
			return err
		}
		defer f.Close()
	}
	// values[benchmark][metric] = runs
	values := map[string]map[string][]float64{}
	var order []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := line.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		name := m[1]
		if values[name] == nil {
			values[name] = map[string][]float64{}
			order = append(order, name)
		}
		fields := strings.Fields(m[3])
		for i := 0; i+1 < len(fields); i += 2 {
			v, err := strconv.ParseFloat(fields[i], 64)
			if err != nil {
				continue
			}
			values[name][fields[i+1]] = append(values[name][fields[i+1]], v)
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	charts := slices.Clone(defaults)
	for _, e := range extra {
		p := strings.SplitN(e, ":", 4)
		if len(p) != 4 {
			return fmt.Errorf("bad -chart %q", e)
		}
		charts = append(charts, chart{p[0], p[3], p[1], p[2]})
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	for _, c := range charts {
		re, err := regexp.Compile(c.match)
		if err != nil {
			return err
		}
		var bars []bar
		for _, name := range order {
			if vs := values[name][c.metric]; len(vs) > 0 && re.MatchString(name) {
				bars = append(bars, bar{name, median(vs), len(vs)})
				// A baseline measured in the same benchmark ("raw-msgs/s").
				if rs := values[name]["raw-"+c.metric]; len(rs) > 0 {
					bars = append(bars, bar{name + " (raw)", median(rs), len(rs)})
				} else if c.metric == "MB/s" && len(values[name]["raw-msgs/s"]) > 0 && len(values[name]["msgs/s"]) > 0 {
					// Same records on both sides: raw MB/s = raw msgs/s x bytes per record.
					perRec := median(vs) / median(values[name]["msgs/s"])
					rs := values[name]["raw-msgs/s"]
					bars = append(bars, bar{name + " (raw)", median(rs) * perRec, len(rs)})
				}
			}
		}
		if len(bars) == 0 {
			continue
		}
		path := filepath.Join(out, c.file)
		if err := os.WriteFile(path, []byte(svg(c.title, c.metric, bars)), 0o644); err != nil {
			return err
		}
		fmt.Println(path)
	}
	var boxes []box
	for _, name := range order {
		bx := box{name: name}
		ok := true
		for i, m := range boxMetrics {
			vs := values[name][m]
			if len(vs) == 0 {
				ok = false
				break
			}
			bx.v[i] = median(vs)
			bx.runs = len(vs)
		}
		if ok {
			boxes = append(boxes, bx)
		}
	}
	if len(boxes) > 0 {
		path := filepath.Join(out, "latency-distribution.svg")
		if err := os.WriteFile(path, []byte(boxSVG(boxes)), 0o644); err != nil {
			return err
		}
		fmt.Println(path)
	}
	return nil
}

// boxMetrics are the latency percentiles a box plot needs, in order.
var boxMetrics = []string{"min-µs", "p10-µs", "p25-µs", "p50-µs", "p75-µs", "p90-µs", "p99-µs", "max-µs"}

type box struct {
	name string
	v    [8]float64 // boxMetrics, medians over the runs
	runs int
}

// boxSVG draws one row per benchmark on a log scale of µs: whiskers from
// p10 to p90, a box from p25 to p75, a bar at p50, a dot at p99 and a
// cross at the maximum (the minimum is the whisker's start mark).
func boxSVG(boxes []box) string {
	const left, width, rowH, top = 250, 560, 30, 50
	lo, hi := boxes[0].v[0], boxes[0].v[7]
	for _, b := range boxes {
		lo, hi = min(lo, b.v[0]), max(hi, b.v[7])
	}
	lo = math.Pow(10, math.Floor(math.Log10(max(lo, 1))))
	hi = math.Pow(10, math.Ceil(math.Log10(max(hi, lo*10))))
	x := func(v float64) float64 {
		return left + (math.Log10(max(v, lo))-math.Log10(lo))/(math.Log10(hi)-math.Log10(lo))*width
	}
	h := top + rowH*len(boxes) + 70
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", left+width+40, h)
	s.WriteString(`<rect width="100%" height="100%" fill="white"/><text x="10" y="22" font-size="14" font-weight="bold">End-to-end latency distribution (µs, log scale; write call to the application)</text>` + "\n")
	axisY := top + rowH*len(boxes) + 5
	for d := lo; d <= hi*1.001; d *= 10 {
		for _, m := range []float64{1, 2, 5} {
			v := d * m
			if v > hi*1.001 {
				break
			}
			stroke := "#eee"
			if m == 1 {
				stroke = "#ccc"
			}
			fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="%s"/>`, x(v), top-5, x(v), axisY, stroke)
			fmt.Fprintf(&s, `<text x="%.1f" y="%d" text-anchor="middle" fill="#555">%s</text>`+"\n", x(v), axisY+15, format(v))
		}
	}
	for i, b := range boxes {
		y := float64(top + i*rowH + rowH/2)
		color := "#3b7dd8"
		if strings.Contains(strings.ToLower(b.name), "raw") {
			color = "#9aa5b1"
		}
		fmt.Fprintf(&s, `<text x="%d" y="%.0f" text-anchor="end">%s</text>`, left-8, y+4, html.EscapeString(b.name))
		fmt.Fprintf(&s, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s"/>`, x(b.v[1]), y, x(b.v[5]), y, color)
		fmt.Fprintf(&s, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="%s"/>`, x(b.v[0]), y-4, x(b.v[0]), y+4, color)
		fmt.Fprintf(&s, `<rect x="%.1f" y="%.0f" width="%.1f" height="14" fill="%s" fill-opacity="0.5" stroke="%s"/>`, x(b.v[2]), y-7, max(1, x(b.v[4])-x(b.v[2])), color, color)
		fmt.Fprintf(&s, `<line x1="%.1f" y1="%.0f" x2="%.1f" y2="%.0f" stroke="black" stroke-width="2"/>`, x(b.v[3]), y-7, x(b.v[3]), y+7)
		fmt.Fprintf(&s, `<circle cx="%.1f" cy="%.0f" r="3.5" fill="%s"/>`, x(b.v[6]), y, color)
		fmt.Fprintf(&s, `<text x="%.1f" y="%.0f" text-anchor="middle" fill="%s">×</text>`+"\n", x(b.v[7]), y+4, color)
	}
	fmt.Fprintf(&s, `<text x="10" y="%d" fill="#555">box p25–p75, black bar p50, whiskers p10–p90 (tick at the minimum), dot p99, × maximum;</text>`+"\n", h-25)
	fmt.Fprintf(&s, `<text x="10" y="%d" fill="#555">each the median over the runs; grey rows are raw franz-go</text>`+"\n", h-10)
	s.WriteString("</svg>\n")
	return s.String()
}

type bar struct {
	name  string
	value float64
	runs  int
}

func median(vs []float64) float64 {
	s := slices.Clone(vs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// svg draws horizontal bars, labelled, scaled to the largest value.
func svg(title, metric string, bars []bar) string {
	const left, width, rowH, top = 330, 420, 22, 40
	maxV := 0.0
	for _, b := range bars {
		maxV = max(maxV, b.value)
	}
	if metric == "x-raw" {
		maxV = max(maxV, 1) // the dashed line at 1 is raw Kafka's rate
	}
	h := top + rowH*len(bars) + 30
	var s strings.Builder
	fmt.Fprintf(&s, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`+"\n", left+width+120, h)
	fmt.Fprintf(&s, `<rect width="100%%" height="100%%" fill="white"/><text x="10" y="22" font-size="14" font-weight="bold">%s</text>`+"\n", html.EscapeString(title))
	for i, b := range bars {
		y := top + i*rowH
		w := 0.0
		if maxV > 0 {
			w = b.value / maxV * width
		}
		color := "#3b7dd8"
		if strings.Contains(strings.ToLower(b.name), "raw") || strings.Contains(b.name, "Hamba") || strings.Contains(strings.ToLower(b.name), "baseline") {
			color = "#9aa5b1"
		}
		fmt.Fprintf(&s, `<text x="%d" y="%d" text-anchor="end">%s</text>`, left-8, y+14, html.EscapeString(b.name))
		fmt.Fprintf(&s, `<rect x="%d" y="%d" width="%.1f" height="%d" fill="%s"/>`, left, y+3, w, rowH-6, color)
		fmt.Fprintf(&s, `<text x="%.1f" y="%d">%s %s</text>`+"\n", float64(left)+w+5, y+14, format(b.value), html.EscapeString(metric))
	}
	if metric == "x-raw" {
		x1 := float64(left) + width/maxV
		fmt.Fprintf(&s, `<line x1="%.1f" y1="%d" x2="%.1f" y2="%d" stroke="#c33" stroke-dasharray="4 3"/><text x="%.1f" y="%d" fill="#c33" text-anchor="middle">raw = 1</text>`+"\n", x1, top-2, x1, top+rowH*len(bars), x1, top-6)
	}
	fmt.Fprintf(&s, `<text x="10" y="%d" fill="#555">median of the runs of each benchmark; grey bars are baselines</text>`+"\n", h-10)
	s.WriteString("</svg>\n")
	return s.String()
}

func format(v float64) string {
	switch {
	case v >= 1e6:
		return strconv.FormatFloat(v/1e6, 'f', 2, 64) + "M"
	case v >= 1e4:
		return strconv.FormatFloat(v/1e3, 'f', 1, 64) + "k"
	case v >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}
