package salgen_test

import (
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/examples/gen/example"
	"github.com/lsst-sal/salgo/internal/salgen/recordtest"
	"github.com/lsst-sal/salgo/internal/testbus"
	"github.com/lsst-sal/salgo/remote"
	"github.com/lsst-sal/salgo/topics"
	"github.com/lsst-sal/salgo/validate"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestExample_Records: every topic of the generated Example package
// against the map codec and the validator (see recordtest.Check).
func TestExample_Records(t *testing.T) {
	c, err := example.Definition()
	if err != nil {
		t.Fatal(err)
	}
	if example.Name != "Example" || example.XMLVersion != salxml.EmbeddedVersion {
		t.Errorf("Name %q, XMLVersion %q", example.Name, example.XMLVersion)
	}
	recordtest.Check(t, c, example.RecordTypes, recordtest.Options{Records: 200, Seed: 1})
}

// TestExample_Definition: the embedded definition is the SDK's.
func TestExample_Definition(t *testing.T) {
	c, err := example.Definition()
	if err != nil {
		t.Fatal(err)
	}
	want, err := salxml.Embedded().Component("Example")
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Topics) != len(want.Topics) {
		t.Fatalf("%d topics, want %d", len(c.Topics), len(want.Topics))
	}
	for i, tp := range c.Topics {
		if tp.SALName != want.Topics[i].SALName || tp.AvroSchema() != want.Topics[i].AvroSchema() {
			t.Errorf("topic %d: %s differs from the embedded %s", i, tp, want.Topics[i])
		}
	}
}

// TestExample_Enums: the constants, values and names of Example's
// enumerations.
func TestExample_Enums(t *testing.T) {
	for _, c := range []struct {
		v    interface{ String() string }
		n    int64
		name string
	}{
		{example.ModeIdle, 1, "Idle"},
		{example.ModeTracking, 2, "Tracking"},
		{example.ModeSlewing, 3, "Slewing"},
		{example.Mode(7), 7, "Mode(7)"},
		{example.FlagNone, 0, "None"},
		{example.FlagReady, 2, "Ready"},
		{example.FlagBusy, 4, "Busy"},
		{example.FlagAlarm, 16, "Alarm"},
		{example.Flag(-1), -1, "Flag(-1)"},
		{example.EvtScalarsInt0One, 1, "One"},
		{example.EvtScalarsInt0Three, 3, "Three"},
	} {
		var n int64
		switch v := c.v.(type) {
		case example.Mode:
			n = int64(v)
		case example.Flag:
			n = int64(v)
		case example.EvtScalarsInt0:
			n = int64(v)
		}
		if n != c.n || c.v.String() != c.name {
			t.Errorf("%T %d %q, want %d %q", c.v, n, c.v.String(), c.n, c.name)
		}
	}
}

// TestExample_GenericEnums: the generic enumerations are in the package
// too: SummaryStates as SALGenerics.xml names and numbers it (the same
// values as controller.State), and SalRetCode, the SDK's topics.AckCode,
// with ts_xml's sal_enums.SalRetCode values.
func TestExample_GenericEnums(t *testing.T) {
	for _, c := range []struct {
		v     example.SummaryStates
		state controller.State
		name  string
	}{
		{example.SummaryStatesDisabledState, controller.Disabled, "DisabledState"},
		{example.SummaryStatesEnabledState, controller.Enabled, "EnabledState"},
		{example.SummaryStatesFaultState, controller.Fault, "FaultState"},
		{example.SummaryStatesOfflineState, controller.Offline, "OfflineState"},
		{example.SummaryStatesStandbyState, controller.Standby, "StandbyState"},
	} {
		if controller.State(c.v) != c.state || c.v.String() != c.name {
			t.Errorf("%d %q, want %v %q", c.v, c.v, c.state, c.name)
		}
	}
	for _, c := range []struct {
		v    example.SalRetCode
		n    int32
		name string
	}{
		{example.SalRetCodeCmdAck, 300, "CMD_ACK"},
		{example.SalRetCodeCmdInProgress, 301, "CMD_INPROGRESS"},
		{example.SalRetCodeCmdStalled, 302, "CMD_STALLED"},
		{example.SalRetCodeCmdComplete, 303, "CMD_COMPLETE"},
		{example.SalRetCodeCmdNoPerm, -300, "CMD_NOPERM"},
		{example.SalRetCodeCmdNoAck, -301, "CMD_NOACK"},
		{example.SalRetCodeCmdFailed, -302, "CMD_FAILED"},
		{example.SalRetCodeCmdAborted, -303, "CMD_ABORTED"},
		{example.SalRetCodeCmdTimeout, -304, "CMD_TIMEOUT"},
	} {
		var code topics.AckCode = c.v // the SDK's type, no conversion
		if int32(code) != c.n || code.String() != c.name {
			t.Errorf("%d %q, want %d %q", int32(code), code.String(), c.n, c.name)
		}
	}
}

