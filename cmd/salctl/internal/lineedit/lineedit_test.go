package lineedit

import (
	"errors"
	"io"
	"slices"
	"strings"
	"testing"
)

func TestCompleterEndings(t *testing.T) {
	c := completer(func(line string) []string {
		if strings.Contains(line, " ") {
			return []string{"int0=", "int1=", "string0="}
		}
		return []string{"start ", "standby ", "setScalars "}
	})
	cases := []struct {
		line string
		want []string
		n    int
	}{
		{"sta", []string{"rt ", "ndby "}, 3},
		{"", []string{"start ", "standby ", "setScalars "}, 0},
		{"setScalars in", []string{"t0=", "t1="}, 2},
		{"setScalars int0=3 s", []string{"tring0="}, 1},
		{"x", nil, 1},
	}
	for _, cs := range cases {
		got, n := c.Do([]rune(cs.line), len([]rune(cs.line)))
		var gs []string
		for _, g := range got {
			gs = append(gs, string(g))
		}
		if !slices.Equal(gs, cs.want) || n != cs.n {
			t.Errorf("Do(%q) = %q, %d; want %q, %d", cs.line, gs, n, cs.want, cs.n)
		}
	}
}

func TestPlain(t *testing.T) {
	var out strings.Builder
	p := NewPlain(strings.NewReader("start\r\n\nenable"), &out)
	var lines []string
	for {
		l, err := p.ReadLine()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, l)
	}
	if !slices.Equal(lines, []string{"start", "", "enable"}) {
		t.Errorf("lines %q", lines)
	}
	if p.Output() != io.Writer(&out) || p.Close() != nil {
		t.Error("Output is not the writer given, or Close failed")
	}
}
