package salgen

// TEMPORARY until (*xml.Definitions).Files lands from branch wire.

import (
	"io/fs"
	"os"
	"path/filepath"
	"runtime"

	salxml "github.com/lsst-sal/salgo/xml"
)

func defsFiles(d *salxml.Definitions) (fs.FS, fs.FS) {
	if d.Dir == "(embedded)" {
		_, file, _, _ := runtime.Caller(0)
		return os.DirFS(filepath.Join(filepath.Dir(file), "../../xml/example")), nil
	}
	var avsc fs.FS
	if st, err := os.Stat(filepath.Join(filepath.Dir(d.Dir), "interfaces")); err == nil && st.IsDir() {
		avsc = os.DirFS(filepath.Join(filepath.Dir(d.Dir), "interfaces"))
	}
	return os.DirFS(d.Dir), avsc
}
