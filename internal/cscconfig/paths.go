package cscconfig

import (
	"os"
	"path/filepath"
	"strings"
)

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

func isFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular()
}

// pyJoin is pathlib's dir / name: an absolute name replaces dir; empty and
// "." components and a trailing slash are dropped; ".." is kept as written.
func pyJoin(dir, name string) string {
	p := name
	if !strings.HasPrefix(name, "/") {
		p = dir + "/" + name
	}
	abs := strings.HasPrefix(p, "/")
	var parts []string
	for _, c := range strings.Split(p, "/") {
		if c != "" && c != "." {
			parts = append(parts, c)
		}
	}
	s := strings.Join(parts, "/")
	if abs {
		return "/" + s
	}
	if s == "" {
		return "."
	}
	return s
}

// resolve is Path.resolve(): absolute, with the symlinks of the part that
// exists resolved.
func resolve(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return p
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	var rest []string
	for cur := abs; ; {
		parent := filepath.Dir(cur)
		rest = append([]string{filepath.Base(cur)}, rest...)
		if parent == cur {
			return abs
		}
		if r, err := filepath.EvalSymlinks(parent); err == nil {
			return filepath.Join(append([]string{r}, rest...)...)
		}
		cur = parent
	}
}

// fileURI is Path.as_uri() of an absolute path: "file://" and the path
// percent-encoded, leaving letters, digits, "_.-~" and "/".
func fileURI(p string) string {
	const hex = "0123456789ABCDEF"
	var b strings.Builder
	b.WriteString("file://")
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("_.-~/", c) >= 0:
			b.WriteByte(c)
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}
