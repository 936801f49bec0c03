// Package k8s writes the Kubernetes manifests that run a corpus as one
// Indexed Job, and starts what a pod of that Job needs (pod.go).
//
// Each pod is a container of the bench pod image
// (container.BenchPodImageTag): Debian with Docker Engine, fsmove, and the
// suite's Puppet image saved for loading. "fsmove bench pod" starts an
// engine inside the pod, loads the image, and runs share
// JOB_COMPLETION_INDEX+1 of the corpus into the results volume, where
// "fsmove bench merge" puts the shares together. docs/DESIGN.md ("A corpus
// on a cluster") says why the engine lives in the pod.
package k8s

import (
	"bytes"
	"fmt"
	"io"
	"strconv"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"
)

// Where a pod's container finds what the manifests give it.
const (
	CorpusDir  = "/corpus"  // the ConfigMap: the corpus file
	ResultsDir = "/results" // the shared volume: one directory per share
	EngineDir  = "/var/lib/docker"
	// IndexEnv is the variable an Indexed Job gives each pod: its index,
	// 0 to completions-1.
	IndexEnv = "JOB_COMPLETION_INDEX"
	// ContainerName is the bench container's name in the pod.
	ContainerName = "bench"
)

// PodSecurityLevel is the Pod Security Standard the namespace must allow:
// the bench container runs an engine of its own, which boots systemd in
// each module's container and sets the isolated network's rules, and
// fsmove loads the eBPF tracer: capabilities beyond the baseline's and no
// seccomp or AppArmor profile (Capabilities).
const PodSecurityLevel = "privileged"

// Capabilities are what the bench container adds to the runtime's default
// set, rather than "privileged: true" (every capability and every device
// of the node): mounts, cgroups and namespaces for its engine and eBPF
// (SYS_ADMIN, which Linux also takes for bpf() and perf events, so that
// runtimes that do not know BPF and PERFMON work too), bridges and
// iptables (NET_ADMIN), and what fsmove gives a module's container
// (SYS_PTRACE for the ptrace tracer; DAC_READ_SEARCH and SYS_NICE for
// daemons that keep them), besides IPC_LOCK for the eBPF maps of kernels
// that count them against the locked-memory limit.
var Capabilities = []corev1.Capability{"SYS_ADMIN", "NET_ADMIN", "SYS_PTRACE", "DAC_READ_SEARCH", "SYS_NICE", "IPC_LOCK"}

// BytesPerModule is the room a module's run directory takes on the results
// volume: on the Debian corpus its trace averaged 80 MB (bench/results/README.md,
// "A corpus on a cluster"), and the rest of the directory is small.
const BytesPerModule = 128 << 20

// Options describe the Job.
type Options struct {
	Name        string   // base name of every object: "fsmove-bench"
	Namespace   string   // made with PodSecurityLevel: "fsmove-bench"
	Image       string   // the bench pod image, as the cluster pulls it
	Shards      int      // completions: each pod runs one share
	Parallelism int      // pods at once (0: Shards)
	Retries     int      // retries of one index after a failed pod
	Workers     int      // modules a pod runs at once
	CorpusFile  string   // the corpus file's name in the ConfigMap
	Corpus      []byte   // its text
	Modules     int      // modules in the corpus, for the volume's size
	Claim       string   // an existing ReadWriteMany claim; "" makes one
	BenchArgs   []string // more flags for fsmove bench in each pod
}

// Command is the bench container's command line.
func (o Options) Command() []string {
	cmd := []string{"fsmove", "bench", "pod", "--shards", strconv.Itoa(o.Shards), "--out", ResultsDir,
		"--workers", strconv.Itoa(o.Workers)}
	cmd = append(cmd, o.BenchArgs...)
	return append(cmd, CorpusDir+"/"+o.CorpusFile)
}

// ShardDir is the directory, under the results volume, of share i of n
// (1-based), as "fsmove bench pod" names it.
func ShardDir(i, n int) string { return fmt.Sprintf("shard-%d-of-%d", i, n) }

