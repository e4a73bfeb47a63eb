package main

import (
	"go/ast"
	"go/build"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"
)

// Every verb registered by a file that another OS does not build is in runtimeVerbs, which
// runtime_other.go registers there as "Linux only"; every other verb builds everywhere. The
// file of each verb is found from its constructor's name.
func TestRuntimeVerbsAreTheLinuxOnlyVerbs(t *testing.T) {
	fset := token.NewFileSet()
	fileOf := map[string]string{} // constructor name -> file
	ents, err := os.ReadDir(".")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if !strings.HasSuffix(e.Name(), ".go") || strings.HasSuffix(e.Name(), "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, e.Name(), nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			if fd, ok := d.(*ast.FuncDecl); ok && fd.Recv == nil {
				fileOf[fd.Name.Name] = e.Name()
			}
		}
	}
	elsewhere := map[string]*build.Context{}
	for _, goos := range []string{"darwin", "windows"} {
		c := build.Default
		c.GOOS, c.GOARCH = goos, "amd64"
		elsewhere[goos] = &c
	}
	seen := map[string]bool{}
	for _, newCmd := range verbs {
		fn := runtime.FuncForPC(reflect.ValueOf(newCmd).Pointer()).Name()
		fn = fn[strings.LastIndexByte(fn, '.')+1:]
		file, ok := fileOf[fn]
		if !ok {
			t.Errorf("verb constructor %s: no file declares it", fn)
			continue
		}
		name := strings.Fields(newCmd().Use)[0]
		seen[name] = true
		for goos, c := range elsewhere {
			builds, err := c.MatchFile(".", file)
			if err != nil {
				t.Fatal(err)
			}
			if listed := slices.Contains(runtimeVerbs, name); builds == listed {
				t.Errorf("verb %s (%s): builds on %s %v, listed in runtimeVerbs %v; want exactly one", name, file, goos, builds, listed)
			}
		}
	}
	for _, name := range runtimeVerbs {
		if !seen[name] {
			t.Errorf("runtimeVerbs lists %s, which the Linux build does not register", name)
		}
	}
}

// The command builds for the OSes manifest writers use (their editor and CI validation).
func TestTheCommandBuildsForMacOSAndWindows(t *testing.T) {
	if testing.Short() {
		t.Skip("cross-compiles the command")
	}
	for _, goos := range []string{"darwin", "windows"} {
		cmd := exec.Command("go", "build", "-o", os.DevNull, ".")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH=amd64", "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Errorf("GOOS=%s go build ./cmd/podspec: %v\n%s", goos, err, out)
		}
	}
}
