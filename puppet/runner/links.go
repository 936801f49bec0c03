package runner

// The image's links into /run, recorded before the apply: Debian's
// /var/run → /run and /var/lock → /run/lock (FHS 3.0). A module that
// writes /var/run/x while another resource reads /run/x touches one file;
// without the link the model would see two, and a missing ordering between
// them would pass as clean. The analysis's model starts with them
// (interp.Options.Links).
//
// Only links into /run are kept: /run is the tmpfs fsmove mounts, which no
// package ships files in. The merged-/usr links (/bin, /lib, /sbin) would
// also make two names one, but dpkg's file lists (packages.tsv) name files
// by the names the packages ship (/lib/systemd/…), which the analysis
// matches against the trace's paths; those would have to be resolved the
// same way first.

import (
	"bufio"
	"io"
	"path"
	"strings"
)

// linksScript lists the symbolic links at the top of / and /var, each as
// "PATH<tab>TARGET".
const linksScript = `find / /var -mindepth 1 -maxdepth 1 -type l -printf '%p\t%l\n' 2>/dev/null; true`

// linksQuestion asks for the image's links; recordImageLinks reads its
// answer.
var linksQuestion = question{"links", linksScript, 1 << 16}

// recordImageLinks fills ImageLinks from the answer to linksQuestion, asked
// in the booted container before any of the module's code runs. A failure
// is said; the analysis then has no links to start with.
func (r *run) recordImageLinks(a *answer) {
	if err := a.err(); err != nil {
		r.warnf(err, "fsmove: the image's links are not known (a path through /var/run is not one with /run): %v\n", err)
		return
	}
	if links := parseRunLinks(&a.out); len(links) > 0 {
		r.rec.ImageLinks = links
	}
}

// parseRunLinks reads linksScript's output and keeps the links whose
// target, resolved against the link's directory, is /run or under it.
func parseRunLinks(r io.Reader) map[string]string {
	links := map[string]string{}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		link, target, ok := strings.Cut(sc.Text(), "\t")
		if !ok || !strings.HasPrefix(link, "/") || target == "" {
			continue
		}
		abs := target
		if !strings.HasPrefix(abs, "/") {
			abs = path.Join(path.Dir(link), target)
		}
		if abs = path.Clean(abs); abs == "/run" || strings.HasPrefix(abs, "/run/") {
			links[path.Clean(link)] = target
		}
	}
	return links
}
