package k8s

import (
	"bytes"
	"os"
	"slices"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

func testOptions() Options {
	return Options{Name: "fb", Namespace: "ns", Image: "reg/fsmove/bench-pod:bookworm", Shards: 4, Parallelism: 9, Retries: 1,
		Workers: 3, CorpusFile: "c.txt", Corpus: []byte("deb:puppet-module-puppetlabs-apt\n"), Modules: 100, BenchArgs: []string{"--untraced=true"}}
}

func TestObjects(t *testing.T) {
	objs, err := Objects(testOptions())
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 4 {
		t.Fatalf("%d objects, want namespace, corpus, claim, job", len(objs))
	}
	claim := objs[2].(*corev1.PersistentVolumeClaim)
	size := claim.Spec.Resources.Requests[corev1.ResourceStorage]
	if size.Value() != 13<<30 || !slices.Contains(claim.Spec.AccessModes, corev1.ReadWriteMany) {
		t.Errorf("claim %v %v: want 13Gi (100 modules of 128 MiB, rounded up), ReadWriteMany", size.String(), claim.Spec.AccessModes)
	}
	job := objs[3].(*batchv1.Job)
	if *job.Spec.Completions != 4 || *job.Spec.Parallelism != 4 || *job.Spec.BackoffLimitPerIndex != 1 {
		t.Errorf("completions %d, parallelism %d (more than the shares: want 4), retries %d", *job.Spec.Completions, *job.Spec.Parallelism, *job.Spec.BackoffLimitPerIndex)
	}
	c := job.Spec.Template.Spec.Containers[0]
	want := "fsmove bench pod --shards 4 --out /results --workers 3 --untraced=true /corpus/c.txt"
	if got := strings.Join(c.Command, " "); got != want {
		t.Errorf("command %q, want %q", got, want)
	}
	if cpu, mem := c.Resources.Requests[corev1.ResourceCPU], c.Resources.Requests[corev1.ResourceMemory]; cpu.Value() != 3 || mem.Value() != 13<<30 {
		t.Errorf("requests cpu %s memory %s, want 3 and 13Gi", cpu.String(), mem.String())
	}
	if rule := job.Spec.PodFailurePolicy.Rules[0]; rule.Action != batchv1.PodFailurePolicyActionFailIndex || !slices.Equal(rule.OnExitCodes.Values, []int32{2}) {
		t.Errorf("pod failure policy %+v: an input error must not be retried", rule)
	}

	o := testOptions()
	o.Claim = "mine"
	objs, _ = Objects(o)
	job = objs[len(objs)-1].(*batchv1.Job)
	if len(objs) != 3 || job.Spec.Template.Spec.Volumes[1].PersistentVolumeClaim.ClaimName != "mine" {
		t.Errorf("with a claim: %d objects, volumes %+v", len(objs), job.Spec.Template.Spec.Volumes)
	}
	for _, bad := range []func(*Options){
		func(o *Options) { o.Shards = 0 }, func(o *Options) { o.Workers = 0 }, func(o *Options) { o.Retries = -1 },
	} {
		o := testOptions()
		bad(&o)
		if _, err := Objects(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

// TestWrite: the stream is one document per object, each read back
// strictly by Kubernetes' types.
func TestWrite(t *testing.T) {
	var b bytes.Buffer
	if err := Write(&b, testOptions()); err != nil {
		t.Fatal(err)
	}
	docs := strings.Split(b.String(), "\n---\n")
	if len(docs) != 4 || strings.Contains(b.String(), "status: {}") {
		t.Fatalf("%d documents:\n%s", len(docs), b.String())
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict([]byte(docs[3]), &job); err != nil || job.Kind != "Job" || job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("job: %v %+v", err, job.Spec)
	}
}

func TestIndex(t *testing.T) {
	for _, c := range []struct {
		env  string
		n    int
		want int // 0: an error
	}{{"0", 2, 1}, {"1", 2, 2}, {"2", 2, 0}, {"-1", 2, 0}, {"x", 2, 0}, {" 3\n", 4, 4}} {
		t.Setenv(IndexEnv, c.env)
		got, err := Index(c.n)
		if got != c.want || (err != nil) != (c.want == 0) {
			t.Errorf("%s=%q of %d: %d, %v; want %d", IndexEnv, c.env, c.n, got, err, c.want)
		}
	}
	t.Setenv(IndexEnv, "")
	if _, err := Index(2); err == nil {
		t.Error("an empty index accepted")
	}
	os.Unsetenv(IndexEnv) // t.Setenv puts it back
	if _, err := Index(2); err == nil || !strings.Contains(err.Error(), "is not set") {
		t.Errorf("no index: %v", err)
	}
}
