package detector

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// Every hold rule is a row that doc.go gives a line: its name, and its
// number in the list. A path stage's row has its function; the other
// stages' rows are named by the code that holds (holdBack, judgePair). A
// rule that acts at both path stages (other-names, program-model) is a row
// for each, under one name.
func TestHoldRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Join(strings.Fields(strings.ReplaceAll(string(doc), "//", "")), " ")
	names := map[string]bool{}
	type nameStage struct {
		name  string
		stage holdStage
	}
	rows := map[nameStage]bool{}
	for _, h := range holdRules {
		if h.name == "" || rows[nameStage{h.name, h.stage}] {
			t.Errorf("row %+v: no name, or a name twice at one stage", h)
		}
		rows[nameStage{h.name, h.stage}] = true
		names[h.name] = true
		if !strings.Contains(text, h.name) {
			t.Errorf("rule %q is not in doc.go", h.name)
		}
		if h.number > 0 && !regexp.MustCompile(`(^| )`+strconv.Itoa(h.number)+`\. |rule `+strconv.Itoa(h.number)+`\b`).MatchString(text) {
			t.Errorf("rule %q: doc.go has no rule %d", h.name, h.number)
		}
		path := h.stage == holdsOrder || h.stage == holdsNotify
		if path != (h.hold != nil) {
			t.Errorf("rule %q: a path stage's row has a function, and only it", h.name)
		}
	}
	for _, name := range []string{ruleAccounts, ruleCommutes, ruleMetadataContent, ruleRefreshedTogether, ruleRefreshedThrough, ruleContainerSkipped} {
		if !names[name] {
			t.Errorf("rule %q, which the code gives, is no row", name)
		}
	}
}

// A held finding names the rule that held it, each held path its own, and
// the report counts the held findings by rule.
func TestHeldRuleNamed(t *testing.T) {
	g := holdGraph()
	g.Edge("File[/etc/app.conf]", "Service[app]", before)
	// Rule 15: the service only looked the file up.
	rep := Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:rename@10"), at("Service[app]", "s:newfstatat@20"))), g, Options{})
	expectHeld(t, rep, "MN File[/etc/app.conf]->Service[app] /etc/app.conf held")
	f := rep.Findings[0]
	if f.HeldRule != "only-looked-up" || f.Paths[0].HeldRule != "only-looked-up" {
		t.Errorf("held by %q (path %q), want only-looked-up", f.HeldRule, f.Paths[0].HeldRule)
	}
	if rep.Stats.HeldBy["only-looked-up"] != 1 || len(rep.Stats.HeldBy) != 1 {
		t.Errorf("HeldBy %v, want only-looked-up: 1", rep.Stats.HeldBy)
	}
	// A reported finding names none.
	rep = Detect(result(p("/etc/app.conf", at("File[/etc/app.conf]", "p:rename@10"), at("Service[app]", "c:openat@20"))), g, Options{})
	if len(rep.Findings) != 1 || rep.Findings[0].HeldBack || rep.Findings[0].HeldRule != "" || rep.Stats.HeldBy != nil {
		t.Errorf("a reported MN: %+v, HeldBy %v", rep.Findings, rep.Stats.HeldBy)
	}
}
