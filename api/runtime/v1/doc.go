// Package v1 holds the types of the podspec runtime interface, contract version 1.x
// (docs/runtime-interface.md): the command-line contract between a podspec runtime and whatever
// drives it. The reference runtime (cmd/podspec, reference/...) prints these types and the
// conformance suite (conformance/...) reads them, so a change to the contract is a change here
// and in the document, and nowhere else.
//
//   - exit statuses and error codes, and the JSON error report a failing verb prints on stderr
//     (section 3);
//   - the capability profiles a runtime declares in `version` (section 6);
//   - the event object of `events` and its types (section 5). Its structural rules are the JSON
//     Schema `Event` (schema/event.json, generated from #Event in cue/event.cue), which
//     `podspec conformance check-runtime` holds every printed event to.
//
// The package holds types and constants only; it imports nothing of the reference runtime or of
// the suite, so an adapter for another runtime can use it too.
package v1
