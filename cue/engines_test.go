package cue_test

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"sigs.k8s.io/yaml"

	podcue "podspec.dev/podspec/cue"
	"podspec.dev/podspec/schema"
	"podspec.dev/podspec/schema/oracle"
	"podspec.dev/podspec/spec"
	"podspec.dev/podspec/validation/field"
)

// engines are the two structural engines, and the general JSON Schema library that package
// schema's engine is held to; every case below must hold for each.
var engines = []struct {
	name     string
	validate func(kind string, value any) field.ErrorList
}{
	{"jsonschema", schema.Validate},
	{"cue", podcue.Validate},
	{"library", func(kind string, value any) field.ErrorList {
		vs, err := oracle.Violations(kind, value)
		if err != nil {
			return field.ErrorList{field.Invalid("ORACLE", nil, nil, err.Error())}
		}
		return schema.Errors(vs)
	}},
}

// pod wraps a spec fragment (YAML, indented by two) into a minimal valid pod.
func pod(spec string) string {
	return "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: web}\nspec:\n" + spec
}

const mainContainer = "  containers: [{name: app, image: \"oci:images/app\"}]\n"

// render lists errors as "RULE path" (with " @key" when the error points at the key), sorted.
func render(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		s := e.Rule + " " + e.Field.String()
		if e.OnKey {
			s += " @key"
		}
		out = append(out, s)
	}
	slices.Sort(out)
	return out
}

func decode(t *testing.T, doc string) any {
	t.Helper()
	var v any
	if err := yaml.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("decode test document: %v", err)
	}
	return v
}

