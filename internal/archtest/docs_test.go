package archtest

import (
	"go/ast"
	"go/doc"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// publicPackages are the module's packages an application imports, by
// directory relative to the module root.
var publicPackages = []string{"sal", "sal/saltest", "sal/salprom", "topics", "remote", "controller", "validate", "xml", "lfa"}

// root is the module root, two levels above this package.
func root(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// parsePackage parses the non-test Go files of dir.
func parsePackage(t *testing.T, dir string) (*token.FileSet, []*ast.File) {
	t.Helper()
	fset := token.NewFileSet()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []*ast.File
	for _, e := range entries {
		n := e.Name()
		if !strings.HasSuffix(n, ".go") || strings.HasSuffix(n, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, filepath.Join(dir, n), nil, parser.ParseComments)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return fset, files
}

// imports maps a file's import names to their paths.
func imports(f *ast.File) map[string]string {
	m := map[string]string{}
	for _, is := range f.Imports {
		p, _ := strconv.Unquote(is.Path.Value)
		name := p[strings.LastIndex(p, "/")+1:]
		if is.Name != nil {
			name = is.Name.Name
		}
		m[name] = p
	}
	return m
}

// TestPublicAPI_NoInternalTypes: no exported name of a public package is,
// or is declared with, a type of an internal package, whose docs and
// methods go doc and pkg.go.dev do not show to an application.
func TestPublicAPI_NoInternalTypes(t *testing.T) {
	r := root(t)
	for _, rel := range publicPackages {
		fset, files := parsePackage(t, filepath.Join(r, rel))
		for _, f := range files {
			imp := imports(f)
			check := func(what string, n ast.Node) {
				ast.Inspect(n, func(n ast.Node) bool {
					sel, ok := n.(*ast.SelectorExpr)
					if !ok {
						return true
					}
					id, ok := sel.X.(*ast.Ident)
					if !ok {
						return true
					}
					if p, ok := imp[id.Name]; ok && strings.Contains(p, "/internal/") {
						t.Errorf("%s: %s.%s names %s.%s: an application cannot read the docs of an internal package", fset.Position(sel.Pos()), rel, what, p, sel.Sel.Name)
					}
					return true
				})
			}
			for _, d := range f.Decls {
				switch d := d.(type) {
				case *ast.FuncDecl:
					if !d.Name.IsExported() || (d.Recv != nil && !exportedRecv(d.Recv)) {
						continue
					}
					check(d.Name.Name, d.Type)
				case *ast.GenDecl:
					for _, s := range d.Specs {
						switch s := s.(type) {
						case *ast.TypeSpec:
							if !s.Name.IsExported() {
								continue
							}
							if st, ok := s.Type.(*ast.StructType); ok {
								for _, fl := range st.Fields.List {
									if len(fl.Names) == 0 || fl.Names[0].IsExported() {
										check(s.Name.Name, fl.Type)
									}
								}
								continue
							}
							check(s.Name.Name, s.Type)
						case *ast.ValueSpec:
							for i, n := range s.Names {
								if !n.IsExported() {
									continue
								}
								if s.Type != nil {
									check(n.Name, s.Type)
								}
								if i < len(s.Values) {
									check(n.Name, s.Values[i])
								}
							}
						}
					}
				}
			}
		}
	}
}

func exportedRecv(fl *ast.FieldList) bool {
	if len(fl.List) == 0 {
		return false
	}
	e := fl.List[0].Type
	if st, ok := e.(*ast.StarExpr); ok {
		e = st.X
	}
	if ix, ok := e.(*ast.IndexExpr); ok {
		e = ix.X
	}
	id, ok := e.(*ast.Ident)
	return ok && id.IsExported()
}

// TestAliases_SayWhereDocumented: every type that sal (or another public
// package) names from another package says, in its doc comment, where its
// methods are documented ("go doc <import path>.<Type>"), and that type's
// exported methods and fields all have docs there.
func TestAliases_SayWhereDocumented(t *testing.T) {
	r := root(t)
	pkgs := map[string]*doc.Package{}
	load := func(rel string) *doc.Package {
		if p, ok := pkgs[rel]; ok {
			return p
		}
		fset, files := parsePackage(t, filepath.Join(r, rel))
		p, err := doc.NewFromFiles(fset, files, mod+"/"+rel)
		if err != nil {
			t.Fatal(err)
		}
		pkgs[rel] = p
		return p
	}
	n := 0
	for _, rel := range publicPackages {
		_, files := parsePackage(t, filepath.Join(r, rel))
		for _, f := range files {
			imp := imports(f)
			for _, d := range f.Decls {
				gd, ok := d.(*ast.GenDecl)
				if !ok || gd.Tok != token.TYPE {
					continue
				}
				for _, s := range gd.Specs {
					ts := s.(*ast.TypeSpec)
					sel, ok := ts.Type.(*ast.SelectorExpr)
					if !ts.Assign.IsValid() || !ok || !ts.Name.IsExported() {
						continue
					}
					id := sel.X.(*ast.Ident)
					path := imp[id.Name]
					if !strings.HasPrefix(path, mod+"/") {
						continue // a standard or third-party type
					}
					n++
					target := strings.TrimPrefix(path, mod+"/")
					text := ts.Doc.Text()
					if ts.Doc == nil && len(gd.Specs) == 1 {
						text = gd.Doc.Text()
					}
					if want := "go doc " + path + "." + sel.Sel.Name; !strings.Contains(strings.Join(strings.Fields(text), " "), want) {
						t.Errorf("%s.%s = %s.%s: its doc does not say %q", rel, ts.Name.Name, target, sel.Sel.Name, want)
					}
					undocumented(t, load(target), target, sel.Sel.Name)
				}
			}
		}
	}
	if n < 20 {
		t.Fatalf("only %d aliases of the module's types found", n)
	}
}

// undocumented reports the exported methods and fields of typ in p that
// have no doc comment.
func undocumented(t *testing.T, p *doc.Package, rel, typ string) {
	t.Helper()
	for _, dt := range p.Types {
		if dt.Name != typ {
			continue
		}
		if strings.TrimSpace(dt.Doc) == "" {
			t.Errorf("%s.%s has no doc", rel, typ)
		}
		for _, m := range dt.Methods {
			if strings.TrimSpace(m.Doc) == "" {
				t.Errorf("%s.%s.%s has no doc", rel, typ, m.Name)
			}
		}
		return
	}
	t.Errorf("%s.%s: no such type", rel, typ)
}

// TestGoDoc_ShowsMethods runs go doc on the methods an application calls
// most: each prints its signature and its doc.
func TestGoDoc_ShowsMethods(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go doc")
	}
	for _, q := range [][2]string{
		{"topics", "Reader.Get"},
		{"topics", "Writer.Write"},
		{"topics", "Domain.Tap"},
		{"remote", "Remote.Command"},
		{"controller", "CSC.HandleFunc"},
		{"controller", "Script.Checkpoint"},
		{"topics", "TypedReader.Next"},
		{"topics", "TypedWriter.Write"},
		{"examples/gen/example", "Remote.CmdSetScalars"},
		{"examples/gen/example", "CSC.HandleSetScalars"},
	} {
		out, err := exec.Command("go", "doc", mod+"/"+q[0], q[1]).CombinedOutput()
		name := q[1][strings.Index(q[1], ".")+1:]
		if err != nil || !strings.Contains(string(out), ") "+name+"(") || len(strings.Split(strings.TrimSpace(string(out)), "\n")) < 4 {
			t.Errorf("go doc %s %s: %v\n%s", q[0], q[1], err, out)
		}
	}
}
