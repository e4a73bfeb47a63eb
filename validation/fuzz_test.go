package validation

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"

	"podspec.dev/podspec/api/v1alpha1"
)

// FuzzValidatePod decodes arbitrary JSON into pods and checks that validation, update
// validation and MutableChanges never panic, defaulted or not, and that every finding renders.
// Run it bounded with: go test -run '^$' -fuzz FuzzValidatePod -fuzztime 30s ./validation/
func FuzzValidatePod(f *testing.F) {
	base, err := yaml.YAMLToJSON([]byte(basePodYAML))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(base)
	f.Add([]byte(`{}`))
	f.Add([]byte(`{"spec":{"containers":[{"name":"a","dependsOn":[{"name":"a"},{"name":"b"}]},{"name":"b","dependsOn":[{"name":"a"}]}]}}`))
	f.Add([]byte(`{"spec":{"terminationGracePeriodSeconds":-9223372036854775808,"activeDeadlineSeconds":9223372036854775807,"deferContainers":[{"timeoutSeconds":9223372036854775807},{"timeoutSeconds":9223372036854775807}]}}`))
	f.Add([]byte(`{"spec":{"restartBackoff":{"initialSeconds":1e308,"factor":-1e308,"maxSeconds":0},"containers":[{"resources":{"limits":{"cpu":"1e400","memory":"9Ei","pids":1e30}}}]}}`))
	// Every duration field at the edges of its Go type (the manifest decoder refuses what lies
	// beyond; encoding/json here refuses it too).
	for _, n := range []string{"9223372036854775807", "-9223372036854775808", "2147483647", "-2147483648", "0", "-0"} {
		f32 := n
		if len(n) > 11 {
			f32 = "2147483647"
		}
		f.Add([]byte(`{"spec":{"terminationGracePeriodSeconds":` + n + `,"activeDeadlineSeconds":` + n +
			`,"restartBackoff":{"initialSeconds":` + n + `,"factor":1.7976931348623157e308,"maxSeconds":` + n + `,"resetAfterSeconds":` + n + `},` +
			`"containers":[{"name":"a","lifecycle":{"preStop":{"sleep":{"seconds":` + n + `}}},` +
			`"startupProbe":{"exec":{"command":["x"]},"initialDelaySeconds":` + f32 + `,"periodSeconds":` + f32 + `,"timeoutSeconds":` + f32 + `},` +
			`"notifiers":[{"name":"r","timeoutSeconds":` + f32 + `,"action":{"signal":"SIGHUP"}}]}],` +
			`"deferContainers":[{"name":"d","timeoutSeconds":` + n + `},{"name":"e","timeoutSeconds":` + n + `}]}}`))
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "invalid", "*.yaml"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			if j, err := yaml.YAMLToJSON(data); err == nil {
				f.Add(j)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var raw, defaulted v1alpha1.Pod
		if json.Unmarshal(data, &raw) != nil || json.Unmarshal(data, &defaulted) != nil {
			return
		}
		defaulted.SetDefaults()
		for _, p := range []*v1alpha1.Pod{&raw, &defaulted} {
			for _, e := range ValidatePod(p) {
				_ = e.Error()
				_ = e.Field.Tokens()
			}
		}
		for _, e := range ValidatePodUpdate(&defaulted, &raw) {
			_ = e.Error()
		}
		_ = ValidatePodUpdate(&raw, &defaulted)
		_ = MutableChanges(&defaulted, &raw)
		_ = MutableChanges(&raw, &defaulted)
	})
}

// FuzzValidateNotification does the same for Notifications.
func FuzzValidateNotification(f *testing.F) {
	base, err := yaml.YAMLToJSON([]byte(baseNotificationYAML))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(base)
	f.Add([]byte(`{"spec":{"pods":[],"selector":{}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var n v1alpha1.Notification
		if json.Unmarshal(data, &n) != nil {
			return
		}
		for _, e := range ValidateNotification(&n) {
			_ = e.Error()
		}
		n.SetDefaults()
		for _, e := range ValidateNotification(&n) {
			_ = e.Error()
		}
	})
}
