package smoke

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// TestSalctlTop runs salctl top on the in-process bus, where its built-in
// writer feeds the telemetry and event topics of Example at different rates.
func TestSalctlTop(t *testing.T) {
	t.Parallel()
	env := baseEnv()

	r := mustRun(t, env, "salctl", "top", "Example:1", "-count", "3", "-json")
	if !strings.Contains(r.stderr, "no broker configured") || !strings.Contains(r.stderr, "a built-in writer publishes random records") {
		t.Errorf("top does not say it runs on the in-process bus with a built-in writer\n%s", r)
	}
	type row struct {
		Topic       string   `json:"topic"`
		KafkaTopic  string   `json:"kafka_topic"`
		RateHz      float64  `json:"rate_hz"`
		BytesPerSec float64  `json:"bytes_per_sec"`
		LatencyP50  *float64 `json:"latency_p50_s"`
		LatencyMax  *float64 `json:"latency_max_s"`
		Drops       int64    `json:"drops"`
		DropsTotal  int64    `json:"drops_total"`
		Records     int64    `json:"records"`
	}
	type report struct {
		Component string `json:"component"`
		Bus       string `json:"bus"`
		Index     *int   `json:"index"`
		Refresh   int    `json:"refresh"`
		Topics    int    `json:"topics"`
		Active    int    `json:"active"`
		Rows      []row  `json:"rows"`
	}
	var reps []report
	for i, l := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var rep report
		if err := json.Unmarshal([]byte(l), &rep); err != nil {
			t.Fatalf("line %d is not JSON: %v\n%s", i+1, err, r)
		}
		reps = append(reps, rep)
	}
	if len(reps) != 3 {
		t.Fatalf("-count 3 printed %d refreshes\n%s", len(reps), r)
	}
	// Records written by the feeder: each of them, over the run.
	seen := map[string]bool{}
	for i, rep := range reps {
		if rep.Component != "Example" || rep.Bus != "in-process" || rep.Index == nil || *rep.Index != 1 || rep.Refresh != i+1 || rep.Topics < 15 {
			t.Errorf("refresh %d: header %+v, want Example:1, refresh %d, at least Example's 15 fed topics", i+1, rep, i+1)
		}
		for j, w := range rep.Rows {
			if !strings.HasPrefix(w.KafkaTopic, "lsst.sal.Example.") || !strings.HasSuffix(w.KafkaTopic, "."+w.Topic) {
				t.Errorf("refresh %d: topic %q of Kafka topic %q", i+1, w.Topic, w.KafkaTopic)
			}
			if w.Drops != 0 || w.DropsTotal != 0 {
				t.Errorf("refresh %d: %s lost records: %+v", i+1, w.Topic, w)
			}
			if j > 0 {
				p := rep.Rows[j-1]
				if p.RateHz < w.RateHz || (p.RateHz == w.RateHz && p.BytesPerSec < w.BytesPerSec) {
					t.Errorf("refresh %d: %s (%.1f Hz, %.0f B/s) before %s (%.1f Hz, %.0f B/s): not sorted by rate, then bandwidth",
						i+1, p.Topic, p.RateHz, p.BytesPerSec, w.Topic, w.RateHz, w.BytesPerSec)
				}
			}
			if w.RateHz > 0 {
				if w.BytesPerSec <= 0 || w.LatencyP50 == nil || w.LatencyMax == nil || *w.LatencyMax < *w.LatencyP50 || w.Records == 0 {
					t.Errorf("refresh %d: %s has a rate but %+v", i+1, w.Topic, w)
				}
				seen[w.Topic] = true
			}
		}
	}
	// The feeder writes scalars 8 times, arrays 4 times, status twice as
	// often as each event.
	for _, name := range []string{"scalars", "arrays", "status", "logevent_summaryState"} {
		if !seen[name] {
			t.Errorf("%s never showed a rate > 0\n%s", name, r)
		}
	}
	most := row{}
	for _, w := range reps[2].Rows {
		if w.Records > most.Records {
			most = w
		}
	}
	if most.Topic != "scalars" {
		t.Errorf("the last refresh counts most records for %q, not scalars, written most often\n%s", most.Topic, r)
	}

	// -plain: three tables separated by blank lines; -n bounds the rows.
	r = mustRun(t, env, "salctl", "top", "Example", "-count", "3", "-plain", "-n", "5")
	tables := strings.Split(strings.TrimSpace(r.stdout), "\n\n")
	header := regexp.MustCompile(`^salctl top Example on in-process bus  \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC  \d+ topics listened to, \d+ active in [\d.]+ s\nTOPIC +RATE Hz +BANDWIDTH +LAT p50 +LAT max +DROPS +DROPS TOTAL +RECORDS\n`)
	rowRe := regexp.MustCompile(`(?m)^(\w+) +([\d.]+) +[\d.]+ [KM]?B/s +([\d.]+ (?:s|ms|µs)|-) +([\d.]+ (?:s|ms|µs)|-) +(\d+) +(\d+) +(\d+)$`)
	if len(tables) != 3 {
		t.Fatalf("-plain -count 3: want 3 tables separated by blank lines\n%s", r)
	}
	for i, tb := range tables {
		if !header.MatchString(tb) {
			t.Errorf("table %d: no header\n%s", i+1, tb)
		}
		rows := rowRe.FindAllStringSubmatch(tb, -1)
		if len(rows) == 0 || len(rows) > 5 || strings.Count(tb, "\n") != len(rows)+1 {
			t.Errorf("table %d: %d rows, want 1 to 5 and nothing else\n%s", i+1, len(rows), tb)
		}
		for _, m := range rows {
			if m[5] != "0" || m[6] != "0" {
				t.Errorf("table %d: %s lost records: %s", i+1, m[1], m[0])
			}
		}
	}
	if strings.Contains(r.stdout, "\x1b[") {
		t.Errorf("-plain output has ANSI escapes\n%s", r)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"top", "Exampel"}, "did you mean Example?"},
		{[]string{"top"}, "top needs a COMPONENT[:INDEX]"},
		{[]string{"top", "Example", "-n", "0"}, "-n must be > 0"},
	} {
		r := run(t, env, "salctl", c.args...)
		if r.code != 2 || !strings.Contains(r.stderr, c.want) {
			t.Errorf("salctl %v: want exit 2 and %q\n%s", c.args, c.want, r)
		}
	}
}
