package container

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/docker/docker/api/types/network"
)

// Networks a container can be on (--network).
const (
	// NetworkIsolated (the default): fsmove's own bridge network. The
	// container reaches the outside through the host's NAT, as apt needs
	// to install packages, but not the host's own services (the host drops
	// what comes in from the bridge, but DNS), nor a link-local address
	// beyond the host (a cloud's metadata service), nor other containers
	// (no traffic between containers on it; Docker isolates it from its
	// other networks). It has no IPv6, so no IPv6 link-local address
	// either.
	NetworkIsolated = "isolated"
	// NetworkNone: no network but loopback, for modules that install
	// nothing.
	NetworkNone = "none"
	// NetworkBridge: Docker's default bridge, where the container reaches
	// the host's services and the other containers on that bridge.
	NetworkBridge = "bridge"
)

// Networks lists the --network values.
var Networks = []string{NetworkIsolated, NetworkNone, NetworkBridge}

// ParseNetwork reads a --network value (case does not matter).
func ParseNetwork(s string) (string, error) {
	for _, n := range Networks {
		if strings.EqualFold(s, n) {
			return n, nil
		}
	}
	return "", fmt.Errorf("unknown network %q (want %s)", s, strings.Join(Networks, ", "))
}

// isolatedNetwork is the Docker network of NetworkIsolated and its bridge
// interface on the host; inputChain is the host's iptables chain that keeps
// the bridge's traffic from the host, forwardChain the one that keeps it
// from link-local addresses the host would route it to.
const (
	isolatedNetwork = "fsmove"
	isolatedBridge  = "fsmove0"
	inputChain      = "FSMOVE-INPUT"
	forwardChain    = "FSMOVE-FORWARD"
)

// networkMode turns a --network value into the container's network mode,
// making the isolated network first when it is missing.
func (e *Engine) networkMode(ctx context.Context, n string) (string, error) {
	switch n {
	case "", NetworkIsolated:
		if err := e.ensureIsolated(ctx); err != nil {
			return "", err
		}
		return isolatedNetwork, nil
	case NetworkNone, NetworkBridge:
		return n, nil
	}
	return "", fmt.Errorf("unknown network %q (want %s)", n, strings.Join(Networks, ", "))
}

// isolatedMu guards Engine.isolatedReady: the network and its rules are
// made once per engine and process, and stay for the next runs.
var isolatedMu sync.Mutex

// ensureIsolated makes the isolated network if it is missing (another
// fsmove may make it at the same moment: that is fine) and the host's rule
// that drops what comes in from its bridge.
func (e *Engine) ensureIsolated(ctx context.Context) error {
	isolatedMu.Lock()
	defer isolatedMu.Unlock()
	if e.isolatedReady {
		return nil
	}
	if !e.local {
		return fmt.Errorf("the isolated network needs fsmove beside the Docker engine, to keep containers from " +
			"the engine host's services; with a remote engine choose --network bridge or --network none")
	}
	nw, err := e.cli.NetworkInspect(ctx, isolatedNetwork, network.InspectOptions{})
	if err == nil {
		err = checkIsolated(nw)
	}
	if cerrdefs.IsNotFound(err) {
		_, err = e.cli.NetworkCreate(ctx, isolatedNetwork, network.CreateOptions{
			Driver: "bridge",
			Options: map[string]string{
				"com.docker.network.bridge.name":       isolatedBridge,
				"com.docker.network.bridge.enable_icc": "false",
			},
			Labels: map[string]string{LabelKey: LabelValue},
		})
		if cerrdefs.IsConflict(err) {
			err = nil // made meanwhile by another fsmove
		}
	}
	if err != nil {
		return fmt.Errorf("fsmove's network %q: %w", isolatedNetwork, err)
	}
	if _, err := os.Stat("/sys/class/net/" + isolatedBridge); err != nil {
		// A rootless engine, or one in another network namespace: the
		// host's rule would not see the bridge.
		return fmt.Errorf("fsmove's network has no bridge %s on this host, where its rule must keep containers from "+
			"the host's services (%v): choose --network bridge or --network none", isolatedBridge, err)
	}
	if err := dropInput(); err != nil {
		return fmt.Errorf("keeping containers on fsmove's network from the host's services: %w\n"+
			"(install iptables, or choose --network bridge, where the container reaches the host and other "+
			"containers, or --network none)", err)
	}
	if err := dropLinkLocal(); err != nil {
		return fmt.Errorf("keeping containers on fsmove's network from link-local addresses (a cloud's metadata service): %w", err)
	}
	e.isolatedReady = true
	return nil
}

