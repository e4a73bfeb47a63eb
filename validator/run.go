package validator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/report"
)

// StdinName is the file name results from standard input ("-") carry.
const StdinName = "<stdin>"

// input is one file to validate: its name and, for standard input, its content.
type input struct {
	seq   int
	name  string
	data  []byte // set for stdin only; files are read by the workers
	stdin bool
}

// output is what a worker made of one input.
type output struct {
	seq     int
	results []*report.Result
	err     error
}

// Run validates every path and calls emit with each document's result, in source order: paths
// in the order given, directories walked in lexical order (only *.yaml, *.yml and *.json;
// hidden directories and OCI image layouts are skipped), documents in file order. "-" reads stdin. Problems reading
// inputs (missing files, permissions) do not stop the run; they come back joined in the error,
// and the summary counts only what was read. With FailFast, Run stops emitting after the
// first file that has an unsuppressed error. An error from emit stops the run and is returned.
func (v *Validator) Run(ctx context.Context, paths []string, stdin io.Reader, emit func(*report.Result) error) (report.Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	workers := v.opts.Workers
	inputs := make(chan input)
	outputs := make(chan output, workers)
	// slots bounds the files between discovery and emission, so memory stays bounded however
	// many files there are and whatever order workers finish in.
	slots := make(chan struct{}, workers*maxInFlightPerCPU)

	var ioErrs []error
	var ioMu sync.Mutex
	addIOErr := func(err error) {
		ioMu.Lock()
		ioErrs = append(ioErrs, err)
		ioMu.Unlock()
	}

	// Discovery: one goroutine walks the paths in order and numbers the inputs.
	discoveryDone := make(chan struct{})
	go func() {
		defer close(discoveryDone)
		defer close(inputs)
		seq := 0
		send := func(in input) bool {
			select {
			case slots <- struct{}{}:
			case <-ctx.Done():
				return false
			}
			in.seq = seq
			seq++
			select {
			case inputs <- in:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for _, p := range paths {
			if p == "-" {
				data, err := readLimited(stdin, v.opts.Limits.MaxBytes)
				if err != nil {
					addIOErr(fmt.Errorf("read stdin: %w", err))
					continue
				}
				if !send(input{name: StdinName, data: data, stdin: true}) {
					return
				}
				continue
			}
			err := walk(p, func(file string) bool { return send(input{name: file}) })
			if err != nil {
				addIOErr(err)
			}
			if ctx.Err() != nil {
				return
			}
		}
	}()

	// Workers: validate one file each at a time.
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for in := range inputs {
				out := output{seq: in.seq}
				out.results, out.err = v.input(in)
				select {
				case outputs <- out:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(outputs)
	}()

	// Emission, in sequence order.
	var sum report.Summary
	var emitErr error
	pending := map[int]output{}
	next := 0
	stopped := false
	for out := range outputs {
		pending[out.seq] = out
		for !stopped {
			o, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-slots
			if o.err != nil {
				addIOErr(o.err)
				continue
			}
			sum.Files++
			failed := false
			for _, r := range o.results {
				if r.Kind != "" || hasDocumentFinding(r) {
					sum.Documents++
				}
				sum.Add(r)
				failed = failed || hasError(r)
				if err := emit(r); err != nil {
					emitErr = err
					stopped = true
					cancel()
					break
				}
			}
			if failed && v.opts.FailFast {
				stopped = true
				cancel()
			}
		}
	}
	<-discoveryDone
	if emitErr != nil {
		return sum, emitErr
	}
	return sum, errors.Join(ioErrs...)
}

// hasDocumentFinding tells a result for a document that failed to decode (it counts as a
// document) from a result for a file that had no documents at all (a size-limit failure).
func hasDocumentFinding(r *report.Result) bool {
	for _, f := range r.Findings {
		if f.Pos.Line > 0 {
			return true
		}
	}
	return false
}

func hasError(r *report.Result) bool {
	for _, f := range r.Findings {
		if f.Severity == finding.Error && !f.Suppressed {
			return true
		}
	}
	return false
}

// input reads (if needed) and validates one file.
func (v *Validator) input(in input) ([]*report.Result, error) {
	if in.stdin {
		return v.Bytes(in.name, in.data), nil
	}
	data, tooBig, err := readFile(in.name, v.opts.Limits.MaxBytes)
	if err != nil {
		return nil, err
	}
	if tooBig > 0 {
		return []*report.Result{{File: in.name, Findings: []finding.Finding{{
			Rule: ruleLimit, Severity: finding.Error, Engine: engineDecode,
			Message: fmt.Sprintf("file is %d bytes, over the limit of %d bytes", tooBig, v.opts.Limits.MaxBytes),
			Pos:     finding.Position{File: in.name},
		}}}}, nil
	}
	return v.Bytes(in.name, data), nil
}

// readFile reads a file unless it is larger than max bytes (then tooBig is its size).
func readFile(name string, max int64) (data []byte, tooBig int64, err error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	size := int64(0)
	if st, err := f.Stat(); err == nil && st.Mode().IsRegular() {
		size = st.Size()
		if max > 0 && size > max {
			return nil, size, nil
		}
	}
	var r io.Reader = f
	if max > 0 {
		r = io.LimitReader(f, max+1)
	}
	var buf bytes.Buffer
	buf.Grow(int(size) + bytes.MinRead)
	if _, err := buf.ReadFrom(r); err != nil {
		return nil, 0, fmt.Errorf("read %s: %w", name, err)
	}
	if max > 0 && int64(buf.Len()) > max {
		return nil, int64(buf.Len()), nil
	}
	return buf.Bytes(), 0, nil
}

// readLimited reads all of r, but at most max+1 bytes (so that "too big" can be detected
// without reading an endless stream into memory).
func readLimited(r io.Reader, max int64) ([]byte, error) {
	if r == nil {
		return nil, errors.New("no input")
	}
	if max > 0 {
		r = io.LimitReader(r, max+1)
	}
	return io.ReadAll(r)
}

// walk calls send for path if it is a file, or for every manifest file under it if it is a
// directory, in lexical order; it stops when send returns false.
func walk(path string, send func(string) bool) error {
	st, err := os.Stat(path)
	if err != nil {
		return err
	}
	if !st.IsDir() {
		send(path)
		return nil
	}
	var errs []error
	stop := errors.New("stop")
	err = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			errs = append(errs, fmt.Errorf("walk %s: %w", p, err))
			return nil
		}
		if d.IsDir() {
			if p != path && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if isImageLayout(p) {
				return filepath.SkipDir // an OCI image layout (index.json, blobs) holds no manifests
			}
			return nil
		}
		if !isManifestName(d.Name()) {
			return nil
		}
		if !send(p) {
			return stop
		}
		return nil
	})
	if err != nil && !errors.Is(err, stop) {
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// isImageLayout reports whether dir is an OCI image layout (it has an oci-layout file), such as
// the images examples refer to with oci: references.
func isImageLayout(dir string) bool {
	st, err := os.Stat(filepath.Join(dir, "oci-layout"))
	return err == nil && st.Mode().IsRegular()
}

func isManifestName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return false
}
