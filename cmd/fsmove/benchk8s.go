package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/fsmove/fsmove/bench/corpus"
	"github.com/fsmove/fsmove/bench/corpusrun"
	"github.com/fsmove/fsmove/bench/k8s"
	"github.com/fsmove/fsmove/internal/files"
	"github.com/fsmove/fsmove/puppet/container"
	"github.com/fsmove/fsmove/puppet/runner"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

var benchK8sHelp = help{
	synopsis: `fsmove bench k8s --shards N [--parallelism P] [--image IMAGE] [flags] CORPUS`,
	description: `
Print the Kubernetes manifests that run CORPUS as one Indexed Job of N pods:
the namespace (Pod Security level privileged: each pod runs its own Docker
engine), the corpus in a ConfigMap, a ReadWriteMany claim for the results,
and the Job. Pod I (JOB_COMPLETION_INDEX) runs "fsmove bench pod", share I+1
of N, into shard-I+1-of-N/ on the results volume; a failed pod is retried
(--retries) and resumes its share. Then "fsmove bench merge" puts the
shares together. Build the pod's image with "fsmove image build
--bench-pod" and push it where the cluster pulls from. Modules must be
deb: packages or Forge names: a directory of this machine is not in the pods.`,
	examples: []example{
		{"fsmove image build --bench-pod --tag REG/fsmove/bench-pod:bookworm", "the pods' image, to push"},
		{"fsmove bench k8s --shards 40 --parallelism 10 --image IMG corpus.txt", "10 pods at once"},
	},
	groups: []flagGroup{
		{"The Job", []string{"shards", "parallelism", "retries", "workers", "image", "name", "namespace", "claim"}},
		{"What each pod's bench does", []string{"suite", "tracer", "trusted", "init", "timeout", "untraced", "confirm", "idempotence"}},
	},
	more: `More: README.md ("A corpus on a cluster"), docs/DESIGN.md ("A corpus on a cluster").`,
}

// benchK8sFlags are fsmove bench k8s's own flags (the bench's flags it
// passes on to each pod are podBenchFlags).
type benchK8sFlags struct {
	shards, parallelism, retries, workers int
	image, name, namespace, claim         string
}

// podBenchFlags are the fsmove bench flags that fsmove bench k8s passes
// on to each pod's bench when given.
var podBenchFlags = []string{"suite", "tracer", "trusted", "init", "timeout", "untraced", "confirm", "idempotence"}

func newBenchK8sCmd(c *cli) *cobra.Command {
	var f benchK8sFlags
	cmd := &cobra.Command{
		Use:   "k8s",
		Short: "print the Kubernetes manifests that run a corpus as an Indexed Job",
	}
	fs := cmd.Flags()
	fs.IntVar(&f.shards, "shards", 0, "shares of the corpus: the Job's completions, one pod each (required)")
	fs.IntVar(&f.parallelism, "parallelism", 0, "pods at once (default: every share)")
	fs.IntVar(&f.retries, "retries", 2, "retries of a share whose pod failed (backoffLimitPerIndex)")
	fs.IntVar(&f.workers, "workers", 2, "modules a pod runs at once (its CPU request; 4 GiB of memory each)")
	fs.StringVar(&f.image, "image", "", "the pods' `image`, as the cluster pulls it (default fsmove/bench-pod:SUITE)")
	fs.StringVar(&f.name, "name", "fsmove-bench", "`name` of the Job, and prefix of its ConfigMap and claim")
	fs.StringVar(&f.namespace, "namespace", "fsmove-bench", "`namespace` of every object")
	fs.StringVar(&f.claim, "claim", "", "an existing ReadWriteMany PersistentVolumeClaim for the results (default: one is made)")
	var all benchFlags
	benchFS := pflag.NewFlagSet("bench", pflag.ContinueOnError)
	addBenchFlags(benchFS, &all)
	for _, name := range podBenchFlags {
		fs.AddFlag(benchFS.Lookup(name))
	}
	setHelp(cmd, benchK8sHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		var passed []string
		for _, name := range podBenchFlags {
			if fl := fs.Lookup(name); fl.Changed {
				passed = append(passed, "--"+name+"="+fl.Value.String())
			}
		}
		return runBenchK8s(c.stdout, args, &f, all.suite, passed)
	}
	return cmd
}