var cases = []struct {
	name    string
	kind    string
	doc     string
	want    []string
	message string // a substring of the first error's message, when set
}{
	{name: "a minimal pod is valid", kind: "Pod", doc: pod(mainContainer)},
	{
		name: "a pod using every field is valid", kind: "Pod", doc: pod(`  exitPolicy: AnyFailure
  restartPolicy: OnFailure
  restartBackoff: {initialSeconds: 0.5, factor: 1, maxSeconds: 300, resetAfterSeconds: 600}
  terminationGracePeriodSeconds: 0
  activeDeadlineSeconds: 3600
  volumes:
  - {name: data, emptyDir: {medium: Memory, sizeLimit: 64Mi}}
  - {name: certs, hostPath: {path: /etc/certs}}
  - {name: cache, shared: {name: build-cache, reclaimPolicy: Delete}}
  initContainers:
  - name: gossip
    image: oci:images/gossip@sha256:abc
    restartPolicy: Always
    startupProbe: {exec: {command: [/bin/true]}, initialDelaySeconds: 0, periodSeconds: 1, timeoutSeconds: 1, successThreshold: 1, failureThreshold: 30}
  containers:
  - name: db
    image: oci:images/db:5
    command: [/bin/db]
    args: [--data, /data]
    workingDir: /data
    env: [{name: MODE, value: primary}, {name: EMPTY}]
    stopSignal: SIGRTMIN+3
    resources: {limits: {cpu: "1", memory: 512Mi, pids: 256}, requests: {cpu: 500m, memory: 1e6}}
    resizePolicy: [{resourceName: memory, restartPolicy: RestartContainer}, {resourceName: cpu}]
    readinessProbe: {exec: {command: [/bin/db, ping]}}
    livenessProbe: {exec: {command: [/bin/db, ping]}}
    lifecycle: {postStart: {exec: {command: [/bin/warm]}}, preStop: {sleep: {seconds: 0}}}
    notifiers:
    - {name: quiesce, timeoutSeconds: 20, action: {exec: {command: [/bin/db, freeze]}}}
    - {name: example.com/reload, action: {signal: SIGHUP}}
    volumeMounts: [{name: data, mountPath: /data, readOnly: true}]
  - name: api
    image: oci:images/api:3
    dependsOn: [{name: db, condition: Ready}, {name: db}]
  deferContainers:
  - {name: rebalance, phase: BeforeStop, image: "oci:images/tools:1.0", timeoutSeconds: 15, restartPolicy: OnFailure, onFailure: Abort, resources: {limits: {cpu: 2}}, volumeMounts: [{name: data, mountPath: /data}], command: [/bin/rb], args: [x], workingDir: /, env: [{name: A, value: b}]}
`),
	},
	{
		name: "metadata with labels, annotations and a generation is valid", kind: "Pod",
		doc: "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: web, generation: 3, labels: {app: db, example.com/tier: \"\"}, annotations: {podspec.dev/ignore: ID-001, note: \"any text at all\"}}\nspec:\n" + mainContainer,
	},
	{
		name: "an unknown restart policy is a schema error with the accepted values", kind: "Pod",
		doc:  pod("  restartPolicy: Sometimes\n" + mainContainer),
		want: []string{"MAN-002 spec.restartPolicy"}, message: `invalid value "Sometimes": must be one of Always, OnFailure, Never`,
	},
	{
		name: "a string where an integer belongs is a type error", kind: "Pod",
		doc:  pod("  terminationGracePeriodSeconds: \"30\"\n" + mainContainer),
		want: []string{"MAN-002 spec.terminationGracePeriodSeconds"}, message: "expected integer, got string",
	},
	{
		name: "a fraction where an integer belongs is a type error", kind: "Pod",
		doc:  pod("  activeDeadlineSeconds: 1.5\n" + mainContainer),
		want: []string{"MAN-002 spec.activeDeadlineSeconds"}, message: "expected integer, got number",
	},
	{
		name: "a negative grace period is out of range", kind: "Pod",
		doc:  pod("  terminationGracePeriodSeconds: -1\n" + mainContainer),
		want: []string{"MAN-002 spec.terminationGracePeriodSeconds"}, message: "must be at least 0",
	},
	{
		name: "a probe threshold of zero is out of range", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", readinessProbe: {exec: {command: [a]}, failureThreshold: 0}}]\n"),
		want: []string{"MAN-002 spec.containers[0].readinessProbe.failureThreshold"}, message: "must be at least 1",
	},
	{
		name: "an int32 field rejects values beyond 32 bits", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", readinessProbe: {exec: {command: [a]}, failureThreshold: 2147483648}}]\n"),
		want: []string{"MAN-002 spec.containers[0].readinessProbe.failureThreshold"}, message: "must be at most 2147483647",
	},
	{
		name: "a 32-bit duration over its maximum is MAN-012", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", readinessProbe: {exec: {command: [a]}, periodSeconds: 2147483648}}]\n"),
		want: []string{"MAN-012 spec.containers[0].readinessProbe.periodSeconds"}, message: "must be at most 2147483647",
	},
	{
		name: "a 64-bit duration over its maximum is MAN-012", kind: "Pod",
		doc:  pod("  terminationGracePeriodSeconds: 99999999999999999999\n  containers: [{name: app, image: \"oci:x\"}]\n"),
		want: []string{"MAN-012 spec.terminationGracePeriodSeconds"}, message: "must be at most 2147483647",
	},
	{
		name: "a duration beyond a 64-bit float is MAN-012", kind: "Pod",
		doc:  pod("  restartBackoff: {maxSeconds: 1e400}\n  containers: [{name: app, image: \"oci:x\"}]\n"),
		want: []string{"MAN-012 spec.restartBackoff.maxSeconds"}, message: "too large for a 64-bit float",
	},
	{
		name: "an empty required name or image is MAN-003 on the value", kind: "Pod",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: \"\"}\nspec:\n  containers: [{name: \"\", image: \"\"}]\n",
		want: []string{"MAN-003 metadata.name", "MAN-003 spec.containers[0].image", "MAN-003 spec.containers[0].name"}, message: "must not be empty",
	},
	{
		name: "an empty stop signal is not a signal name", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", stopSignal: \"\"}]\n"),
		want: []string{"STOP-001 spec.containers[0].stopSignal"},
	},
	{
		name: "a wrong apiVersion is MAN-001", kind: "Pod",
		doc:  "apiVersion: v1\nkind: Pod\nmetadata: {name: web}\nspec:\n" + mainContainer,
		want: []string{"MAN-001 apiVersion"}, message: "must be podspec.dev/v1alpha1",
	},
	{
		name: "a missing field is reported on its parent's key", kind: "Pod",
		doc:  pod("  containers: [{name: app}]\n"),
		want: []string{"MAN-003 spec.containers[0] @key"}, message: `missing field "image"`,
	},
	{
		name: "a missing top-level field is reported on the document", kind: "Pod",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nspec:\n" + mainContainer,
		want: []string{"MAN-003 <root> @key"}, message: `missing field "metadata"`,
	},
	{
		name: "every unknown field is reported on its key", kind: "Pod",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: web, namespace: x}\nspec:\n  restartpolicy: Never\n" + mainContainer,
		want: []string{"MAN-004 metadata.namespace @key", "MAN-004 spec.restartpolicy @key"}, message: `unknown field "namespace"`,
	},
	{
		name: "an unknown field is reported alongside a bad value", kind: "Pod",
		doc:  pod("  exitPolicy: Some\n  bogus: 1\n" + mainContainer),
		want: []string{"MAN-002 spec.exitPolicy", "MAN-004 spec.bogus @key"},
	},
	{
		name: "a pod without containers breaks MAIN-001", kind: "Pod",
		doc:  pod("  containers: []\n"),
		want: []string{"MAIN-001 spec.containers"}, message: "at least one main container",
	},
	{
		name: "a bad metadata name is ID-001", kind: "Pod",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: Web_1}\nspec:\n" + mainContainer,
		want: []string{"ID-001 metadata.name"}, message: "DNS label",
	},
	{
		name: "a name of 64 characters is ID-001", kind: "Pod",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: " + strings.Repeat("a", 64) + "}\nspec:\n" + mainContainer,
		want: []string{"ID-001 metadata.name"},
	},
	{
		name: "bad label keys and values are ID-003, keys on the key", kind: "Pod",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: web, labels: {\"bad key\": x, ok: \"-bad\"}, annotations: {\"_x\": y}}\nspec:\n" + mainContainer,
		want: []string{"ID-003 metadata.annotations._x @key", "ID-003 metadata.labels.bad key @key", "ID-003 metadata.labels.ok"},
	},
	{
		name: "an image spanning two lines is IMG-001 (the validator's Go check parses the rest)", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"nginx\\n:1\"}]\n"),
		want: []string{"IMG-001 spec.containers[0].image"},
	},
	{
		name: "bad container, volume and notifier names get their own rules", kind: "Pod",
		doc: pod(`  volumes: [{name: Data, emptyDir: {}}]
  containers: [{name: App, image: "oci:x", notifiers: [{name: "-x", action: {signal: SIGHUP}}]}]
`),
		want: []string{"ID-002 spec.containers[0].name", "NTF-001 spec.containers[0].notifiers[0].name", "VOL-002 spec.volumes[0].name"},
	},
	{
		name: "a volume with no source is VOL-002 on the volume", kind: "Pod",
		doc:  pod("  volumes: [{name: data}]\n" + mainContainer),
		want: []string{"VOL-002 spec.volumes[0]"}, message: "exactly one of emptyDir, hostPath, shared must be set",
	},
	{
		name: "a volume with two sources is VOL-002 on the extra source's key", kind: "Pod",
		doc:  pod("  volumes: [{name: data, emptyDir: {}, shared: {name: x}}]\n" + mainContainer),
		want: []string{"VOL-002 spec.volumes[0].shared @key"}, message: "emptyDir and shared are set",
	},
	{
		name: "a relative host path and a bad shared name are VOL-003", kind: "Pod",
		doc:  pod("  volumes: [{name: a, hostPath: {path: etc}}, {name: b, shared: {name: B}}]\n" + mainContainer),
		want: []string{"VOL-003 spec.volumes[0].hostPath.path", "VOL-003 spec.volumes[1].shared.name"},
	},
	{
		name: "a hook with both handlers is HOOK-002 on the second", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", lifecycle: {preStop: {exec: {command: [a]}, sleep: {seconds: 1}}}}]\n"),
		want: []string{"HOOK-002 spec.containers[0].lifecycle.preStop.sleep @key"},
	},
	{
		name: "a hook with no handler and a probe without exec are HOOK-002", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", lifecycle: {postStart: {}}, livenessProbe: {periodSeconds: 5}}]\n"),
		want: []string{"HOOK-002 spec.containers[0].lifecycle.postStart", "HOOK-002 spec.containers[0].livenessProbe"},
	},
	{
		name: "an empty exec command is HOOK-002 in hooks and NTF-002 in notifiers", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", lifecycle: {postStart: {exec: {command: []}}}, notifiers: [{name: n1, action: {exec: {command: []}}}]}]\n"),
		want: []string{"HOOK-002 spec.containers[0].lifecycle.postStart.exec.command", "NTF-002 spec.containers[0].notifiers[0].action.exec.command"},
	},
	{
		name: "a lower-case stop signal is STOP-001 and a notifier signal NTF-002", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", stopSignal: term, notifiers: [{name: n1, action: {signal: hup}}]}]\n"),
		want: []string{"NTF-002 spec.containers[0].notifiers[0].action.signal", "STOP-001 spec.containers[0].stopSignal"},
	},
	{
		name: "a notifier action with neither or both handlers is NTF-002", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", notifiers: [{name: a, action: {}}, {name: b, action: {signal: SIGHUP, exec: {command: [x]}}}]}]\n"),
		want: []string{"NTF-002 spec.containers[0].notifiers[0].action", "NTF-002 spec.containers[0].notifiers[1].action.signal @key"},
	},
	{
		name: "unknown resources and bad quantities are RES-001", kind: "Pod",
		doc: pod("  containers: [{name: app, image: \"oci:x\", resources: {limits: {gpu: 1, cpu: 1x}, requests: {memory: -1}}, resizePolicy: [{resourceName: disk}]}]\n"),
		want: []string{
			"RES-001 spec.containers[0].resizePolicy[0].resourceName", "RES-001 spec.containers[0].resources.limits.cpu",
			"RES-001 spec.containers[0].resources.limits.gpu @key", "RES-001 spec.containers[0].resources.requests.memory",
		},
	},
	{
		name: "a quantity of the wrong type is a type error", kind: "Pod",
		doc:  pod("  containers: [{name: app, image: \"oci:x\", resources: {limits: {cpu: true}}}]\n"),
		want: []string{"MAN-002 spec.containers[0].resources.limits.cpu"}, message: "expected string or number, got boolean",
	},
	{
		name: "bad defer timeouts and restart policies are DEFER-001", kind: "Pod",
		doc:  pod(mainContainer + "  deferContainers: [{name: d, image: \"oci:x\", timeoutSeconds: 0, restartPolicy: Always}]\n"),
		want: []string{"DEFER-001 spec.deferContainers[0].restartPolicy", "DEFER-001 spec.deferContainers[0].timeoutSeconds"},
	},
	{
		name: "bad back-off values are RST-001", kind: "Pod",
		doc:  pod("  restartBackoff: {initialSeconds: 0, factor: 0.5}\n" + mainContainer),
		want: []string{"RST-001 spec.restartBackoff.factor", "RST-001 spec.restartBackoff.initialSeconds"},
	},
	{
		name: "a relative mount path is VOL-002", kind: "Pod",
		doc:  pod("  volumes: [{name: d, emptyDir: {}}]\n  containers: [{name: app, image: \"oci:x\", volumeMounts: [{name: d, mountPath: data}]}]\n"),
		want: []string{"VOL-002 spec.containers[0].volumeMounts[0].mountPath"},
	},
	{
		name: "a notification selecting by pod names is valid", kind: "Notification",
		doc: "apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: nt}\nspec: {notifier: quiesce, pods: [shard-7], targetPolicy: AllPods, parallelism: 0}\n",
	},
	{
		name: "a notification selecting by labels is valid", kind: "Notification",
		doc: "apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: nt}\nspec: {notifier: example.com/quiesce, selector: {matchLabels: {app: db}, matchExpressions: [{key: tier, operator: In, values: [a]}, {key: x, operator: Exists}]}}\n",
	},
	{
		name: "a notification with both pods and selector is NOTIF-001", kind: "Notification",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: nt}\nspec: {notifier: q, pods: [a], selector: {matchLabels: {app: db}}}\n",
		want: []string{"NOTIF-001 spec.selector @key"},
	},
	{
		name: "a notification with bad fields reports each", kind: "Notification",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: nt}\nspec: {notifier: \"bad name\", pods: [Bad], parallelism: -1, targetPolicy: Some}\n",
		want: []string{"MAN-002 spec.targetPolicy", "NOTIF-001 spec.notifier", "NOTIF-001 spec.parallelism", "NOTIF-001 spec.pods[0]"},
	},
	{
		name: "a selector with a bad label key and operator", kind: "Notification",
		doc:  "apiVersion: podspec.dev/v1alpha1\nkind: Notification\nmetadata: {name: nt}\nspec: {notifier: q, selector: {matchLabels: {\"a b\": c}, matchExpressions: [{key: \"-\", operator: Has}]}}\n",
		want: []string{"ID-003 spec.selector.matchExpressions[0].key", "ID-003 spec.selector.matchLabels.a b @key", "MAN-002 spec.selector.matchExpressions[0].operator"},
	},
	{
		name: "a pod status as Go marshals it is valid", kind: "PodStatus",
		doc: `uid: 0193f0c2-aaaa
phase: Failed
conditions: [{type: Terminating, status: "False", lastTransitionTime: "2026-11-30T11:00:00.123456789Z"}]
observedGeneration: 3
exitCode: 1
decidedBy: db
startedAt: "2026-11-30T11:00:00Z"
finishedAt: "2026-11-30T12:00:00+01:00"
containerStatuses:
- name: db
  image: oci:images/db
  containerID: abc
  restartCount: 2
  started: false
  ready: false
  state: {terminated: {signal: {name: SIGKILL, number: 9}, reason: Signaled, startedAt: "2026-11-30T11:00:00Z", finishedAt: "2026-11-30T11:00:01Z", oomKilled: true, coreDumped: false}}
  lastState: {}
deferContainerStatuses:
- {name: up, image: x, restartCount: 0, started: false, ready: false, state: {skipped: {reason: Forced}}, lastState: {}}
`,
	},
	{
		name: "a container state with two members and a bad timestamp", kind: "PodStatus",
		doc: `uid: u
phase: Running
containerStatuses:
- {name: db, image: x, restartCount: 0, started: true, ready: true, state: {waiting: {}, running: {startedAt: "yesterday"}}}
`,
		want: []string{"MAN-002 containerStatuses[0].state", "MAN-002 containerStatuses[0].state.running.startedAt"},
	},
	{
		name: "a terminated state with both exit code and signal", kind: "PodStatus",
		doc: `uid: u
phase: Failed
containerStatuses:
- {name: db, image: x, restartCount: 0, started: true, ready: true, state: {terminated: {exitCode: 1, signal: {name: SIGTERM, number: 15}, reason: Error, startedAt: "2026-11-30T11:00:00Z", finishedAt: "2026-11-30T11:00:00Z"}}}
`,
		want: []string{"MAN-002 containerStatuses[0].state.terminated"}, message: "exitCode and signal must not be set together",
	},
	{
		name: "a notification status keeps at most 20 failures", kind: "NotificationStatus",
		doc:  "{phase: Failed, targets: 21, pending: 0, running: 0, succeeded: 0, failed: 21, skipped: 0, failures: [" + strings.Repeat("{pod: p, podUID: u, reason: HandlerFailed},", 21) + "]}",
		want: []string{"MAN-002 failures"}, message: "at most 20",
	},
	{
		name: "a notification status with a bad phase and a negative count", kind: "NotificationStatus",
		doc:  "{phase: Done, targets: -1, pending: 0, running: 0, succeeded: 0, failed: 0, skipped: 0, startedAt: \"2026-11-30T11:00:00Z\"}",
		want: []string{"MAN-002 phase", "MAN-002 targets"},
	},
	{
		name: "a pod notification record with null containers is valid", kind: "PodNotificationRecord",
		doc: "{notification: nt, pod: p, podUID: u, phase: Skipped, reason: NoMatchingContainers, containers: null}",
	},
	{
		name: "a pod notification record with deliveries is valid", kind: "PodNotificationRecord",
		doc: "{notification: nt, pod: p, podUID: u, phase: Succeeded, containers: [{name: db, containerID: c, phase: Succeeded, exitCode: 0, startedAt: \"2026-11-30T11:00:00Z\", finishedAt: \"2026-11-30T11:00:01Z\"}]}",
	},
	{
		name: "a pod notification record with containers of the wrong type", kind: "PodNotificationRecord",
		doc:  "{notification: nt, pod: p, podUID: u, phase: Succeeded, containers: \"db\"}",
		want: []string{"MAN-002 containers"}, message: "expected null or array, got string",
	},
	{
		name: "a document that is not an object is a type error", kind: "Pod",
		doc:  "[1, 2]",
		want: []string{"MAN-002 <root>"}, message: "expected object, got array",
	},
	{
		name: "an unknown kind is reported on kind", kind: "Deployment",
		doc:  "{}",
		want: []string{"MAN-001 kind"},
	},
}

