package validator

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"
	"sync"

	"podspec.dev/podspec/finding"
	"podspec.dev/podspec/internal/filetype"
	"podspec.dev/podspec/manifest"
	"podspec.dev/podspec/spec"
)

// StdinName is the file name results from standard input ("-") carry.
const StdinName = "<stdin>"

// job is one unit of work: one document (segment) of a file, or a whole file that failed
// before it could be split (unreadable, too large). first and last mark a file's first and
// last job, so that the emitter can count files and stop after a failing file.
type job struct {
	seg         *manifest.Segment
	results     []*Result // results known without validating (stream limits)
	err         error     // an I/O error
	first, last bool
}

// output is what a worker made of one job.
type output struct {
	job
	results []*Result
}

// batch is a run of consecutive jobs handed to a worker at once: small manifests cost less to
// validate than to hand from goroutine to goroutine one by one.
type batch struct {
	seq  int
	jobs []job
	outs []output
}

// Batches close at batchJobs jobs or batchBytes bytes of input, whichever comes first.
const (
	batchJobs  = 16
	batchBytes = 64 << 10
)

// Run validates every path and calls emit with each document's result, in source order: paths
// in the order given, directories walked in lexical order (only *.yaml, *.yml and *.json;
// hidden directories and OCI image layouts are skipped), documents in file order. "-" reads
// standard input. Documents are validated in parallel, also the documents of one file.
//
// Problems reading inputs (missing files, permissions) do not stop the run; they come back
// joined in the error, and the summary counts only what was read. With FailFast, Run stops
// after the first file that has an unsuppressed error. An error from emit stops the run and is
// returned.
func (v *Validator) Run(ctx context.Context, paths []string, stdin io.Reader, emit func(*Result) error) (Summary, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	workers := v.opts.Workers
	p := &pipeline{
		v: v, ctx: ctx, cancel: cancel,
		jobs:    make(chan batch),
		outputs: make(chan batch, workers),
		// slots bounds the batches between reading and emission, so memory stays bounded
		// however many files and documents there are and whatever order workers finish in.
		slots: make(chan struct{}, workers*maxInFlightPerCPU),
	}
	readerDone := make(chan struct{})
	go func() {
		defer close(readerDone)
		p.read(paths, stdin)
	}()
	p.validate(workers)
	e := emitter{pipeline: p, emit: emit}
	e.run()
	<-readerDone
	if e.err != nil {
		return e.sum, e.err
	}
	return e.sum, errors.Join(p.ioErrs...)
}

// pipeline is one Run's three stages and what joins them: the reader cuts the inputs into
// batches of jobs (read), workers validate them (validate), and the emitter hands the results
// on in source order (emitter), every stage stopping when ctx is cancelled.
type pipeline struct {
	v       *Validator
	ctx     context.Context
	cancel  context.CancelFunc
	jobs    chan batch
	outputs chan batch
	slots   chan struct{}

	ioMu   sync.Mutex
	ioErrs []error

	// The reader's batch being filled, and the next batch's sequence number.
	seq      int
	cur      []job
	curBytes int
}

// addIOErr records a problem reading an input; the run goes on.
func (p *pipeline) addIOErr(err error) {
	p.ioMu.Lock()
	p.ioErrs = append(p.ioErrs, err)
	p.ioMu.Unlock()
}

// read walks the paths in order, reads each file and cuts it into documents, sending them in
// batches; it closes jobs when done or cancelled.
func (p *pipeline) read(paths []string, stdin io.Reader) {
	defer close(p.jobs)
	defer p.flush()
	lim := p.v.opts.Limits
	for _, in := range paths {
		if in == "-" {
			if !p.readStdin(stdin) {
				return
			}
			continue
		}
		err := walk(in, p.v.opts.Exclude, p.v.opts.Skipped, func(name string) bool {
			data, large, err := readOrOpen(name, lim.MaxBytes, streamAbove)
			var big *TooLargeError
			switch {
			case large != nil:
				defer large.Close()
				return p.stream(name, large)
			case errors.As(err, &big):
				return p.send(job{results: []*Result{tooLarge(big)}, first: true, last: true})
			case err != nil:
				return p.send(job{err: err, first: true, last: true})
			}
			return p.file(name, data)
		})
		if err != nil {
			p.addIOErr(err)
		}
		if p.ctx.Err() != nil {
			return
		}
	}
}

