package v1alpha1

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// PortRef is the port of an httpGet or tcpSocket handler: a number, or the name of one of the
// container's ports (Kubernetes' IntOrString). Exactly one of Number and Name is set.
type PortRef struct {
	Number int32
	Name   string
}

// PortNumber returns a PortRef for the port number n.
func PortNumber(n int32) PortRef { return PortRef{Number: n} }

// PortNamed returns a PortRef for the container port named name.
func PortNamed(name string) PortRef { return PortRef{Name: name} }

// IsNamed reports whether the port is given by name.
func (p PortRef) IsNamed() bool { return p.Name != "" }

// String returns the number or the name.
func (p PortRef) String() string {
	if p.IsNamed() {
		return p.Name
	}
	return strconv.Itoa(int(p.Number))
}

// UnmarshalJSON accepts a JSON integer or string.
func (p *PortRef) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*p = PortRef{Name: s}
		return nil
	}
	var n int32
	if err := json.Unmarshal(b, &n); err != nil {
		return fmt.Errorf("port must be a 32-bit integer or a port name")
	}
	*p = PortRef{Number: n}
	return nil
}

// MarshalJSON writes a number as a JSON integer and a name as a string.
func (p PortRef) MarshalJSON() ([]byte, error) {
	if p.IsNamed() {
		return json.Marshal(p.Name)
	}
	return json.Marshal(p.Number)
}
