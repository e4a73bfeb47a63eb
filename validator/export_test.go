package validator

// Exported for the external tests (package validator_test), which render results with package
// report; report imports validator, so those tests cannot live in this package.
var (
	CorpusFiles      = corpusFiles
	Corpus           = corpus
	NumericEdgeSeeds = numericEdgeSeeds
	CheckRunAgrees   = checkRunAgrees
)