// readStdin reads standard input whole when it is small (as a file is), else one document at a
// time; false when the run stopped.
func (p *pipeline) readStdin(stdin io.Reader) bool {
	data, rest, err := readHead(stdin, StdinName, p.v.opts.Limits.MaxBytes, streamAbove)
	var big *TooLargeError
	switch {
	case rest != nil:
		return p.stream(StdinName, rest)
	case errors.As(err, &big):
		return p.send(job{results: []*Result{tooLarge(big)}, first: true, last: true})
	case err != nil:
		p.addIOErr(fmt.Errorf("read stdin: %w", err))
		return true
	}
	return p.file(StdinName, data)
}

// file cuts a file read whole into its documents and sends them; false when the run stopped.
func (p *pipeline) file(name string, data []byte) bool {
	segs, fs := manifest.Split(name, data, p.v.opts.Limits)
	extra := p.v.streamFindings(name, fs)
	if len(segs) == 0 {
		return p.send(job{results: extra, first: true, last: true})
	}
	for i := range segs {
		j := job{seg: &segs[i], first: i == 0, last: i == len(segs)-1 && len(extra) == 0}
		if !p.send(j) {
			return false
		}
	}
	if len(extra) > 0 {
		return p.send(job{results: extra, last: true})
	}
	return true
}

// stream sends the documents of a large file or input one at a time, as they are read; false
// when the run stopped.
func (p *pipeline) stream(name string, r io.Reader) bool {
	st := manifest.NewStream(name, r, p.v.opts.Limits)
	seg, ok := st.Next()
	first := true
	for ok {
		cur := seg
		seg, ok = st.Next()
		last := !ok && len(st.Findings()) == 0 && st.Err() == nil
		if !p.send(job{seg: &cur, first: first, last: last}) {
			return false
		}
		first = false
	}
	if err := st.Err(); err != nil {
		return p.send(job{err: err, first: first, last: true})
	}
	extra := p.v.streamFindings(name, st.Findings())
	if first || len(extra) > 0 {
		return p.send(job{results: extra, first: first, last: true})
	}
	return true
}

// send adds a job to the batch being filled, and hands the batch on once it is full; false when
// the run stopped.
func (p *pipeline) send(j job) bool {
	p.cur = append(p.cur, j)
	if j.seg != nil {
		p.curBytes += len(j.seg.Data)
	}
	if len(p.cur) >= batchJobs || p.curBytes >= batchBytes {
		return p.flush()
	}
	return true
}

// flush hands the batch being filled to the workers once a slot is free; false when the run
// stopped.
func (p *pipeline) flush() bool {
	if len(p.cur) == 0 {
		return true
	}
	select {
	case p.slots <- struct{}{}:
	case <-p.ctx.Done():
		return false
	}
	b := batch{seq: p.seq, jobs: p.cur}
	p.seq++
	p.cur, p.curBytes = nil, 0
	select {
	case p.jobs <- b:
		return true
	case <-p.ctx.Done():
		return false
	}
}

