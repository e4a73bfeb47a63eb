package main

// runtimeVerbs are the verbs of the reference runtime and of its image builder, which run on
// Linux only: their files build only there, and elsewhere each name is a verb that says so
// (runtime_other.go). The rest — validate, schema, rules, convert, timeline --events — build on
// every OS the manifest writers use. TestRuntimeVerbsAreTheLinuxOnlyVerbs holds the list to the Linux build.
var runtimeVerbs = []string{
	"conformance", "crash", "events", "gc", "image", "list", "logs", "notification", "notification-runner",
	"notify", "rm", "run", "status", "stop", "supervise", "update", "version", "wait",
}
