package corpus

import (
	_ "embed"
	"strings"
)

// DebianParams is debian-params.txt: for the Debian corpus, the class and
// parameters each module needs to apply on a bare Debian 12 node, chosen
// from the module's README or examples as a user would, with a comment per
// entry. "fsmove bench --debian" lays it over the packages it lists
// (Override) unless --params names another file.
//
//go:embed debian-params.txt
var DebianParams string

// DebianParamsEntries parses DebianParams.
func DebianParamsEntries() ([]Entry, error) {
	return Parse(strings.NewReader(DebianParams), ".")
}
