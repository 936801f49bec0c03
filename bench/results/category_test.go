package results

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/fsmove/fsmove/puppet/runner"
)

// Real error texts of the Debian corpus (Puppet 7 on Debian 12), each with
// the category a reader acts on; near misses where a rule could overreach.
func TestCategorize(t *testing.T) {
	cases := []struct {
		status, text, want string
	}{
		{StatusOK, "Error: anything", ""},
		{StatusTimeout, "timed out in step apply", CategoryTimeout},
		{StatusTimeout, "Error: Unknown resource type: 'cron'", CategoryTimeout},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, Class[Ceph]: expects a value for parameter 'fsid' (file: /fsmove/site.pp, line: 1, column: 1) on node fsmove-node", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, Class[Zookeeper]: parameter 'realm' expects a String value, got Undef (file: /fsmove/site.pp, line: 1, column: 1)", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, Please set password for heat service user (file: /usr/share/puppet/modules/heat/manifests/keystone/authtoken.pp, line: 242, column: 5)", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, Require at least a join password (file: /usr/share/puppet/modules/ipaclient/manifests/init.pp, line: 122, column: 7)", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, galera::status_password unset. Please specify a password for the clustercheck MySQL user.", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, You must specify at least swift_hash_path_prefix or swift_hash_path_suffix", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, You must provide a value for multicast_address, unicast_address or cluster_name.", CategoryMissingParameter},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Resource Statement, Unknown resource type: 'augeas' (file: /usr/share/puppet/modules/redis/manifests/ulimit.pp, line: 57, column: 5)", CategoryMissingType},
		{StatusCompileFailed, "Error: Evaluation Error: Resource type not found: Stdlib::Ip_address (file: /usr/share/puppet/modules/quagga/manifests/init.pp, line: 11, column: 12)", CategoryMissingType},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Resource Statement, Oslo::Messaging::Amqp[congress_config]: has no parameter named 'allow_insecure_clients' (file: /usr/share/puppet/modules/congress/manifests/init.pp, line: 271)", CategoryMissingType},
		{StatusCompileFailed, "Error: Evaluation Error: Error while evaluating a Function Call, Could not find class ::vswitch:: for fsmove-node", CategoryMissingType},
		{StatusApplyFailed, "Error: Could not find init script for 'pdns'", CategoryNoProvider},
		{StatusApplyFailed, "Error: Execution of '/usr/bin/apt-get -q -y -o DPkg::Options::=--force-confold install etcd' returned 100: Reading package lists...\nBuilding dependency tree...\nReading state information...\nPackage etcd is not available, but is referred to by another package.", CategoryPackageMissing},
		{StatusApplyFailed, "Error: Execution of '/usr/bin/apt-get -q -y -o DPkg::Options::=--force-confold install panko-common' returned 100: Reading package lists...\nBuilding dependency tree...\nReading state information...\nE: Unable to locate package panko-common", CategoryPackageMissing},
		// Near miss: apt failing for another reason is not a missing package.
		{StatusApplyFailed, "Error: Execution of '/usr/bin/apt-get -q -y install foo' returned 100: Reading package lists...\nE: Sub-process /usr/bin/dpkg returned an error code (1)", CategoryUnknown},
		{StatusApplyFailed, "Error: Could not set 'present' on ensure: could not resolve https://…/GPG-KEY-elasticsearch (file: /usr/share/puppet/modules/apt/manifests/key.pp, line: 54)", CategoryNeedsNetwork},
		{StatusApplyFailed, "Error: /Stage[main]/Murano::Db::Sync/Exec[murano-dbmanage]: Failed to call refresh: 'murano-db-manage --config-file /etc/murano/murano.conf upgrade' returned 1 instead of one of [0]", CategoryNeedsService},
		{StatusApplyFailed, "Error: /Stage[main]/Cloudkitty::Storage/Exec[cloudkitty-storage-init]: Failed to call refresh: 'cloudkitty-storage-init --config-file /etc/cloudkitty/cloudkitty.conf' returned 1 instead of one of [0]\nNotice: /Stage[main]/Cloudkitty::Storage/Exec[cloudkitty-storage-init]/returns: ERROR cloudkitty influxdb.exceptions.InfluxDBClientError: get_list_retention_policies() requires a database as a parameter or the client to be using a database", CategoryNeedsService},
		{StatusApplyFailed, "Error: '/usr/sbin/ipa-client-install --realm FSMOVE.TEST --password x --server ipa.fsmove.test --no-sudo --unattended' returned 1 instead of one of [0]\nNotice: /Stage[main]/Ipaclient/Exec[ipa_installer]/returns: Skip ipa.fsmove.test: LDAP server is not responding, unable to verify if this is an IPA server", CategoryNeedsService},
		// The first error a rule explains wins, not the first rule: mcollective's
		// File fails on a source Debian's package does not ship, and later a
		// cron resource finds no cron (its consequences and its side issues).
		{StatusApplyFailed, "Error: /Stage[main]/Mcollective::Common::Config/File[/opt/puppetlabs/mcollective]: Could not evaluate: Could not retrieve information from environment production source(s) puppet:///modules/mcollective/site_libdir\nError: Cannot create /etc/puppetlabs/mcollective/policies; parent directory /etc/puppetlabs/mcollective does not exist\nError: Could not find a suitable provider for cron", CategoryModuleBug},
		// Near miss: an error no rule explains does not hide a later one that is explained.
		{StatusApplyFailed, "Error: /Stage[main]/X/Exec[y]: Failed to call refresh: 'y' returned 1 instead of one of [0]\nError: Could not find a suitable provider for cron", CategoryNoProvider},
		{StatusApplyFailed, "Error: Cannot create /usr/local/nagios/tdc; parent directory /usr/local/nagios does not exist", CategoryModuleBug},
		{StatusApplyFailed, "Error: Could not set 'file' on ensure: No such file or directory - A directory component in /etc/cron.hourly/x.lock does not exist or is a dangling symbolic link (file: /usr/share/puppet/modules/archvsync/manifests/init.pp, line: 521)", CategoryModuleBug},
		{StatusCompileFailed, "Error: Evaluation Error: Comparison of: String < Integer, is not possible. Caused by 'A String is not comparable to a non String'. (file: /usr/share/puppet/modules/monit/manifests/params.pp, line: 26, column: 35)", CategoryModuleBug},
		{StatusCompileFailed, "Error: Facter: Error while resolving custom fact fact='ssh_client_version_full', resolution='<anonymous>': undefined method `lines' for nil:NilClass", CategoryModuleBug},
		{StatusApplyFailed, "Error: Systemd start for redis-server failed!\njournalctl log for redis-server:\n... systemd[1]: redis-server.service: Failed to get cgroup ID of cgroup /sys/fs/cgroup/x, ignoring: Operation not permitted\n... (s-server)[460]: redis-server.service: Failed to set up user namespacing for unprivileged user: Operation not permitted", CategoryContainer},
		// A unit's BindReadOnlyPaths= needs a mount namespace, which systemd
		// cannot make without CAP_SYS_ADMIN (haproxy on Debian 12).
		{StatusApplyFailed, "Error: Systemd start for haproxy failed!\njournalctl log for haproxy:\nNov 24 19:35:39 fsmove-node.fsmove.test (haproxy)[433]: haproxy.service: Failed to set up mount namespacing: Operation not supported\nNov 24 19:35:39 fsmove-node.fsmove.test (haproxy)[433]: haproxy.service: Failed at step NAMESPACE spawning /usr/sbin/haproxy: Operation not supported", CategoryContainer},
		// Near miss: every journal excerpt has systemd's ignored cgroup-id
		// EPERM; a daemon that fails for its own reason is not the container's.
		{StatusApplyFailed, "Error: Systemd start for sssd failed!\njournalctl log for sssd:\n... systemd[1]: sssd.service: Failed to get cgroup ID of cgroup /sys/fs/cgroup/x, ignoring: Operation not permitted\n... sssd[1]: Fatal error initializing confdb", CategoryUnknown},
		{StatusInfraError, "no Docker", CategoryUnknown},
	}
	seen := map[string]bool{}
	for _, c := range cases {
		got := Categorize(c.status, c.text)
		if got != c.want {
			t.Errorf("Categorize(%s, %.90q) = %q, want %q", c.status, c.text, got, c.want)
		}
		seen[got] = true
	}
	for _, cat := range Categories {
		if !seen[cat] {
			t.Errorf("no case reaches category %q", cat)
		}
	}
}

