package interop

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/sal"
	"github.com/lsst-sal/salgo/topics"
	salxml "github.com/lsst-sal/salgo/xml"
)

// variants is how many records of each topic test (a) writes: together
// they hold every edge value of every type (see scalarValue).
const variants = 4

// TestGoWritesPythonReads is interop check (a): a Go Controller writes
// every event and telemetry topic of the component; Python reads them with
// confluent-kafka's registry-aware AvroDeserializer and checks every value,
// the private fields, the key bytes and the 5-byte framing (its schema id
// must be the one Python's own registration of the schema gives).
func TestGoWritesPythonReads(t *testing.T) {
	env := needInterop(t)
	for _, comp := range components(t) {
		t.Run(comp.name, func(t *testing.T) {
			sub := subname(t)
			ctx := ctxFor(t, 3*time.Minute)
			bus := connect(t, comp.defs, sub)
			c, err := bus.NewController(comp.name, comp.index, controller.WithWriteOnly())
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			if err := c.Start(ctx); err != nil {
				t.Fatal(err)
			}
			var records []any
			ntopics := 0
			for _, tp := range c.Component().Topics {
				var w *topics.Writer
				switch tp.Kind {
				case salxml.Event:
					w = c.MustEvent(tp.Name())
				case salxml.Telemetry:
					w = c.MustTelemetry(tp.Name())
				}
				if w == nil || tp.FromAvro {
					continue
				}
				ntopics++
				for v := 0; v < variants; v++ {
					rec := record(tp, v)
					want := maps.Clone(rec)
					res, err := w.Write(ctx, rec)
					if err != nil {
						t.Fatalf("write %s variant %d: %v", tp, v, err)
					}
					records = append(records, map[string]any{"sal_name": tp.SALName, "seq": res.SeqNum, "values": want})
				}
			}
			spec := map[string]any{
				"subname": sub, "component": comp.name, "index": comp.index, "sal_dir": comp.salDir,
				// The reference's identity of a CSC, not what the SDK says it is.
				"identity": fmt.Sprintf("%s:%d", comp.name, comp.index),
				"origin":   os.Getpid(),
				"records":  records,
			}
			out := env.runPython(t, "read", spec)
			if got := num(out["records"]); got != int64(len(records)) {
				t.Errorf("Python checked %d records, want %d", got, len(records))
			}
			t.Logf("%s: Python read and checked %d records of %d topics", comp.name, len(records), ntopics)
		})
	}
}