func TestEnginesReportTheSameRulesPathsAndMessages(t *testing.T) {
	for _, tc := range cases {
		for _, eng := range engines {
			t.Run(eng.name+"/"+tc.name, func(t *testing.T) {
				errs := eng.validate(tc.kind, decode(t, tc.doc))
				got := render(errs)
				if !slices.Equal(got, tc.want) {
					t.Fatalf("got  %q\nwant %q\nerrors:\n%s", got, tc.want, dump(errs))
				}
				if tc.message != "" && !strings.Contains(errs[0].Message(), tc.message) {
					t.Errorf("message %q does not contain %q", errs[0].Message(), tc.message)
				}
				for _, e := range errs {
					if e.Severity() != spec.Error || e.Message() == "" {
						t.Errorf("error %v has severity %q and message %q", e, e.Severity(), e.Message())
					}
				}
			})
		}
	}
}

func dump(errs field.ErrorList) string {
	var b strings.Builder
	for _, e := range errs {
		fmt.Fprintf(&b, "  %s %s (onKey=%v)\n", e.Rule, e.Error(), e.OnKey)
	}
	return b.String()
}

func TestValidateIsSafeForConcurrentUse(t *testing.T) {
	bad := decode(t, "apiVersion: podspec.dev/v1alpha1\nkind: Pod\nmetadata: {name: Web}\nspec: {containers: [], bogus: 1}")
	want := render(podcue.Validate("Pod", bad))
	if len(want) != 3 {
		t.Fatalf("got %q, want three errors", want)
	}
	var wg sync.WaitGroup
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 5; j++ {
				if got := render(podcue.Validate("Pod", bad)); !slices.Equal(got, want) {
					t.Errorf("concurrent run got %q, want %q", got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkValidate(b *testing.B) {
	data, err := os.ReadFile("../testdata/valid/api-sketch-pod.yaml")
	if err != nil {
		b.Fatal(err)
	}
	var v any
	if err := yaml.Unmarshal(data, &v); err != nil {
		b.Fatal(err)
	}
	if errs := podcue.Validate("Pod", v); len(errs) != 0 {
		b.Fatalf("the realistic pod is invalid: %v", errs)
	}
	b.ReportAllocs()
	start := cpuTime()
	b.ResetTimer()
	for b.Loop() {
		podcue.Validate("Pod", v)
	}
	reportCPU(b, start)
}

// cpuTime is the CPU time (user and system) the process has used. The benchmarks report CPU
// time per operation besides wall time, which shared, loaded machines inflate.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cpuTime()-start)/float64(b.N), "cpu-ns/op")
}
