package detector

import "github.com/fsmove/fsmove/detector/detectortest"

// The tests' short names for detectortest's hand-built inputs.
type (
	fakeGraph = detectortest.Graph
	acc       = detectortest.AccessSpec
	pathSpec  = detectortest.PathSpec
)

const (
	before  = detectortest.Before
	notify  = detectortest.Notify
	contain = detectortest.Contain
)

var (
	newFake = detectortest.NewGraph
	p       = detectortest.Path
	dir     = detectortest.Dir
	a       = detectortest.Access
	at      = detectortest.At
	result  = detectortest.Result
	failed  = detectortest.Failed
)
