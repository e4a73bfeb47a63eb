package registry

import (
	"context"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
)

// progress prints, once a second after the first, how much of an image's layers a pull holds.
type progress struct {
	done  atomic.Int64
	total int64
	quit  chan struct{}
	ended chan struct{}
}

func (s *Store) startProgress(image string, m *v1.Manifest) *progress {
	p := &progress{quit: make(chan struct{}), ended: make(chan struct{})}
	for _, l := range m.Layers {
		p.total += l.Size
	}
	w := s.Progress
	go func() {
		defer close(p.ended)
		if w == nil {
			return
		}
		t := time.NewTicker(time.Second)
		defer t.Stop()
		printed := false
		for {
			select {
			case <-p.quit:
				if printed {
					fmt.Fprintf(w, "\rpull %s: %s of %s, done\n", image, mb(p.done.Load()), mb(p.total))
				}
				return
			case <-t.C:
				printed = true
				fmt.Fprintf(w, "\rpull %s: %s of %s", image, mb(p.done.Load()), mb(p.total))
			}
		}
	}()
	return p
}

func (p *progress) add(n int64) { p.done.Add(n) }

func (p *progress) stop() {
	close(p.quit)
	<-p.ended
}

// reader counts what passes through r, and stops at ctx's end.
func (p *progress) reader(ctx context.Context, r io.Reader) io.Reader {
	return &countingReader{ctx: ctx, r: r, p: p}
}

type countingReader struct {
	ctx context.Context
	r   io.Reader
	p   *progress
}

func (c *countingReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	n, err := c.r.Read(b)
	c.p.add(int64(n))
	return n, err
}

func mb(n int64) string { return fmt.Sprintf("%.1f MB", float64(n)/1e6) }