// TestPythonCommandsGoCSC is interop check (b): Python sends commands the
// way a ts_salobj Remote does; a Go CSC acknowledges them; Python checks
// the ackcmd records (ack, error, result, private_seqNum, identity, origin,
// cmdtype, salIndex, key, framing) and the Go side checks what it decoded.
func TestPythonCommandsGoCSC(t *testing.T) {
	env := needInterop(t)
	comp := example(t)
	sub := subname(t)
	ctx := ctxFor(t, 3*time.Minute)
	bus := connect(t, comp.defs, sub)

	type seen struct {
		name, identity string
		seq, origin    int32
		index          int32
		data           map[string]any
	}
	var mu sync.Mutex
	got := map[string]seen{}
	keep := func(cmd *sal.Command) {
		mu.Lock()
		defer mu.Unlock()
		got[cmd.Name] = seen{cmd.Name, cmd.Identity, cmd.SeqNum, cmd.Origin, cmd.SALIndex, maps.Clone(cmd.Data)}
	}
	csc, err := bus.NewCSC(comp.name, comp.index,
		controller.WithAllowMissing(),
		controller.WithHooks(sal.Hooks{BeginStart: func(_ context.Context, cmd *sal.Command) error {
			keep(cmd)
			return nil
		}}))
	if err != nil {
		t.Fatal(err)
	}
	defer csc.Close()
	if err := csc.HandleFunc("setScalars", func(_ context.Context, cmd *sal.Command) error {
		keep(cmd)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if s := csc.State(); s != sal.Standby {
		t.Fatalf("CSC state %v before the commands, want STANDBY", s)
	}
	setScalars := record(csc.Component().Command("setScalars"), 0)
	spec := map[string]any{
		"subname": sub, "component": comp.name, "index": comp.index, "sal_dir": comp.salDir,
		"csc_identity": fmt.Sprintf("%s:%d", comp.name, comp.index),
		"csc_origin":   os.Getpid(),
		"steps": []any{
			map[string]any{"command": "enable", "params": map[string]any{},
				"ack": int(topics.CmdFailed), "error": 1, "result": "Failed: enable not allowed in state <State.STANDBY: 5>"},
			map[string]any{"command": "start", "params": map[string]any{"configurationOverride": "interop.yaml"},
				"ack": int(topics.CmdComplete), "error": 0, "result": "Done"},
			map[string]any{"command": "setScalars", "params": setScalars,
				"ack": int(topics.CmdComplete), "error": 0, "result": "Done"},
		},
	}
	out := env.runPython(t, "command", spec)

	if s := csc.State(); s != sal.Disabled {
		t.Errorf("CSC state %v after start, want DISABLED", s)
	}
	results, _ := out["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("Python reported %d commands, want 3: %v", len(results), out)
	}
	ident, _ := out["identity"].(string)
	origin := int32(num(out["origin"]))
	mu.Lock()
	defer mu.Unlock()
	for _, r := range results[1:] {
		r := r.(map[string]any)
		name := r["command"].(string)
		cmd, ok := got[name]
		if !ok {
			t.Errorf("the CSC's %s handler never ran", name)
			continue
		}
		if cmd.seq != int32(num(r["seq"])) || cmd.identity != ident || cmd.origin != origin || cmd.index != int32(comp.index) {
			t.Errorf("%s decoded by Go: seqNum %d identity %q origin %d salIndex %d; Python sent %v %q %d %d",
				name, cmd.seq, cmd.identity, cmd.origin, cmd.index, r["seq"], ident, origin, comp.index)
		}
	}
	if cmd, ok := got["start"]; ok && cmd.data["configurationOverride"] != "interop.yaml" {
		t.Errorf("start: configurationOverride %q, want %q", cmd.data["configurationOverride"], "interop.yaml")
	}
	if cmd, ok := got["setScalars"]; ok {
		checkRecord(t, "setScalars decoded by Go", cmd.data, setScalars)
	}
}

// TestSchemaRegistration is interop check (c): the Go SDK registers every
// topic of the component (a Remote registers what it reads and writes, as
// SalInfo does), through a proxy that records what it posts; Python then
// registers each schema as ts_salobj does, register_schema(subject,
// Schema(json.dumps(schema_dict), "AVRO")) with the dict built by Python
// from the XML, and must get the same id, no new version, and text
// byte-identical to what Go posted. (Both Apicurio and srfake compare
// schemas in a normalised form, so the id alone would not catch a
// difference in spacing, key order or escapes: the byte comparison does.)
func TestSchemaRegistration(t *testing.T) {
	env := needInterop(t)
	for _, comp := range components(t) {
		t.Run(comp.name, func(t *testing.T) {
			sub := subname(t)
			ctx := ctxFor(t, 3*time.Minute)
			proxy, capt := registryProxy(t, env.registry)
			bus := connect(t, comp.defs, sub, sal.WithRegistry(proxy))
			r, err := bus.NewRemote(ctx, comp.name, comp.index)
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			regs := capt.snapshot()
			if len(regs) == 0 {
				t.Fatal("the Go SDK registered no schema through the proxy")
			}
			goRegs := map[string]any{}
			for subj, e := range regs {
				goRegs[subj] = map[string]any{"schema": e.Schema, "id": e.ID}
				if e.Posts != 1 {
					t.Errorf("%s: the Go SDK registered %d times, want once", subj, e.Posts)
				}
			}
			spec := map[string]any{"subname": sub, "component": comp.name, "sal_dir": comp.salDir, "go": goRegs}
			out := env.runPython(t, "register", spec)
			if n := num(out["subjects"]); n != int64(len(regs)) {
				t.Errorf("Python registered %d subjects, Go %d", n, len(regs))
			}
		})
	}
}

// TestPythonWritesGoRemoteReads is interop check (d): Python writes events
// and telemetry as ts_salobj Controllers of SAL indices 1 and 2 would;
// Go Remotes that start afterwards get the event history (the newest
// sample per SAL index, none for telemetry), then the live data.
func TestPythonWritesGoRemoteReads(t *testing.T) {
	env := needInterop(t)
	comp := example(t)
	sub := subname(t)
	ctx := ctxFor(t, 3*time.Minute)
	bus := connect(t, comp.defs, sub)
	def, err := bus.Component(comp.name)
	if err != nil {
		t.Fatal(err)
	}
	scal, summ := def.Event("scalars"), def.Event("summaryState")
	arrE, tel, arrT := def.Event("arrays"), def.Telemetry("scalars"), def.Telemetry("arrays")

	type write struct {
		tp    *salxml.Topic
		index int
		rec   map[string]any
	}
	spec := func(ws []write) map[string]any {
		var recs []any
		for _, w := range ws {
			recs = append(recs, map[string]any{"sal_name": w.tp.SALName, "index": w.index, "values": w.rec})
		}
		return map[string]any{"subname": sub, "component": comp.name, "sal_dir": comp.salDir, "records": recs}
	}
	history := []write{
		{scal, 1, record(scal, 0)}, {scal, 2, record(scal, 1)}, {scal, 1, record(scal, 2)},
		{summ, 1, map[string]any{"summaryState": int32(5)}}, {scal, 2, record(scal, 3)},
		{scal, 1, record(scal, 1)}, {summ, 1, map[string]any{"summaryState": int32(1)}},
		{tel, 1, record(tel, 0)},
	}
	out := env.runPython(t, "write", spec(history))
	hOrigin := int32(num(out["origin"]))

	check := func(where string, got map[string]any, tp *salxml.Topic, index int, seq, origin int32, want map[string]any) {
		t.Helper()
		if got == nil {
			t.Errorf("%s: no record", where)
			return
		}
		checkRecord(t, where, got, want)
		priv := map[string]any{
			"salIndex": int32(index), "private_seqNum": seq, "private_origin": origin,
			"private_identity": fmt.Sprintf("%s:%d", comp.name, index), "private_revCode": tp.RevCode(),
		}
		checkRecord(t, where, got, priv)
		if rcv, _ := got["private_rcvStamp"].(float64); rcv < topics.TAI()-600 {
			t.Errorf("%s: private_rcvStamp %v not set by the reader", where, got["private_rcvStamp"])
		}
		snd, _ := got["private_sndStamp"].(float64)
		efd, _ := got["private_efdStamp"].(float64)
		if d := snd - efd; d < 36.999 || d > 37.001 {
			t.Errorf("%s: private_sndStamp - private_efdStamp = %v, want 37", where, d)
		}
	}
	drain := func(r *topics.Reader) []map[string]any {
		var out []map[string]any
		for rec := r.TryNext(); rec != nil; rec = r.TryNext() {
			out = append(out, rec)
		}
		return out
	}
	byIndex := func(recs []map[string]any) map[int32]map[string]any {
		m := map[int32]map[string]any{}
		for _, r := range recs {
			m[r["salIndex"].(int32)] = r
		}
		return m
	}

	r0, err := bus.NewRemote(ctx, comp.name, 0, remote.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer r0.Close()
	r1, err := bus.NewRemote(ctx, comp.name, 1, remote.WithReadOnly())
	if err != nil {
		t.Fatal(err)
	}
	defer r1.Close()

	// History: the newest sample per SAL index, for index 0 every index.
	h0 := drain(r0.MustEvent("scalars"))
	if len(h0) != 2 {
		t.Errorf("Remote index 0: %d historical scalars events, want 2 (the newest of index 1 and of index 2)", len(h0))
	}
	m0 := byIndex(h0)
	check("history index 0 scalars[1]", m0[1], scal, 1, 3, hOrigin, record(scal, 1))
	check("history index 0 scalars[2]", m0[2], scal, 2, 2, hOrigin, record(scal, 3))
	h1 := drain(r1.MustEvent("scalars"))
	if len(h1) != 1 {
		t.Errorf("Remote index 1: %d historical scalars events, want 1", len(h1))
	} else {
		check("history index 1 scalars", h1[0], scal, 1, 3, hOrigin, record(scal, 1))
	}
	hs := drain(r0.MustEvent("summaryState"))
	if len(hs) != 1 {
		t.Errorf("Remote index 0: %d historical summaryState events, want 1", len(hs))
	} else {
		check("history summaryState", hs[0], summ, 1, 2, hOrigin, map[string]any{"summaryState": int32(1)})
	}
	if ht := drain(r0.MustTelemetry("scalars")); len(ht) != 0 {
		t.Errorf("Remote index 0: %d historical telemetry records, want none (telemetry has no history)", len(ht))
	}

	// Live data, with a string longer than its IDL_Size (ts_salobj ignores
	// the bound, so a Go reader must deliver it).
	long := record(tel, 2)
	long["string0"] = strings.Repeat("0123456789", 5)
	live := []write{
		{arrE, 2, record(arrE, 1)}, {scal, 1, record(scal, 3)}, {tel, 1, record(tel, 1)},
		{tel, 1, long}, {arrT, 1, record(arrT, 0)},
	}
	lOrigin := int32(num(env.runPython(t, "write", spec(live))["origin"]))
	next := func(where string, r *topics.Reader) map[string]any {
		t.Helper()
		nctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		rec, err := r.Next(nctx)
		if err != nil {
			t.Errorf("%s: %v (stats %+v)", where, err, r.Stats())
			return nil
		}
		return rec
	}
	for _, rr := range []struct {
		name string
		r    *sal.Remote
	}{{"Remote index 0", r0}, {"Remote index 1", r1}} {
		check(rr.name+" live scalars", next(rr.name+" scalars", rr.r.MustEvent("scalars")), scal, 1, 1, lOrigin, record(scal, 3))
		check(rr.name+" live telemetry scalars[0]", next(rr.name+" telemetry", rr.r.MustTelemetry("scalars")), tel, 1, 1, lOrigin, record(tel, 1))
		check(rr.name+" live telemetry scalars[1] (long string)", next(rr.name+" telemetry", rr.r.MustTelemetry("scalars")), tel, 1, 2, lOrigin, long)
		check(rr.name+" live telemetry arrays", next(rr.name+" telemetry arrays", rr.r.MustTelemetry("arrays")), arrT, 1, 1, lOrigin, record(arrT, 0))
	}
	check("Remote index 0 live arrays event of index 2", next("arrays", r0.MustEvent("arrays")), arrE, 2, 1, lOrigin, record(arrE, 1))
	// Remote index 1 must filter index 2 out.
	deadline := time.Now().Add(15 * time.Second)
	for r1.MustEvent("arrays").Stats().Filtered == 0 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if s := r1.MustEvent("arrays").Stats(); s.Filtered == 0 || s.Queued != 0 {
		t.Errorf("Remote index 1 arrays event: %+v, want the index 2 record filtered out", s)
	}
	for _, r := range []*topics.Reader{r0.MustEvent("scalars"), r0.MustTelemetry("scalars"), r1.MustEvent("scalars"), r1.MustTelemetry("scalars")} {
		if s := r.Stats(); s.Undecodable != 0 || s.OutOfOrder != 0 || s.Lost != 0 {
			t.Errorf("%s: %+v", r.Topic(), s)
		}
	}
}
