package detector

import (
	"fmt"
	"strings"
)

// FailOn says which findings make the exit status 1 (--fail-on): those of
// some kinds with at least some confidence. The zero FailOn fails on every
// reported finding; the others are still reported.
type FailOn struct {
	Kinds KindSet
	// weakest is the weakest confidence that fails, plus one, so that the
	// zero value (0) stands for "any confidence".
	weakest uint8
}

// ParseFailOn reads --fail-on: a comma-separated list of kinds (MOR, MN, NI)
// and at most one confidence (observed, content, metadata, guarded: that one or
// stronger), in any case and order; "" fails on every finding.
func ParseFailOn(s string) (FailOn, error) {
	var fo FailOn
	for _, word := range strings.Split(s, ",") {
		word = strings.TrimSpace(word)
		if word == "" {
			continue
		}
		if k, ok := parseKinds(word); ok {
			fo.Kinds |= k
			continue
		}
		c, ok := parseConfidence(word)
		switch {
		case !ok:
			return FailOn{}, fmt.Errorf("%q is neither a kind (MOR, MN, NI) nor a confidence (observed, content, metadata, guarded)", word)
		case fo.weakest != 0:
			return FailOn{}, fmt.Errorf("give one confidence, the weakest that fails, not two (%q)", s)
		}
		fo.weakest = uint8(c) + 1
	}
	return fo, nil
}

// parseConfidence reads a Confidence by its name, in any case.
func parseConfidence(word string) (Confidence, bool) {
	for i, name := range confidenceNames {
		if strings.EqualFold(word, name) {
			return Confidence(i), true
		}
	}
	return 0, false
}

// Fails reports whether f makes the exit status 1: it is reported (not
// waived, not held back), of a kind fo names, and at least as strong as
// fo's confidence (observed is the strongest).
func (fo FailOn) Fails(f *Finding) bool {
	return f.Reported() && fo.Kinds.Has(f.Kind) && (fo.weakest == 0 || uint8(f.Confidence) < fo.weakest)
}

// String writes fo as ParseFailOn reads it ("" for every finding).
func (fo FailOn) String() string {
	var words []string
	for _, k := range []Kind{MOR, MN, NI} {
		if fo.Kinds != 0 && fo.Kinds.Has(k) {
			words = append(words, k.String())
		}
	}
	if fo.weakest != 0 {
		words = append(words, Confidence(fo.weakest-1).String())
	}
	return strings.Join(words, ",")
}

// Failing is the number of findings that make the exit status 1 under fo.
func (r *Report) Failing(fo FailOn) int {
	n := 0
	for i := range r.Findings {
		if fo.Fails(&r.Findings[i]) {
			n++
		}
	}
	return n
}
