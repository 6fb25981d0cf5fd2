package salgen

import (
	"reflect"
	"slices"
	"testing"

	"github.com/lsst-sal/salgo/controller"
	"github.com/lsst-sal/salgo/remote"
	salxml "github.com/lsst-sal/salgo/xml"
)

// TestReservedNames: the generator's lists of the embedded types' methods
// are their method sets, so that no accessor hides one.
func TestReservedNames(t *testing.T) {
	for _, c := range []struct {
		name string
		typ  reflect.Type
		list []string
	}{
		{"*remote.Remote", reflect.TypeFor[*remote.Remote](), remoteMethods},
		{"*controller.CSC", reflect.TypeFor[*controller.CSC](), cscMethods},
		{"*controller.Controller", reflect.TypeFor[*controller.Controller](), controllerMethods},
	} {
		var got []string
		for i := range c.typ.NumMethod() {
			got = append(got, c.typ.Method(i).Name)
		}
		want := slices.Sorted(slices.Values(c.list))
		if !slices.Equal(got, want) {
			t.Errorf("%s has methods\n%q\nsalgen reserves\n%q", c.name, got, want)
		}
	}
}

func TestNames(t *testing.T) {
	for in, want := range map[string]string{
		"forceActuatorData": "ForceActuatorData", "m1Correction": "M1Correction", "_x": "X_x", "0abc": "X0abc",
		"a-b": "A_b", "ABC": "ABC", "": "X", "élan": "Élan",
	} {
		if got := exported(in); got != want {
			t.Errorf("exported(%q) = %q, want %q", in, got, want)
		}
	}
	for in, want := range map[string]string{
		"DEPLOYED": "Deployed", "IN_POSITION": "InPosition", "Idle": "Idle", "inPosition": "InPosition",
		"EEPROM_1_READ_ERROR": "Eeprom1ReadError", "Grating_Blue": "GratingBlue", "E2V": "E2v", "a-b c": "ABC",
	} {
		if got := camel(in); got != want {
			t.Errorf("camel(%q) = %q, want %q", in, got, want)
		}
	}
	n := newNamer([]string{"Start"})
	if a, b, c := n.take("Start"), n.take("Start"), n.take("X"); a != "Start_" || b != "Start__" || c != "X" {
		t.Errorf("namer gave %q, %q, %q", a, b, c)
	}
	enum := func(names ...string) *salxml.Enumeration {
		e := &salxml.Enumeration{}
		for i, n := range names {
			e.Entries = append(e.Entries, salxml.EnumEntry{Name: n, Value: int64(i)})
		}
		return e
	}
	for _, c := range []struct {
		e    *salxml.Enumeration
		want string
	}{
		{enum("gratingType_Grating_Blue", "gratingType_Grating_Red"), "gratingType_"},
		{enum("CSys_None", "CSys_ICRS"), "CSys_"},
		{enum("Int0Enum_One", "Int0Enum_Two"), "Int0Enum_"},
		{enum("OFFLINE_AVAILABLE", "OFFLINE_PUBLISH_ONLY"), ""},
		{enum("PLUS_X", "MINUS_X"), ""},
		{enum("clear", "cloudy"), ""},
		{enum("a_x", "b_x"), ""},
	} {
		if got := fieldEnumPrefix(c.e); got != c.want {
			t.Errorf("fieldEnumPrefix(%v) = %q, want %q", c.e.Entries, got, c.want)
		}
	}
}

// TestPlan_Collisions: topic types, fields and enumerations that would
// take a taken name get "_"; accessors that would hide a method of the
// embedded type get the kind's prefix.
func TestPlan_Collisions(t *testing.T) {
	f := func(name string) *salxml.Field {
		return &salxml.Field{Name: name, Type: salxml.Double, Count: 1}
	}
	comp := &salxml.Component{Name: "Odd", Topics: []*salxml.Topic{
		{Component: "Odd", SALName: "start", Kind: salxml.Telemetry, Fields: []*salxml.Field{f("toMap"), f("ToMap"), f("private"), f("x_y"), f("9lives")}},
		{Component: "Odd", SALName: "remote", Kind: salxml.Telemetry},
		{Component: "Odd", SALName: "evtFoo", Kind: salxml.Telemetry},
		{Component: "Odd", SALName: "logevent_foo", Kind: salxml.Event},
		{Component: "Odd", SALName: "command_func", Kind: salxml.Command},
	}, Enumerations: []*salxml.Enumeration{
		{Class: "Start", Entries: []salxml.EnumEntry{{Name: "Start_", Value: 1}, {Name: "Start_A_B", Value: 2}, {Name: "Start_AB", Value: 3}, {Name: "Start_Big", Value: 1 << 40}}},
	}}
	p, err := plan(comp, "v")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range p.records {
		got = append(got, r.typeName, r.remoteName, r.cscName, r.cscHandler)
		for _, f := range r.fields {
			got = append(got, f.goName)
		}
	}
	for _, e := range p.enums {
		got = append(got, e.typeName, e.goType)
		for _, c := range e.consts {
			got = append(got, c.name+"="+c.label)
		}
	}
	want := []string{
		"Start", "TelStart", "TelStart", "", "ToMap_", "ToMap__", "Private_", "X_y", "X9lives",
		"Remote_", "Remote_", "Remote_", "",
		"EvtFoo", "EvtFoo", "EvtFoo", "",
		"EvtFoo_", "EvtFoo_", "EvtFoo_", "",
		"CmdFunc", "CmdFunc", "", "HandleCmdFunc",
		"Start_", "int64", "Start__=", "Start_AB=A_B", "Start_Ab=AB", "Start_Big=Big",
	}
	if !slices.Equal(got, want) {
		t.Errorf("names\n%q\nwant\n%q", got, want)
	}
}
