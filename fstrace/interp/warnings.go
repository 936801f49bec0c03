package interp

// Warnings holds counters that Stats (in the shared result.go) has no field
// for yet.
type Warnings struct {
	// ImplicitEnds counts Begins that arrived while another block was
	// still open: blocks do not nest, so the open one was closed.
	ImplicitEnds int64
	// SelfClones counts NewProcs whose child is the creating pid itself:
	// impossible in a real trace, so ignored.
	SelfClones int64
}

// Warnings returns the counters that do not fit in Stats.
func (in *Interp) Warnings() Warnings { return in.warnings }
