package v1

import (
	"bytes"
	"encoding/json"

	"podspec.dev/podspec/finding"
)

// ContractVersion is the version of docs/runtime-interface.md these types describe; `version`
// reports it as contractVersion. A harness for 1.x accepts a runtime reporting 1.y, y ≥ 0.
const ContractVersion = "1.2"

// Exit statuses of the runtime contract (section 3). "A runtime MUST NOT exit 0 when it did not
// do what was asked, and MUST NOT use 1 for usage errors. The exit status and code MUST agree".
const (
	ExitOK                 = 0
	ExitFailed             = 1 // InvalidManifest or Failed
	ExitUsage              = 2
	ExitIO                 = 3
	ExitNotFound           = 4
	ExitConflict           = 5
	ExitRuntimeUnavailable = 6
	ExitTimeout            = 7
)

// ErrorCode is the code of an error report (section 3).
type ErrorCode string

// Error codes (section 3), with the exit status each goes with.
const (
	// CodeInvalidManifest (exit 1): the manifest does not validate; the report's findings list
	// every error finding; nothing was created.
	CodeInvalidManifest ErrorCode = "InvalidManifest"
	// CodeFailed (exit 1): the operation was valid but could not be carried out; nothing
	// half-made remains.
	CodeFailed ErrorCode = "Failed"
	// CodeUsage (exit 2): unknown verb or flag, missing or extra argument, malformed flag value.
	CodeUsage ErrorCode = "Usage"
	// CodeIO (exit 3): the state directory or a manifest file cannot be read or written.
	CodeIO ErrorCode = "IO"
	// CodeNotFound (exit 4): unknown pod, container, notification or notifier.
	CodeNotFound ErrorCode = "NotFound"
	// CodeConflict (exit 5): name already in use, or not allowed in the current state.
	CodeConflict ErrorCode = "Conflict"
	// CodeRuntimeUnavailable (exit 6): the OCI runtime binary is missing or broken.
	CodeRuntimeUnavailable ErrorCode = "RuntimeUnavailable"
	// CodeTimeout (exit 7): `wait --timeout` expired before the pod became terminal.
	CodeTimeout ErrorCode = "Timeout"
)

// ErrorCodes lists every error code in the order of section 3's table.
var ErrorCodes = []ErrorCode{CodeInvalidManifest, CodeFailed, CodeUsage, CodeIO, CodeNotFound,
	CodeConflict, CodeRuntimeUnavailable, CodeTimeout}

// ExitStatus is the exit status that goes with the code, or ExitFailed for a code the contract
// does not define.
func (c ErrorCode) ExitStatus() int {
	switch c {
	case CodeUsage:
		return ExitUsage
	case CodeIO:
		return ExitIO
	case CodeNotFound:
		return ExitNotFound
	case CodeConflict:
		return ExitConflict
	case CodeRuntimeUnavailable:
		return ExitRuntimeUnavailable
	case CodeTimeout:
		return ExitTimeout
	}
	return ExitFailed
}

// ErrorReport is the error a failing verb prints with --error-format json, as the one line
// {"error":{"code":…,"message":…,"findings":[…]}} on stderr (section 3). Findings are present,
// possibly empty, exactly for CodeInvalidManifest; each is a finding as `podspec validate -o
// json` prints it.
type ErrorReport struct {
	Code     ErrorCode         `json:"code"`
	Message  string            `json:"message"`
	Findings []finding.Finding `json:"findings,omitempty"`
}

// errorLine is the one-line envelope of an error report.
type errorLine struct {
	Error *ErrorReport `json:"error"`
}

// Line renders the report as the contract's stderr line, without the newline: findings are
// written (as [] when there are none) for InvalidManifest and left out otherwise.
func (r ErrorReport) Line() []byte {
	if r.Code == CodeInvalidManifest && r.Findings == nil {
		r.Findings = []finding.Finding{}
	}
	var out struct {
		Error struct {
			Code     ErrorCode          `json:"code"`
			Message  string             `json:"message"`
			Findings *[]finding.Finding `json:"findings,omitempty"`
		} `json:"error"`
	}
	out.Error.Code, out.Error.Message = r.Code, r.Message
	if r.Code == CodeInvalidManifest {
		out.Error.Findings = &r.Findings
	}
	b, err := json.Marshal(out)
	if err != nil {
		// Only a finding holding a value JSON cannot carry gets here; keep the code and message.
		b, _ = json.Marshal(errorLine{Error: &ErrorReport{Code: r.Code, Message: r.Message}})
	}
	return b
}

// LastErrorReport returns the report on the last stderr line that is one (a runtime MAY print
// other lines before it), or nil when no line is.
func LastErrorReport(stderr []byte) *ErrorReport {
	lines := bytes.Split(bytes.TrimSpace(stderr), []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var l errorLine
		if json.Unmarshal(lines[i], &l) == nil && l.Error != nil {
			return l.Error
		}
	}
	return nil
}