// FromRunDir reads the category from the run directory: apt's reason is
// on the lines after Puppet's Error line, in colour.
func TestFromRunDirCategory(t *testing.T) {
	dir := t.TempDir()
	rec := &runner.RunRecord{Status: runner.StatusPuppetFailed, Error: "Puppet exited with 6 (changes-and-failures)"}
	rec.AddStep("apply", 0, true, "")
	if err := rec.Write(dir); err != nil {
		t.Fatal(err)
	}
	log := "Notice: /Stage[main]/X/Exec[init]/returns: Connection refused\n\x1b[mNotice: Compiled catalog\x1b[0m\n\x1b[1;31mError: Execution of '/usr/bin/apt-get -q -y install etcd' returned 100: Reading package lists...\nBuilding dependency tree...\nPackage etcd is not available, but is referred to by another package.\x1b[0m\nDebug: next\n"
	os.WriteFile(filepath.Join(dir, runner.PuppetLogFile), []byte(log), 0o644)
	row, err := FromRunDir("m", "1", dir)
	if err != nil {
		t.Fatal(err)
	}
	// A missing package is named before a service an Exec could not reach
	// (the rules go in order).
	if row.Category != CategoryPackageMissing || row.FirstError != "Error: Execution of '/usr/bin/apt-get -q -y install etcd' returned 100: Reading package lists..." {
		t.Errorf("category %q, first error %q", row.Category, row.FirstError)
	}
}
