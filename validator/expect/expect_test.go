package expect

import (
	"reflect"
	"testing"
)

func TestParse(t *testing.T) {
	got, err := Parse([]byte("# a comment\n# expect: DEP-003 7:9\nexpect: MAN-006 4\n\napiVersion: v\n# expect: ID-001 1:1\n"))
	if err != nil {
		t.Fatal(err)
	}
	want := []Finding{{Rule: "DEP-003", Line: 7, Col: 9}, {Rule: "MAN-006", Line: 4}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Parse = %v, want %v (the header ends at the first line that is not a comment)", got, want)
	}
	if got[0].String() != "DEP-003 7:9" || got[1].String() != "MAN-006 4" {
		t.Errorf("String = %q, %q", got[0], got[1])
	}
	if _, err := Parse([]byte("# expect: DEP-003 seven\n")); err == nil {
		t.Error("a malformed expectation line parsed without error")
	}
}
