package timeline

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"io"
	"os"
	"testing"

	runtimev1 "podspec.dev/podspec/api/runtime/v1"
)

// FuzzTimeline draws whatever events a stream decodes to: the picture is always well-formed
// XML (no text of an event escapes into markup) and drawing never panics.
func FuzzTimeline(f *testing.F) {
	for _, name := range []string{"demo", "restarts", "stubborn", "defers"} {
		data, err := os.ReadFile("testdata/" + name + ".events.jsonl")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"seq":1,"time":"2026-01-01T00:00:00Z","type":"HookFinished","container":"<a>","hook":"preStop","result":"Timeout"}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var evs []runtimev1.Event
		for _, line := range bytes.Split(data, []byte("\n")) {
			var ev runtimev1.Event
			if json.Unmarshal(line, &ev) == nil {
				evs = append(evs, ev)
			}
		}
		svg := SVG(Build(evs, Options{Notes: []Note{{Container: "c", Text: string(data)}}}))
		d := xml.NewDecoder(bytes.NewReader(svg))
		for {
			tok, err := d.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("not well-formed: %v", err)
			}
			if se, ok := tok.(xml.StartElement); ok && !allowedElements[se.Name.Local] {
				t.Fatalf("element <%s>", se.Name.Local)
			}
		}
	})
}
