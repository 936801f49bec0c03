package results

import "strings"

// Categories say why a module is not ok, in words a reader can act on, in
// the order summaries show them. Each is a fact about the module or about
// Debian 12, read from Puppet's own error text (Categorize).
const (
	CategoryMissingParameter = "missing parameter"
	CategoryMissingType      = "missing type or dependency"
	CategoryNoProvider       = "no provider"
	CategoryPackageMissing   = "package not in bookworm"
	CategoryNeedsNetwork     = "needs network"
	CategoryNeedsService     = "needs a database or another service"
	CategoryModuleBug        = "module bug"
	CategoryContainer        = "container limitation"
	CategoryTimeout          = "timeout"
	CategoryUnknown          = "unknown"
)

// Categories lists the categories in the order summaries show them.
var Categories = []string{
	CategoryMissingParameter, CategoryMissingType, CategoryNoProvider, CategoryPackageMissing,
	CategoryNeedsNetwork, CategoryNeedsService, CategoryModuleBug, CategoryContainer,
	CategoryTimeout, CategoryUnknown,
}

// categoryRule is one general fact: Puppet, apt or a daemon says one of
// these (any of them, case-sensitive as they print it) when the module
// fails for that reason.
type categoryRule struct {
	category string
	any      []string
}

// categoryRules are tried in order and the first that matches wins: a
// fail() that asks for a parameter is a missing parameter before it is a
// module's own error, and apt's "not available" is a package before it is
// an apt failure. No rule names a module, a class or a path.
var categoryRules = []categoryRule{
	// The compiler's words for a class parameter without a value, and the
	// way modules' own fail() calls ask for one.
	{CategoryMissingParameter, []string{
		"expects a value for parameter", "value, got Undef",
		"Please set ", "Please specify ", "You must specify", "You must provide a value",
		"Require at least", "must be set",
	}},
	// A resource type, class, define or data type that no module on the
	// module path provides, or a define of another module called with a
	// parameter that module's packaged version does not have: the module
	// and the dependency Debian ships do not fit.
	{CategoryMissingType, []string{
		"Unknown resource type", "Resource type not found", "Could not find class",
		"Could not find resource type", "Unknown function", "has no parameter named",
		"Could not autoload",
	}},
	// No provider of a type suits the node (an init script for the service
	// provider, a missing command for a package provider).
	{CategoryNoProvider, []string{
		"Could not find init script", "No suitable provider", "is not functional on this host",
		"Could not find a suitable provider",
	}},
	// apt's words for a package Debian 12 does not have.
	{CategoryPackageMissing, []string{
		"Unable to locate package", "has no installation candidate", "is not available, but is referred to",
	}},
	// Name resolution or a connection to a remote host failed.
	{CategoryNeedsNetwork, []string{
		"could not resolve", "Could not resolve host", "Temporary failure in name resolution",
		"Network is unreachable", "Failed to connect to", "getaddrinfo", "Failed to open TCP connection",
	}},
	// A database migration or a client that needs a server running.
	{CategoryNeedsService, []string{
		"db-manage", "db_sync", "db sync", "dbsync", "Can't connect to MySQL", "Can't connect to local MySQL",
		"OperationalError", "could not connect to server", "Connection refused", "requires a database",
		"server is not responding",
	}},
	// Puppet itself says the module's code is wrong: a type error in the
	// module's expressions, a file under a directory nothing creates, a
	// custom fact that raises.
	{CategoryModuleBug, []string{
		"Evaluation Error: Comparison of", "parent directory", "does not exist or is a dangling symbolic link",
		"Error while resolving custom fact", "undefined method", "Evaluation Error: Operator",
		"Syntax error", "Could not parse", "Could not retrieve information from environment",
	}},
	// What the container cannot do that a host can: no systemd, a
	// sandboxed unit or a daemon's capabilities refused, a read-only
	// mount. (Not any "Operation not permitted": systemd's journal says it
	// of cgroup ids in every container, and ignores it.)
	{CategoryContainer, []string{
		"System has not been booted with systemd", "Failed to set up user namespacing",
		"Failed to set up mount namespacing",
		"Unable to switch capabilities", "Read-only file system",
	}},
}

// Categorize says why a module with status and Puppet's error text (all of
// its error lines, and for apt the lines that follow) is not ok; "" for an
// ok module. A timeout is a timeout whatever the text says.
//
// The first error that a rule explains wins: later errors are most often
// consequences of the first (a file under a directory the failed resource
// should have made, a service whose unit was never installed), so the text
// is read one error block at a time, in order, before it is read whole.
func Categorize(status, errorText string) string {
	switch status {
	case StatusOK:
		return ""
	case StatusTimeout:
		return CategoryTimeout
	}
	for _, block := range errorBlocks(errorText) {
		if c := categorizeText(block); c != "" {
			return c
		}
	}
	if c := categorizeText(errorText); c != "" {
		return c
	}
	return CategoryUnknown
}

// categorizeText is the category of the first rule that matches text, or "".
func categorizeText(text string) string {
	for _, r := range categoryRules {
		for _, s := range r.any {
			if strings.Contains(text, s) {
				return r.category
			}
		}
	}
	return ""
}

// errorBlocks splits text into Puppet's errors: each "Error:" line with the
// lines that follow it up to the next "Error:" line (apt's output, a
// journal excerpt). Text before the first "Error:" line is not a block.
func errorBlocks(text string) []string {
	var blocks []string
	var cur []string
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, "Error:") {
			if cur != nil {
				blocks = append(blocks, strings.Join(cur, "\n"))
			}
			cur = []string{line}
			continue
		}
		if cur != nil {
			cur = append(cur, line)
		}
	}
	if cur != nil {
		blocks = append(blocks, strings.Join(cur, "\n"))
	}
	return blocks
}
