package salprom_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/internal/leaktest"
	"github.com/lsst-sal/salgo/remote"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/sal/salprom"
	salxml "github.com/lsst-sal/salgo/xml"
)

func TestMain(m *testing.M) { leaktest.VerifyTestMain(m) }

var quiet = slog.New(slog.NewTextHandler(io.Discard, nil))

// scrape fetches the exposition text and returns each sample line's value
// by its full series text, e.g. `salgo_queue_depth{component="Example",...}`.
func scrape(t *testing.T, url string) map[string]float64 {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s", url, resp.Status)
	}
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		i := strings.LastIndexByte(line, ' ')
		v, err := strconv.ParseFloat(line[i+1:], 64)
		if err != nil {
			t.Fatalf("bad sample line %q: %v", line, err)
		}
		out[line[:i]] = v
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// series returns the value of the series with that name whose labels
// include every one of want (`k="v"` pairs), failing when there is none.
func series(t *testing.T, m map[string]float64, name string, want ...string) float64 {
	t.Helper()
	for s, v := range m {
		if !strings.HasPrefix(s, name+"{") && s != name {
			continue
		}
		ok := true
		for _, w := range want {
			if !strings.Contains(s, w) {
				ok = false
				break
			}
		}
		if ok {
			return v
		}
	}
	t.Fatalf("no series %s{%s} in the scrape", name, strings.Join(want, ","))
	return 0
}

