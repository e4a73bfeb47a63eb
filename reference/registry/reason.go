package registry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"syscall"

	"github.com/google/go-containerregistry/pkg/v1/remote/transport"

	"podspec.dev/podspec/imageref"
)

// reason says in words why a pull failed (IMG-017).
func reason(ref imageref.Reference, err error) string {
	host := ref.Registry()
	var dnsErr *net.DNSError
	var terr *transport.Error
	var netErr net.Error
	switch {
	case errors.Is(err, errDigestMismatch):
		return fmt.Sprintf("content from registry %s does not match its digest", host)
	case errors.Is(err, errPlainHTTP):
		return fmt.Sprintf("registry %s is reachable only over plain HTTP, which is not allowed for it", host)
	case errors.As(err, &dnsErr):
		return fmt.Sprintf("unknown registry host %s", host)
	case errors.Is(err, syscall.ECONNREFUSED):
		return fmt.Sprintf("registry %s refused the connection", host)
	case errors.As(err, &terr):
		switch terr.StatusCode {
		case http.StatusUnauthorized, http.StatusForbidden:
			return fmt.Sprintf("registry %s refused the credentials (%d %s)", host, terr.StatusCode, http.StatusText(terr.StatusCode))
		case http.StatusNotFound:
			return fmt.Sprintf("registry %s has no image %s", host, ref)
		}
		return fmt.Sprintf("registry %s answered %d %s", host, terr.StatusCode, http.StatusText(terr.StatusCode))
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return fmt.Sprintf("registry %s stopped answering", host)
	case errors.Is(err, context.Canceled):
		return "the pull was cancelled"
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return fmt.Sprintf("registry %s cut the transfer off", host)
	case errors.Is(err, syscall.ENOSPC):
		return "the image store's disk is full"
	case errors.Is(err, os.ErrPermission):
		return "the image store is not writable"
	}
	return fmt.Sprintf("pulling from registry %s failed", host)
}