// Objects are the manifests: the namespace, the corpus, the results
// volume's claim (unless Options.Claim) and the Job.
func Objects(o Options) ([]runtime.Object, error) {
	if o.Shards < 1 || o.Workers < 1 || o.Retries < 0 || o.Parallelism < 0 {
		return nil, fmt.Errorf("shards %d, workers %d, retries %d, parallelism %d: want at least 1, 1, 0, 0", o.Shards, o.Workers, o.Retries, o.Parallelism)
	}
	parallelism := o.Parallelism
	if parallelism == 0 || parallelism > o.Shards {
		parallelism = o.Shards
	}
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: map[string]string{"app.kubernetes.io/name": "fsmove-bench", "app.kubernetes.io/instance": o.Name}}
	}
	ns := &corev1.Namespace{
		TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
		ObjectMeta: metav1.ObjectMeta{Name: o.Namespace, Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": PodSecurityLevel,
			"pod-security.kubernetes.io/warn":    PodSecurityLevel,
		}},
	}
	corpusMap := &corev1.ConfigMap{
		TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: meta(o.Name + "-corpus"),
		Data:       map[string]string{o.CorpusFile: string(o.Corpus)},
	}
	objs := []runtime.Object{ns, corpusMap}
	claim := o.Claim
	if claim == "" {
		claim = o.Name + "-results"
		size := int64(o.Modules) * BytesPerModule
		gi := (size + 1<<30 - 1) >> 30
		objs = append(objs, &corev1.PersistentVolumeClaim{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "PersistentVolumeClaim"},
			ObjectMeta: meta(claim),
			Spec: corev1.PersistentVolumeClaimSpec{
				// Every pod writes its share, wherever it runs.
				AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteMany},
				Resources: corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{
					corev1.ResourceStorage: *resource.NewQuantity(max(gi, 1)<<30, resource.BinarySI),
				}},
			},
		})
	}
	shards, par, retries := int32(o.Shards), int32(parallelism), int32(o.Retries)
	indexed := batchv1.IndexedCompletion
	container := corev1.Container{
		Name:            ContainerName,
		Image:           o.Image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         o.Command(),
		// Kubernetes sets JOB_COMPLETION_INDEX itself (1.22 and later);
		// said here so that the manifest shows where the share comes from.
		Env: []corev1.EnvVar{{Name: IndexEnv, ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{
			FieldPath: "metadata.annotations['batch.kubernetes.io/job-completion-index']"}}}},
		SecurityContext: &corev1.SecurityContext{
			Capabilities:    &corev1.Capabilities{Add: Capabilities},
			SeccompProfile:  &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeUnconfined},
			AppArmorProfile: &corev1.AppArmorProfile{Type: corev1.AppArmorProfileTypeUnconfined},
		},
		Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{
			corev1.ResourceCPU: *resource.NewQuantity(int64(o.Workers), resource.DecimalSI),
			// A module's container may take 4 GiB (fsmove run's default
			// --memory), and the pod's engine and fsmove one more.
			corev1.ResourceMemory: *resource.NewQuantity(int64(o.Workers*4+1)<<30, resource.BinarySI),
		}},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "corpus", MountPath: CorpusDir, ReadOnly: true},
			{Name: "results", MountPath: ResultsDir},
			{Name: "engine", MountPath: EngineDir},
		},
	}
	job := &batchv1.Job{
		TypeMeta:   metav1.TypeMeta{APIVersion: "batch/v1", Kind: "Job"},
		ObjectMeta: meta(o.Name),
		Spec: batchv1.JobSpec{
			CompletionMode:       &indexed,
			Completions:          &shards,
			Parallelism:          &par,
			BackoffLimitPerIndex: &retries,
			// An input error (exit 2) fails the same way again: its index
			// is not retried. Any other failure (3: the engine, the disk)
			// is, and the retry resumes the share.
			PodFailurePolicy: &batchv1.PodFailurePolicy{Rules: []batchv1.PodFailurePolicyRule{{
				Action: batchv1.PodFailurePolicyActionFailIndex,
				OnExitCodes: &batchv1.PodFailurePolicyOnExitCodesRequirement{
					ContainerName: ptr(ContainerName), Operator: batchv1.PodFailurePolicyOnExitCodesOpIn, Values: []int32{2},
				},
			}}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: meta("").Labels},
				Spec: corev1.PodSpec{
					RestartPolicy:                 corev1.RestartPolicyNever,
					TerminationGracePeriodSeconds: ptr(int64(120)), // the bench removes its containers
					Containers:                    []corev1.Container{container},
					Volumes: []corev1.Volume{
						{Name: "corpus", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
							LocalObjectReference: corev1.LocalObjectReference{Name: corpusMap.Name}}}},
						{Name: "results", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}},
						// The pod's engine keeps its images and containers
						// on the node's disk, not in the container's own
						// overlay (an overlay on an overlay does not mount).
						{Name: "engine", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}},
					},
				},
			},
		},
	}
	return append(objs, job), nil
}

func ptr[T any](v T) *T { return &v }

// Write writes the manifests as one YAML stream, for kubectl apply -f -.
func Write(w io.Writer, o Options) error {
	objs, err := Objects(o)
	if err != nil {
		return err
	}
	var b bytes.Buffer
	for i, obj := range objs {
		if i > 0 {
			b.WriteString("---\n")
		}
		data, err := yaml.Marshal(obj)
		if err != nil {
			return err
		}
		// The objects have no status yet: leave out what says so.
		data = bytes.ReplaceAll(data, []byte("\nstatus: {}\n"), []byte("\n"))
		data = bytes.ReplaceAll(data, []byte("\nspec: {}\n"), []byte("\n"))
		b.Write(data)
	}
	_, err = w.Write(b.Bytes())
	return err
}