func TestScrape(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	reg := prometheus.NewRegistry()
	exp, err := salprom.New(reg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()

	bus, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet), exp.Option())
	if err != nil {
		t.Fatal(err)
	}
	defer bus.Close()
	csc, err := bus.NewCSC("Example", 1, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	csc.HandleFunc("setScalars", func(ctx context.Context, cmd *sal.Command) error { return nil })
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	// A small queue that overflows: 10 records kept, the rest dropped and counted.
	r, err := bus.NewRemote(ctx, "Example", 1, remote.WithQueueLen(10))
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()

	const nCmd, nTel = 5, 40
	for i := range nCmd {
		if _, err := r.Command(ctx, "setScalars", map[string]any{"int0": i}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := r.Command(ctx, "setArrays", nil); err == nil {
		t.Fatal("setArrays without a handler succeeded")
	}
	w := csc.MustTelemetry("scalars")
	for i := range nTel {
		if _, err := w.Write(ctx, map[string]any{"int0": i}); err != nil {
			t.Fatal(err)
		}
	}
	// Wait until the reader has delivered all of them (queued or dropped):
	// Received is counted before a record is decoded, its latency
	// observed and the record delivered.
	rd := r.MustTelemetry("scalars")
	for rd.Stats().Delivered < nTel {
		select {
		case <-ctx.Done():
			t.Fatalf("reader stats %+v: %v", rd.Stats(), ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}

	m := scrape(t, srv.URL)
	ex := []string{`component="Example"`, `index="1"`}
	tel := append(ex, `topic="scalars"`)
	if v := series(t, m, "salgo_records_written_total", tel...); v != nTel {
		t.Errorf("records_written_total{scalars} = %v, want %d", v, nTel)
	}
	if v := series(t, m, "salgo_records_received_total", tel...); v != nTel {
		t.Errorf("records_received_total{scalars} = %v, want %d", v, nTel)
	}
	if v := series(t, m, "salgo_records_delivered_total", tel...); v != nTel {
		t.Errorf("records_delivered_total{scalars} = %v, want %d", v, nTel)
	}
	if v := series(t, m, "salgo_queue_depth", tel...); v != 10 {
		t.Errorf("queue_depth{scalars} = %v, want 10 (the queue length)", v)
	}
	if v := series(t, m, "salgo_records_overflow_total", tel...); v != nTel-10 {
		t.Errorf("records_overflow_total{scalars} = %v, want %d", v, nTel-10)
	}
	// The registry answered every lookup: nothing retried, nothing held.
	if v := series(t, m, "salgo_records_held", tel...); v != 0 {
		t.Errorf("records_held{scalars} = %v, want 0", v)
	}
	for _, name := range []string{"salgo_records_lost_total", "salgo_records_undecodable_total", "salgo_records_out_of_order_total", "salgo_records_duplicate_total", "salgo_records_violations_total", "salgo_write_failures_total", "salgo_records_filtered_total", "salgo_schema_retries_total"} {
		if v := series(t, m, name, ex...); v != 0 {
			t.Errorf("%s = %v, want 0", name, v)
		}
	}
	// Histograms: counts match what happened, and the sums are plausible
	// (each observation between 0 and the test's own duration).
	hist := func(name string, n float64, labels ...string) {
		t.Helper()
		c := series(t, m, name+"_count", labels...)
		s := series(t, m, name+"_sum", labels...)
		if c != n {
			t.Errorf("%s_count{%s} = %v, want %v", name, strings.Join(labels, ","), c, n)
		}
		if s <= 0 || s > 60*c {
			t.Errorf("%s_sum{%s} = %v for %v observations: not plausible", name, strings.Join(labels, ","), s, c)
		}
	}
	hist("salgo_write_ack_seconds", nTel, tel...)
	hist("salgo_latency_seconds", nTel, tel...)
	hist("salgo_command_seconds", nCmd, append(ex, `command="setScalars"`, `outcome="CMD_COMPLETE"`)...)
	hist("salgo_command_seconds", 1, append(ex, `command="setArrays"`, `outcome="CMD_FAILED"`)...)
	// The CSC's events: summaryState written once, read as history.
	if v := series(t, m, "salgo_records_written_total", append(ex, `topic="logevent_summaryState"`)...); v < 1 {
		t.Errorf("records_written_total{logevent_summaryState} = %v, want ≥ 1", v)
	}
	// franz-go's client metrics, per client.
	if v := series(t, m, "salgo_kafka_produce_bytes_total", `client="producer-`, `topic="lsst.`+bus.Config().Subname+`.Example.scalars"`); v <= 0 {
		t.Errorf("salgo_kafka_produce_bytes_total = %v, want > 0", v)
	}
	if v := series(t, m, "salgo_kafka_fetch_bytes_total", `client="consumer-`); v <= 0 {
		t.Errorf("salgo_kafka_fetch_bytes_total = %v, want > 0", v)
	}

	// After the bus closes its objects are gone from the scrape, and the
	// histograms stay.
	csc.Close()
	r.Close()
	bus.Close()
	m = scrape(t, srv.URL)
	for s := range m {
		if strings.HasPrefix(s, "salgo_records_") || strings.HasPrefix(s, "salgo_kafka_") {
			t.Errorf("after Close the scrape still has %s", s)
		}
	}
	series(t, m, "salgo_write_ack_seconds_count", tel...)
}

// Two exporters cannot share a registry: the second says why.
func TestRegisterTwice(t *testing.T) {
	reg := prometheus.NewRegistry()
	if _, err := salprom.New(reg); err != nil {
		t.Fatal(err)
	}
	_, err := salprom.New(reg)
	if err == nil || !strings.Contains(err.Error(), "salprom: register") {
		t.Fatalf("second New on one registry: err = %v, want a registration error", err)
	}
	if _, err := salprom.New(reg, salprom.Namespace("other")); err != nil {
		t.Fatalf("a second namespace: %v", err)
	}
}

func Example() {
	reg := prometheus.NewRegistry()
	exp, err := salprom.New(reg, salprom.WithoutKafkaMetrics())
	if err != nil {
		fmt.Println(err)
		return
	}
	ctx := context.Background()
	bus, err := sal.Connect(ctx, sal.WithEmbedded(), sal.WithDefinitions(salxml.Embedded()), sal.WithLogger(quiet), exp.Option())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer bus.Close()
	c, err := bus.NewController("Example", 1, controller.WithAllowMissing())
	if err != nil {
		fmt.Println(err)
		return
	}
	defer c.Close()
	if err := c.Start(ctx); err != nil {
		fmt.Println(err)
		return
	}
	for i := range 3 {
		if _, err := c.MustTelemetry("scalars").Write(ctx, map[string]any{"int0": i}); err != nil {
			fmt.Println(err)
			return
		}
	}
	// Serve reg with promhttp.HandlerFor(reg, promhttp.HandlerOpts{}); here
	// the registry is read directly.
	families, _ := reg.Gather()
	for _, f := range families {
		for _, m := range f.GetMetric() {
			if f.GetName() == "salgo_records_written_total" && labelOf(m.GetLabel(), "topic") == "scalars" {
				fmt.Println(f.GetName(), "scalars", m.GetCounter().GetValue())
			}
		}
	}
	// Output:
	// salgo_records_written_total scalars 3
}

func labelOf[L interface {
	GetName() string
	GetValue() string
}](ls []L, name string) string {
	for _, l := range ls {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
