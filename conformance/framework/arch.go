package framework

import "runtime"

// goarch is the OCI architecture name of this machine (Go's names are OCI's).
func goarch() string { return runtime.GOARCH }