// checkIsolated refuses a network called fsmove that is not the one
// ensureIsolated makes: the host's rule names its bridge, and containers on
// it must not reach each other.
func checkIsolated(nw network.Inspect) error {
	if nw.Driver != "bridge" || nw.Options["com.docker.network.bridge.name"] != isolatedBridge ||
		nw.Options["com.docker.network.bridge.enable_icc"] != "false" || nw.EnableIPv6 {
		return fmt.Errorf("a Docker network %q exists that fsmove did not make (driver %q, bridge %q, inter-container "+
			"traffic %q, IPv6 %v): remove it (docker network rm %s) and fsmove makes its own",
			isolatedNetwork, nw.Driver, nw.Options["com.docker.network.bridge.name"],
			nw.Options["com.docker.network.bridge.enable_icc"], nw.EnableIPv6, isolatedNetwork)
	}
	return nil
}

// inputRules are the host's rules for the isolated bridge: DNS passes (the
// host may be the resolver Docker forwards to), everything else addressed
// to the host itself is dropped. Forwarded traffic (to the mirror) is not
// INPUT and is not touched.
var inputRules = [][]string{
	{"-p", "udp", "--dport", "53", "-j", "RETURN"},
	{"-p", "tcp", "--dport", "53", "-j", "RETURN"},
	{"-j", "DROP"},
}

// forwardRules are the host's rules for what the isolated bridge sends
// through the host: nothing to a link-local address. A cloud machine's
// metadata service answers at 169.254.169.254 with the machine's
// credentials, and the host routes there on the container's behalf.
var forwardRules = [][]string{
	{"-d", "169.254.0.0/16", "-j", "DROP"},
}

// dropInput installs inputChain and the jump to it from INPUT.
func dropInput() error {
	return ensureChain(inputChain, inputRules, "INPUT")
}

// dropLinkLocal installs forwardChain and the jump to it from
// DOCKER-USER, the chain Docker keeps ahead of its own forwarding rules
// (which accept everything the bridge sends out); without it (Docker not
// managing iptables), from the top of FORWARD.
func dropLinkLocal() error {
	from := "DOCKER-USER"
	if _, err := iptables("-n", "-L", from); err != nil {
		from = "FORWARD"
	}
	return ensureChain(forwardChain, forwardRules, from)
}

// ensureChain installs chain with rules and the jump to it from parent for
// the isolated bridge's traffic, first in parent; each only if missing
// (iptables -C), so that it can run again and beside another fsmove.
func ensureChain(chain string, rules [][]string, parent string) error {
	if _, err := iptables("-n", "-L", chain); err != nil {
		if _, err := iptables("-N", chain); err != nil {
			if _, again := iptables("-n", "-L", chain); again != nil {
				return err
			}
		}
	}
	for _, r := range rules {
		if _, err := iptables(append([]string{"-C", chain}, r...)...); err == nil {
			continue
		}
		if _, err := iptables(append([]string{"-A", chain}, r...)...); err != nil {
			return err
		}
	}
	jump := []string{parent, "-i", isolatedBridge, "-j", chain}
	if _, err := iptables(append([]string{"-C"}, jump...)...); err == nil {
		return nil
	}
	_, err := iptables(append([]string{"-I"}, jump...)...)
	return err
}

// iptables runs the host's iptables, waiting for its lock.
func iptables(args ...string) (string, error) {
	path, err := exec.LookPath("iptables")
	if err != nil {
		return "", errors.New("iptables is not installed on this host")
	}
	var out bytes.Buffer
	cmd := exec.Command(path, append([]string{"-w"}, args...)...)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("iptables %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(out.String()))
	}
	return out.String(), nil
}