// TestExample_Bus: a typed CSC writes telemetry and an event, a typed
// Remote reads them back equal; a typed command reaches the typed handler
// with equal data.
func TestExample_Bus(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	csc, err := example.NewCSC(d, 3, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(csc.Close)
	got := make(chan *example.CmdSetScalars, 1)
	err = csc.HandleSetScalars(func(ctx context.Context, cmd *controller.Command, data *example.CmdSetScalars) error {
		got <- data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := csc.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := example.NewRemote(d, 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}

	tel := &example.Scalars{Boolean0: true, Byte0: 200, Short0: -3, Int0: 1 << 30, Long0: -7, LongLong0: 1 << 40,
		UnsignedShort0: 65535, UnsignedInt0: 1 << 31, Float0: float32(math.NaN()), Double0: math.Pi, String0: "héllo"}
	if _, err := csc.Scalars().Write(ctx, tel); err != nil {
		t.Fatal(err)
	}
	rt, err := r.Scalars().Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameUser(t, "telemetry scalars (Next)", rt, tel)
	if rt.Private.SeqNum == 0 || rt.Private.Identity != "Example:3" || rt.Private.SalIndex != 3 {
		t.Errorf("telemetry private fields: %+v", rt.Private)
	}
	sameUser(t, "telemetry scalars (Get)", r.Scalars().Get(), tel)

	evt := &example.EvtArrays{}
	for i := range 5 {
		evt.Boolean0[i] = i%2 == 0
		evt.Double0[i] = float64(i) / 3
		evt.UnsignedInt0[i] = uint32(i) << 29
		evt.Byte0[i] = uint8(250 + i)
	}
	if _, err := csc.EvtArrays().Write(ctx, evt); err != nil {
		t.Fatal(err)
	}
	re, err := r.EvtArrays().Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameUser(t, "event arrays", re, evt)

	cmd := &example.CmdSetScalars{Boolean0: true, Short0: 12, Double0: -1.5, String0: "go", UnsignedInt0: 4e9}
	ack, err := r.CmdSetScalars(ctx, cmd)
	if err != nil {
		t.Fatal(err)
	}
	if ack.Code != topics.CmdComplete {
		t.Errorf("ack %v", ack)
	}
	select {
	case data := <-got:
		sameUser(t, "command setScalars", data, cmd)
	case <-ctx.Done():
		t.Fatal("the handler never ran")
	}
	// nil data: every field zero.
	if _, err := r.CmdSetScalars(ctx, nil); err != nil {
		t.Fatal(err)
	}
	select {
	case data := <-got:
		sameUser(t, "command setScalars (nil)", data, &example.CmdSetScalars{})
	case <-ctx.Done():
		t.Fatal("the handler never ran")
	}
}

// sameUser fails unless got's user fields equal want's (NaN equal to NaN).
func sameUser(t *testing.T, what string, got, want topics.Record) {
	t.Helper()
	g, w := map[string]any{}, map[string]any{}
	got.ToMap(g, false)
	want.ToMap(w, false)
	for k, v := range w {
		if !recordtest.Equal(g[k], v) {
			t.Errorf("%s: field %s is %#v, want %#v", what, k, g[k], v)
		}
	}
}

// TestExample_NoAllocs: AppendAvro into a buffer with room and DecodeAvro
// into a recycled record whose strings are unchanged do not allocate (the
// Decoder stays on the stack).
func TestExample_NoAllocs(t *testing.T) {
	rec := &example.EvtScalars{String0: "twenty bytes at most", Double0: 1}
	rec.Private.Identity = "Example:1"
	rec.Private.RevCode = "abcd1234"
	buf := rec.AppendAvro(nil)
	into := &example.EvtScalars{}
	if _, err := into.DecodeAvro(buf); err != nil {
		t.Fatal(err)
	}
	arr := &example.Arrays{}
	abuf := arr.AppendAvro(nil)
	if n := testing.AllocsPerRun(100, func() {
		buf = rec.AppendAvro(buf[:0])
		if _, err := into.DecodeAvro(buf); err != nil {
			t.Fatal(err)
		}
		abuf = arr.AppendAvro(abuf[:0])
		if _, err := arr.DecodeAvro(abuf); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Errorf("%v allocations per append and decode", n)
	}
}

// TestExample_FromMapErrors: a value of another type is an error naming
// the field that matches validate.ErrType, and leaves the field zero; a
// slice of another length keeps the elements both have and matches
// validate.ErrArrayLength; an absent field is zero.
func TestExample_FromMapErrors(t *testing.T) {
	rec := &example.CmdSetArrays{}
	rec.Double0[4] = 9
	rec.Int0[0] = 5
	err := rec.FromMap(map[string]any{
		"boolean0": []bool{true, false, true, false, true},
		"double0":  []float64{1, 2},
		"float0":   []float64{1, 2, 3, 4, 5},
	})
	fes := validate.FieldErrors(err)
	if len(fes) != 2 {
		t.Fatalf("FromMap: %v", err)
	}
	// In field order: float0, then double0.
	if fes[0].Field != "float0" || !errors.Is(fes[0], validate.ErrType) || !strings.Contains(fes[0].Error(), "Example.command_setArrays: field float0") {
		t.Errorf("first error %v", fes[0])
	}
	if fes[1].Field != "double0" || !errors.Is(fes[1], validate.ErrArrayLength) {
		t.Errorf("second error %v", fes[1])
	}
	if rec.Double0 != [5]float64{1, 2, 0, 0, 0} || rec.Float0 != [5]float32{} || rec.Int0 != [5]int32{} || rec.Boolean0 != [5]bool{true, false, true, false, true} {
		t.Errorf("record after FromMap: %+v", rec)
	}
	s := &example.Scalars{Int0: 3}
	err = s.FromMap(map[string]any{"int0": int64(4), "string0": "x"})
	if fes := validate.FieldErrors(err); len(fes) != 1 || fes[0].Field != "int0" || !errors.Is(err, validate.ErrType) || s.Int0 != 0 || s.String0 != "x" {
		t.Errorf("FromMap: %v, %+v", err, s)
	}
}

// TestExample_HostileBodies: DecodeAvro of random and mutated bodies
// returns (an error or a record) without panicking, and into a recycled
// record allocates no more than the input's length (measured: the bytes
// allocated over all decodes against the bytes decoded).
func TestExample_HostileBodies(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	c, err := example.Definition()
	if err != nil {
		t.Fatal(err)
	}
	in, alloc := 0, uint64(0)
	for i, typ := range example.RecordTypes {
		rec := typ.New()
		recordtest.Fill(rec, c.Topics[i], rng)
		body := rec.AppendAvro(nil)
		for range 2000 {
			b := slices.Clone(body)
			switch rng.IntN(3) {
			case 0:
				b[rng.IntN(len(b))] = byte(rng.Uint32())
			case 1:
				b = b[:rng.IntN(len(b))]
				for range rng.IntN(8) {
					b = append(b, byte(rng.Uint32()))
				}
			default:
				b = make([]byte, rng.IntN(64))
				for j := range b {
					b[j] = byte(rng.Uint32())
				}
			}
			_, _ = typ.New().DecodeAvro(b)
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			_, _ = rec.DecodeAvro(b)
			runtime.ReadMemStats(&after)
			in += len(b)
			alloc += after.TotalAlloc - before.TotalAlloc
		}
	}
	// A string is allocated only when it differs: at most the input, with
	// the allocator's rounding up to its size classes.
	if alloc > 2*uint64(in) {
		t.Errorf("decoding %d hostile bytes into recycled records allocated %d bytes", in, alloc)
	}
	t.Logf("decoding %d hostile bytes into recycled records allocated %d bytes", in, alloc)
}

// TestExample_Controller: the typed Controller handles a generic command
// (its own, unlike a CSC's) with typed data and writes typed telemetry.
func TestExample_Controller(t *testing.T) {
	d := testbus.Domain(t, nil)
	ctx := testbus.Ctx(t)
	c, err := example.NewController(d, 0, controller.WithAllowMissing())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	got := make(chan *example.CmdSetLogLevel, 1)
	err = c.HandleSetLogLevel(func(ctx context.Context, cmd *controller.Command, data *example.CmdSetLogLevel) error {
		got <- data
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(ctx); err != nil {
		t.Fatal(err)
	}
	r, err := example.NewRemote(d, 0, remote.WithInclude("status"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(r.Close)
	if err := r.Start(ctx); err != nil {
		t.Fatal(err)
	}
	if r.EvtScalars() != nil || r.Status() == nil {
		t.Errorf("a Remote reading only status has accessors EvtScalars %v, Status %v", r.EvtScalars(), r.Status())
	}
	if _, err := r.CmdSetLogLevel(ctx, &example.CmdSetLogLevel{Level: 10}); err != nil {
		t.Fatal(err)
	}
	select {
	case data := <-got:
		sameUser(t, "command setLogLevel", data, &example.CmdSetLogLevel{Level: 10})
	case <-ctx.Done():
		t.Fatal("the handler never ran")
	}
	st := &example.Status{Timestamp: 12.5, Temperature: [8]float32{1, 2, 3}, Position: [3]float64{4, 5, 6}, Mode: int32(example.ModeSlewing)}
	if _, err := c.Status().Write(ctx, st); err != nil {
		t.Fatal(err)
	}
	rs, err := r.Status().Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	sameUser(t, "telemetry status", rs, st)
}
