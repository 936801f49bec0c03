package ebpf

// The BPF object is built from fsmove.bpf.c by bpf2go and committed
// (fsmove_x86_bpfel.go, fsmove_x86_bpfel.o), so that `go build` needs no
// clang. Regenerating needs clang (Debian: apt-get install clang llvm
// libbpf-dev).
//go:generate go run github.com/cilium/ebpf/cmd/bpf2go -cc clang -target amd64 -type event -type plan fsmove fsmove.bpf.c -- -I. -O2 -g -Wall