// validate starts the workers: each validates one batch at a time, one document at a time, and
// the last to finish closes outputs.
func (p *pipeline) validate(workers int) {
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := range p.jobs {
				b.outs = make([]output, len(b.jobs))
				for i, j := range b.jobs {
					b.outs[i] = output{job: j, results: j.results}
					if j.seg != nil {
						b.outs[i].results = p.v.segment(*j.seg, nil)
					}
				}
				b.jobs = nil
				select {
				case p.outputs <- b:
				case <-p.ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		wg.Wait()
		close(p.outputs)
	}()
}

// emitter hands the workers' results to emit in sequence order, counting them; it stops the
// run when emit fails, or after a file with an error under FailFast.
type emitter struct {
	*pipeline
	emit       func(*Result) error
	sum        Summary
	err        error // emit's
	stopped    bool
	fileFailed bool
}

// run emits every batch once all batches before it are emitted.
func (e *emitter) run() {
	pending := map[int]batch{}
	next := 0
	for b := range e.outputs {
		pending[b.seq] = b
		for !e.stopped {
			b, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-e.slots
			for _, o := range b.outs {
				if e.stopped {
					break
				}
				e.one(o)
			}
		}
	}
}

// one emits one job's results.
func (e *emitter) one(o output) {
	if o.err != nil {
		e.addIOErr(o.err)
		return
	}
	if o.first {
		e.sum.Files++
		e.fileFailed = false
	}
	for _, r := range o.results {
		if r.Kind != "" || hasDocumentFinding(r) {
			e.sum.Documents++
		}
		e.sum.Add(r)
		e.fileFailed = e.fileFailed || hasError(r)
		if err := e.emit(r); err != nil {
			e.err = err
			e.stopped = true
			e.cancel()
			return
		}
	}
	if o.last && e.fileFailed && e.v.opts.FailFast {
		e.stopped = true
		e.cancel()
	}
}

// hasDocumentFinding tells a result for a document that failed to decode (it counts as a
// document) from a result for a file that had no documents at all (a size-limit failure).
func hasDocumentFinding(r *Result) bool {
	for _, f := range r.Findings {
		if f.Pos.Line > 0 {
			return true
		}
	}
	return false
}

func hasError(r *Result) bool { return countErrors(r.Findings) > 0 }

// tooLarge is the result of an input over the size limit: one MAN-007 finding.
func tooLarge(e *TooLargeError) *Result {
	return &Result{File: e.Name, Findings: []finding.Finding{{
		Rule: spec.MAN007, Severity: spec.SeverityOf(spec.MAN007), Engine: engineDecode,
		Message: e.Detail(), Pos: finding.Position{File: e.Name},
	}}}
}

// walk calls send for path if it is not a directory (a file named explicitly is read whatever
// its type, a named pipe too), or for every manifest file under it if it is a directory, in
// lexical order; it stops when send returns false. Under a directory only regular files (or
// symbolic links to them) are read: a named pipe, socket or device named *.yaml could block the
// walk or never end, so it is passed to skipped (when not nil) with the reason instead.
//
// A file or directory under path that an exclude pattern matches is left out: a pattern
// without a '/' is matched against the entry's name (kustomization.yaml, Chart.yaml, charts),
// one with a '/' against its path relative to path (templates/*.yaml), as path.Match does.
func walk(path string, exclude []string, skipped func(name, why string), send func(string) bool) error {
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
		if p != path && excluded(path, p, d.Name(), exclude) {
			if d.IsDir() {
				return filepath.SkipDir
			}
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
		if why := notRegular(p, d); why != "" {
			if skipped != nil {
				skipped(p, why)
			}
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

// excluded reports whether an exclude pattern matches the entry p (named name) under root.
func excluded(root, p, name string, patterns []string) bool {
	for _, pat := range patterns {
		target := name
		if strings.Contains(pat, "/") {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				continue
			}
			target = filepath.ToSlash(rel)
		}
		if ok, _ := path.Match(pat, target); ok {
			return true
		}
	}
	return false
}

// notRegular says why a directory entry is not read as a manifest ("" when it is a regular
// file, or a symbolic link to one).
func notRegular(p string, d fs.DirEntry) string {
	mode := d.Type()
	if mode&fs.ModeSymlink != 0 {
		st, err := os.Stat(p)
		if err != nil || st.Mode().IsRegular() {
			return "" // reading it reports a dangling link as any unreadable file
		}
		return "a symbolic link to " + filetype.Name(st.Mode()) + ", not a regular file"
	}
	if mode.IsRegular() {
		return ""
	}
	return filetype.Name(mode) + ", not a regular file"
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

// streamAbove is the file size above which a file is read one document at a time instead of
// whole: memory stays bounded by the largest document however large the file is, and smaller
// files (nearly all manifests) are read with one system call.
const streamAbove = 1 << 20
