package main

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fsmove/fsmove/bench/k8s"
	"github.com/fsmove/fsmove/bench/results"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// TestE2EBenchK8s runs a corpus as fsmove bench k8s's Job would, with no
// cluster: the manifests, decoded strictly into Kubernetes' own types, say
// the pod's container (image, command, environment, security context,
// volumes); each index's pod is that container under plain Docker, with
// JOB_COMPLETION_INDEX set as the Job sets it, the ConfigMap's files and
// one results directory for every pod; the shares merged must give what
// one fsmove bench of the corpus on this machine gives.
func TestE2EBenchK8s(t *testing.T) {
	t.Parallel()
	requireDocker(t)
	useBuiltBinary(t)
	bin := built.bin
	tmp := t.TempDir()
	corpusFile := filepath.Join(tmp, "corpus.txt")
	// Two small Debian modules: one with a finding (apt's), one clean.
	corpusText := "deb:puppet-module-puppetlabs-apt\ndeb:puppet-module-puppetlabs-stdlib\n"
	if err := os.WriteFile(corpusFile, []byte(corpusText), 0o644); err != nil {
		t.Fatal(err)
	}
	fsmove := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("fsmove %s: %v\n%s\n%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}
	fsmove("image", "build", "--bench-pod", "--quiet")

	// A local directory is not in the pods: refused, whole.
	dirCorpus := filepath.Join(tmp, "dirs.txt")
	os.WriteFile(dirCorpus, []byte(filepath.Join("..", "..", "testdata", "modules", "clean")+"\n"), 0o644)
	if out, err := exec.Command(bin, "bench", "k8s", "--shards", "2", dirCorpus).CombinedOutput(); err == nil || !strings.Contains(string(out), "line 1: ") {
		t.Errorf("a corpus of directories: %v\n%s", err, out)
	}

	const shards = 2
	manifests := fsmove("bench", "k8s", "--shards", fmt.Sprint(shards), "--workers", "1", corpusFile)
	job, corpusMap, ns := decodeManifests(t, manifests)
	if job.Spec.CompletionMode == nil || *job.Spec.CompletionMode != batchv1.IndexedCompletion || job.Spec.Completions == nil ||
		*job.Spec.Completions != shards || job.Spec.BackoffLimitPerIndex == nil || job.Spec.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Fatalf("job: %+v", job.Spec)
	}
	if ns.Labels["pod-security.kubernetes.io/enforce"] != k8s.PodSecurityLevel || job.Namespace != ns.Name || corpusMap.Namespace != ns.Name {
		t.Errorf("namespace %+v; job in %q, corpus in %q", ns.ObjectMeta, job.Namespace, corpusMap.Namespace)
	}
	if corpusMap.Data["corpus.txt"] != corpusText {
		t.Errorf("the ConfigMap's corpus: %q", corpusMap.Data)
	}
	pod := job.Spec.Template.Spec
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	if c.SecurityContext == nil || c.SecurityContext.Privileged != nil && *c.SecurityContext.Privileged {
		t.Errorf("security context %+v: want capabilities, not privileged", c.SecurityContext)
	}

	// Each index's pod, one after the other (--parallelism 1).
	resultsDir := filepath.Join(tmp, "results")
	configDir := filepath.Join(tmp, "configmap")
	os.MkdirAll(resultsDir, 0o755)
	os.MkdirAll(configDir, 0o755)
	for name, data := range corpusMap.Data {
		os.WriteFile(filepath.Join(configDir, name), []byte(data), 0o644)
	}
	for i := range int(*job.Spec.Completions) {
		args := podAsDockerRun(t, pod, c, i, map[string]string{"ConfigMap": configDir, "PersistentVolumeClaim": resultsDir}, tmp)
		if out, err := exec.Command("docker", args...).CombinedOutput(); err != nil {
			t.Fatalf("pod %d: docker %s: %v\n%s", i, strings.Join(args, " "), err, out)
		}
	}

	var parts []string
	for i := 1; i <= shards; i++ {
		parts = append(parts, filepath.Join(resultsDir, k8s.ShardDir(i, shards)))
	}
	merged := filepath.Join(tmp, "merged")
	fsmove(append([]string{"bench", "merge", "--out", merged}, parts...)...)
	one := filepath.Join(tmp, "one")
	fsmove("bench", "--quiet", "--out", one, "--workers", "1", corpusFile)
	if a, b := benchSummary(t, one), benchSummary(t, merged); !slices.Equal(a, b) || len(a) != 2 {
		t.Errorf("the pods' merged shares differ from one bench here:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	var provOne, provMerged results.Provenance
	if err := results.ReadJSONFile(one, results.ProvenanceJSON, &provOne); err != nil {
		t.Fatal(err)
	}
	if err := results.ReadJSONFile(merged, results.ProvenanceJSON, &provMerged); err != nil {
		t.Fatal(err)
	}
	if provOne.ImageID == "" || provMerged.ImageID != provOne.ImageID || provMerged.CorpusSHA256 != provOne.CorpusSHA256 || provMerged.Tracer != provOne.Tracer {
		t.Errorf("provenance of the pods' shares %+v, of one bench %+v: want the same image, corpus and tracer", provMerged, provOne)
	}
}

// decodeManifests reads fsmove bench k8s's YAML stream strictly into
// Kubernetes' types: an unknown field fails the test.
func decodeManifests(t *testing.T, text string) (*batchv1.Job, *corev1.ConfigMap, *corev1.Namespace) {
	t.Helper()
	var job *batchv1.Job
	var cm *corev1.ConfigMap
	var ns *corev1.Namespace
	for _, doc := range strings.Split(text, "\n---\n") {
		var meta metav1.TypeMeta
		if err := yaml.Unmarshal([]byte(doc), &meta); err != nil {
			t.Fatalf("manifest: %v\n%s", err, doc)
		}
		var obj any
		switch meta.Kind {
		case "Job":
			job = &batchv1.Job{}
			obj = job
		case "ConfigMap":
			cm = &corev1.ConfigMap{}
			obj = cm
		case "Namespace":
			ns = &corev1.Namespace{}
			obj = ns
		case "PersistentVolumeClaim":
			obj = &corev1.PersistentVolumeClaim{}
		default:
			t.Fatalf("a manifest of kind %q", meta.Kind)
		}
		if err := yaml.UnmarshalStrict([]byte(doc), obj); err != nil {
			t.Fatalf("%s: %v", meta.Kind, err)
		}
	}
	if job == nil || cm == nil || ns == nil {
		t.Fatalf("manifests lack a Job, ConfigMap or Namespace:\n%s", text)
	}
	return job, cm, ns
}

// podAsDockerRun is docker run's arguments for the pod of index i: the
// container's image, command and security context, JOB_COMPLETION_INDEX,
// its volumes from dirs (by the volume source's kind; an emptyDir is a new
// directory under tmp).
func podAsDockerRun(t *testing.T, pod corev1.PodSpec, c corev1.Container, i int, dirs map[string]string, tmp string) []string {
	t.Helper()
	var b [4]byte
	rand.Read(b[:])
	name := fmt.Sprintf("fsmove-k8s-test-%s-%d", hex.EncodeToString(b[:]), i)
	t.Cleanup(func() { exec.Command("docker", "rm", "-f", name).Run() })
	args := []string{"run", "--rm", "--name", name}
	sc := c.SecurityContext
	if sc.Privileged != nil && *sc.Privileged {
		args = append(args, "--privileged")
	}
	if sc.Capabilities != nil {
		for _, c := range sc.Capabilities.Add {
			args = append(args, "--cap-add", string(c))
		}
	}
	if sc.SeccompProfile != nil && sc.SeccompProfile.Type == corev1.SeccompProfileTypeUnconfined {
		args = append(args, "--security-opt", "seccomp=unconfined")
	}
	if sc.AppArmorProfile != nil && sc.AppArmorProfile.Type == corev1.AppArmorProfileTypeUnconfined {
		args = append(args, "--security-opt", "apparmor=unconfined")
	}
	for _, e := range c.Env {
		if e.Name == k8s.IndexEnv {
			args = append(args, "-e", fmt.Sprintf("%s=%d", k8s.IndexEnv, i))
		} else if e.ValueFrom == nil {
			args = append(args, "-e", e.Name+"="+e.Value)
		}
	}
	if !slices.ContainsFunc(c.Env, func(e corev1.EnvVar) bool { return e.Name == k8s.IndexEnv }) {
		args = append(args, "-e", fmt.Sprintf("%s=%d", k8s.IndexEnv, i)) // the Job sets it anyway
	}
	for _, m := range c.VolumeMounts {
		idx := slices.IndexFunc(pod.Volumes, func(v corev1.Volume) bool { return v.Name == m.Name })
		if idx < 0 {
			t.Fatalf("mount of an undeclared volume %q", m.Name)
		}
		var src string
		switch v := pod.Volumes[idx].VolumeSource; {
		case v.ConfigMap != nil:
			src = dirs["ConfigMap"]
		case v.PersistentVolumeClaim != nil:
			src = dirs["PersistentVolumeClaim"]
		case v.EmptyDir != nil:
			src = filepath.Join(tmp, fmt.Sprintf("emptydir-%s-%d", m.Name, i))
			os.MkdirAll(src, 0o755)
		default:
			t.Fatalf("volume %q of an unknown kind", m.Name)
		}
		opt := src + ":" + m.MountPath
		if m.ReadOnly {
			opt += ":ro"
		}
		args = append(args, "-v", opt)
	}
	args = append(args, c.Image)
	return append(args, append(c.Command, c.Args...)...)
}