func runBenchK8s(stdout io.Writer, args []string, f *benchK8sFlags, suite string, benchArgs []string) error {
	if len(args) != 1 {
		return usagef("give one corpus file")
	}
	if f.shards < 1 {
		return usagef("--shards N: how many shares (pods) the corpus is run in")
	}
	text, err := os.ReadFile(args[0])
	if err != nil {
		return usageError{err}
	}
	entries, err := corpus.ParseFile(args[0])
	if err != nil {
		return usageError{err}
	}
	var local []string
	for _, e := range entries {
		if e.Module.Kind == runner.SourceDir {
			local = append(local, fmt.Sprintf("line %d: %s", e.Line, e.Spec))
		}
	}
	if len(local) > 0 {
		return usagef("%s: a module directory of this machine is not in the pods; give deb: packages or Forge names (%s)", args[0], someModules(local))
	}
	image := f.image
	if image == "" {
		image = container.BenchPodImageTag(suite)
	}
	opts := k8s.Options{Name: f.name, Namespace: f.namespace, Image: image, Shards: f.shards, Parallelism: f.parallelism,
		Retries: f.retries, Workers: f.workers, CorpusFile: filepath.Base(args[0]), Corpus: text, Modules: len(entries),
		Claim: f.claim, BenchArgs: benchArgs}
	var manifests bytes.Buffer
	if err := k8s.Write(&manifests, opts); err != nil {
		return usageError{err}
	}
	fmt.Fprintf(stdout, "# fsmove bench k8s: %d modules of %s in %d shares (fsmove %s)\n"+
		"#   kubectl apply -f THIS_FILE\n"+
		"#   kubectl -n %s wait --for=condition=complete --timeout=24h job/%s\n"+
		"# then, in any pod that mounts the claim at %s:\n"+
		"#   fsmove bench merge --out %s/merged %s/shard-*-of-%d\n",
		len(entries), filepath.Base(args[0]), f.shards, buildVersion(), f.namespace, f.name, k8s.ResultsDir, k8s.ResultsDir, k8s.ResultsDir, f.shards)
	_, err = stdout.Write(manifests.Bytes())
	return err
}

var benchPodHelp = help{
	synopsis: `fsmove bench pod --shards N [fsmove bench flags] CORPUS`,
	description: `
What each pod of "fsmove bench k8s" runs: start a Docker engine in this
container (dockerd on /var/lib/docker), load the Puppet image the bench pod
image carries, then run share JOB_COMPLETION_INDEX+1 of N of CORPUS as
"fsmove bench --shard" into OUT/shard-I-of-N (resumed when a retried pod
finds it begun), and stop the engine. Needs the capabilities and the
unconfined seccomp and AppArmor profiles that fsmove bench k8s's manifest
gives the container.`,
	groups: []flagGroup{
		{"The share", []string{"shards", "out"}},
		{"fsmove bench's flags", []string{"workers", "timeout", "tracer", "trusted", "suite", "image", "init", "untraced", "confirm", "idempotence",
			"debian", "params", "seccomp-bpf", "docker-host", "quiet"}},
		{"Set by the pod itself (refused)", []string{"shard", "resume", "force"}},
	},
	exit: `Exit status: fsmove bench's.
`,
}

func newBenchPodCmd(c *cli) *cobra.Command {
	var f benchFlags
	var shards int
	cmd := &cobra.Command{
		Use:    "pod",
		Short:  "run one share of a corpus inside a pod of fsmove bench k8s's Job",
		Hidden: true, // run by the Job, not by hand
	}
	fs := cmd.Flags()
	addBenchFlags(fs, &f)
	fs.IntVar(&shards, "shards", 0, "shares of the corpus (the Job's completions)")
	setHelp(cmd, benchPodHelp)
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if f.shard != "" || f.resume || f.force {
			return usagef("fsmove bench pod sets --shard from %s, and resumes a begun share itself", k8s.IndexEnv)
		}
		return runBenchPod(cmd.Context(), c.stdout, c.stderr, args, &f, shards)
	}
	return cmd
}

func runBenchPod(ctx context.Context, stdout, stderr io.Writer, args []string, f *benchFlags, shards int) error {
	if shards < 1 {
		return usagef("--shards N: the Job's completions")
	}
	i, err := k8s.Index(shards)
	if err != nil {
		return usageError{err}
	}
	f.shard = strconv.Itoa(i) + "/" + strconv.Itoa(shards)
	f.out = filepath.Join(f.out, k8s.ShardDir(i, shards))
	// A retried pod finds its share begun: it goes on with it.
	f.resume = files.Exists(filepath.Join(f.out, corpusrun.RunsDir))
	eng, err := container.Connect(ctx)
	if err != nil {
		// No engine yet: the pod's own.
		podEngine, serr := k8s.StartEngine(ctx, stderr)
		if serr != nil {
			return runError{serr}
		}
		defer podEngine.Stop()
		eng, err = container.Connect(ctx)
	}
	if err != nil {
		return runError{err}
	}
	imgOpts := container.ImageOptions{Tag: f.image, Suite: f.suite}
	id, err := eng.ImageID(ctx, imgOpts.ImageTag())
	if err == nil && id == "" {
		err = eng.LoadImages(ctx, container.BenchPodImageDir, stderr)
	}
	eng.Close()
	if err != nil {
		return runError{err}
	}
	fmt.Fprintf(stderr, "fsmove bench pod: share %s into %s\n", f.shard, f.out)
	return runBench(ctx, stdout, stderr, args, f)
}
