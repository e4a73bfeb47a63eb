package field

import (
	"fmt"
	"strings"

	"podspec.dev/podspec/spec"
)

// ErrorType classifies an error, as Kubernetes' field.ErrorType does.
type ErrorType string

// Error types.
const (
	ErrorTypeRequired     ErrorType = "Required"
	ErrorTypeInvalid      ErrorType = "Invalid"
	ErrorTypeNotSupported ErrorType = "NotSupported"
	ErrorTypeDuplicate    ErrorType = "Duplicate"
	ErrorTypeForbidden    ErrorType = "Forbidden"
	ErrorTypeNotFound     ErrorType = "NotFound"
	ErrorTypeTooMany      ErrorType = "TooMany"
)

// Error is one validation error at a path, tagged with the rule (requirement ID) it enforces.
type Error struct {
	Type     ErrorType
	Field    *Path
	BadValue any
	Detail   string
	Rule     string
	// OnKey points the finding at the map key of Field rather than at its value.
	OnKey bool
}

// Error renders "path: detail".
func (e *Error) Error() string { return e.Field.String() + ": " + e.Message() }

// Message renders the error without its path.
func (e *Error) Message() string {
	var b strings.Builder
	switch e.Type {
	case ErrorTypeRequired:
		b.WriteString("required")
	case ErrorTypeDuplicate:
		b.WriteString("duplicate")
		if e.BadValue != nil {
			fmt.Fprintf(&b, " %s", quote(e.BadValue))
		}
	case ErrorTypeNotSupported, ErrorTypeInvalid:
		if e.BadValue != nil {
			fmt.Fprintf(&b, "invalid value %s", quote(e.BadValue))
		} else {
			b.WriteString("invalid")
		}
	case ErrorTypeForbidden:
		b.WriteString("forbidden")
	case ErrorTypeNotFound:
		b.WriteString("not found")
		if e.BadValue != nil {
			fmt.Fprintf(&b, ": %s", quote(e.BadValue))
		}
	case ErrorTypeTooMany:
		b.WriteString("too many")
	}
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func quote(v any) string {
	if s, ok := v.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%v", v)
}

// ErrorList is a list of errors; a nil list means valid.
type ErrorList []*Error

func newErr(t ErrorType, rule string, p *Path, v any, detail string) *Error {
	return &Error{Type: t, Field: p, BadValue: v, Detail: detail, Rule: rule}
}

// Required reports a missing field.
func Required(rule string, p *Path, detail string) *Error {
	return newErr(ErrorTypeRequired, rule, p, nil, detail)
}

// Invalid reports a bad value.
func Invalid(rule string, p *Path, v any, detail string) *Error {
	return newErr(ErrorTypeInvalid, rule, p, v, detail)
}

// NotSupported reports a value outside an enumeration.
func NotSupported(rule string, p *Path, v any, valid []string) *Error {
	return newErr(ErrorTypeNotSupported, rule, p, v, "must be one of "+strings.Join(valid, ", "))
}

// Duplicate reports a value that must be unique.
func Duplicate(rule string, p *Path, v any, detail string) *Error {
	return newErr(ErrorTypeDuplicate, rule, p, v, detail)
}

// Forbidden reports a field that must not be set here.
func Forbidden(rule string, p *Path, detail string) *Error {
	return newErr(ErrorTypeForbidden, rule, p, nil, detail)
}

// NotFound reports a reference to something that does not exist.
func NotFound(rule string, p *Path, v any, detail string) *Error {
	return newErr(ErrorTypeNotFound, rule, p, v, detail)
}

// TooMany reports a list that is too long.
func TooMany(rule string, p *Path, detail string) *Error {
	return newErr(ErrorTypeTooMany, rule, p, nil, detail)
}

// Severity is the severity of the error's rule in the rule catalog: an error under a MUST
// requirement, a warning under a SHOULD one.
func (e *Error) Severity() spec.Severity { return spec.SeverityOf(e.Rule) }

// AtKey makes the error point at the field's key rather than its value.
func (e *Error) AtKey() *Error { e.OnKey = true; return e }
