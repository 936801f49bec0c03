package fstrace

import "testing"

// TestAttribution follows the rules of the one attribution model that the
// interpreter and the lowering both drive: start-up children act for the
// open block, a child made inside a block is pinned to it for life and so
// are its descendants, a thread shares its creator's Acting (also when the
// creator later writes a Begin), a cgroup move pins a process and its
// threads, and an End closes only the open block.
func TestAttribution(t *testing.T) {
	const a, b, c Block = 0, 1, 2
	var at Attribution
	puppet := Dynamic()
	startup := at.NewProc(puppet, 0)
	thread := at.NewProc(puppet, ShareThread)
	want := func(what string, acting *Acting, block Block) {
		t.Helper()
		if got := at.For(acting); got != block {
			t.Errorf("%s acts for %d, want %d", what, got, block)
		}
	}
	want("Puppet at start-up", puppet, NoBlock)
	want("a start-up child", startup, NoBlock)

	if at.Begin(puppet, a) {
		t.Error("the first Begin ends a block")
	}
	want("Puppet in A", puppet, a)
	want("a start-up child in A", startup, a)
	want("Puppet's thread in A", thread, a)
	child := at.NewProc(puppet, 0)
	grandchild := at.NewProc(startup, 0) // a dynamic creator inside A: pinned too
	childThread := at.NewProc(child, ShareThread)
	if at.End(b) || at.Open() != a {
		t.Error("the End of another block closed A")
	}
	if !at.End(a) || at.Open() != NoBlock {
		t.Error("A's End did not close it")
	}
	want("Puppet between blocks", puppet, NoBlock)
	want("a child made in A, after A", child, a)
	want("a child's thread, after A", childThread, a)
	want("a child of a start-up child made in A", grandchild, a)
	want("a descendant of a pinned child", at.NewProc(child, 0), a)

	at.Begin(puppet, b)
	if !at.Begin(childThread, c) {
		t.Error("a Begin while B is open is not an implicit end")
	}
	want("a pinned process that wrote a Begin", childThread, c)
	want("the process whose thread wrote a Begin", child, c)
	at.End(c)
	want("a marker writer between blocks", child, NoBlock)

	systemd := Pinned(NoBlock)
	service := at.NewProc(systemd, 0)
	want("a child of init", service, NoBlock)
	serviceThread := at.NewProc(service, ShareThread)
	if !at.Join(service, b) || at.Join(serviceThread, b) {
		t.Error("Join: moved wrong")
	}
	want("a service's thread after its cgroup move", serviceThread, b)
	at.Begin(puppet, a)
	want("a service while another block is open", service, b)
}
