package runner

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/internal/testenv"
	"github.com/fsmove/fsmove/puppet/container"
)

// BenchmarkApply measures one puppet apply of the mor_exec_reads_file
// fixture in a container, untraced and under strace with and without the
// syscall filter and --seccomp-bpf, and reports the trace size. Compare the
// sub-benchmarks' ns/op as ratios to "untraced" (the machine is shared):
//
//	go test -run '^$' -bench BenchmarkApply -benchtime 3x ./puppet/runner/
func BenchmarkApply(b *testing.B) {
	ctx := context.Background()
	eng, err := container.Connect(ctx)
	if err != nil {
		testenv.Missing(b, "Docker is unreachable: %v", err)
	}
	defer eng.Close()
	img, err := eng.EnsureImage(ctx, container.ImageOptions{})
	if err != nil {
		b.Fatal(err)
	}
	c, err := eng.Start(ctx, container.Spec{Image: img.ID, Hostname: NodeName, Env: []string{"LANG=C.UTF-8"},
		Ptrace: true})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Remove(ctx)

	spec, err := ParseModuleSpec("../../testdata/modules/mor_exec_reads_file")
	if err != nil {
		b.Fatal(err)
	}
	a := container.NewArchive()
	a.AddFile(applyScript, applySh, 0o755)
	a.AddFile(sitePP, []byte("include "+spec.Name+"\n"), 0o644)
	a.AddDir(spec.Dir, modulesDir+"/"+spec.Name)
	data, err := a.Bytes()
	if err != nil {
		b.Fatal(err)
	}
	if err := c.CopyIn(ctx, "/", bytes.NewReader(data)); err != nil {
		b.Fatal(err)
	}
	modulePath := []string{modulesDir, debianModules}
	puppetArgs := strings.Join(PuppetApplyArgs(modulePath), " ")
	unfiltered := append([]string{"/bin/sh", applyScript, "-f", "-s", "300", "-o", tracePath, "--"}, PuppetApplyArgs(modulePath)...)
	variants := []struct {
		name string
		cmd  []string
	}{
		{"untraced", []string{"/bin/sh", "-c", "puppet apply " + puppetArgs + " >/dev/null 2>&1; [ $? -ne 1 ]"}},
		{"strace-filter-seccomp", ApplyCommand(true, false, PuppetApplyArgs(modulePath))},
		{"strace-filter", ApplyCommand(false, false, PuppetApplyArgs(modulePath))},
		{"strace-all", unfiltered},
	}
	reset := []string{"/bin/sh", "-c", "rm -f /etc/mor_exec_reads_file.conf " + tracePath}
	for _, v := range variants {
		b.Run(v.name, func(b *testing.B) {
			var traceBytes int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				if _, err := c.Exec(ctx, reset, nil, nil); err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				var out bytes.Buffer
				status, err := c.Exec(ctx, v.cmd, nil, &out)
				if err != nil || status != 0 {
					b.Fatalf("%s: status %d, %v\n%s", v.name, status, err, out.String())
				}
				b.StopTimer()
				var size bytes.Buffer
				c.Exec(ctx, []string{"/bin/sh", "-c", "stat -c %s " + tracePath + " 2>/dev/null || echo 0"}, nil, &size)
				n, _ := strconv.ParseInt(strings.TrimSpace(size.String()), 10, 64)
				traceBytes += n
				b.StartTimer()
			}
			b.ReportMetric(float64(traceBytes)/float64(b.N), "trace-bytes/op")
		})
	}
}
