// Package detector turns what each Puppet resource did to the file system
// (an interp.Result) into faults: it infers which resources must be ordered
// or must notify a service (paper §3.3.2), checks that against the catalog's
// dependency graph, and finds missing ordering relationships (MOR) and
// missing notifiers (MN); with a second apply of the catalog,
// non-idempotent resources (NI) too. Its outcome is one model, Report (the
// findings, their paths and evidence, groups, waivers, coverage, counts),
// which package report writes in every format (text, JSON, SARIF, JUnit,
// GitLab Code Quality, HTML); nothing here prints it.
//
// # Blocks and resources
//
// A block is resolved to its catalog resource by reference (title,
// namevar, alias), else to its generator (a resource made at apply time,
// catalog.Generator). The block of a systemd unit (interp.UnitBlock: the
// processes that run in system.slice/foo.service, started by systemd, not
// by Puppet) is the catalog's Service for that unit (title, name or alias
// foo or foo.service; catalog.UnitService), by any of the unit's names
// that systemd knows (Options.Units, systemd.go: its aliases, and the
// units it is PartOf=, which restart it); a unit no Service names but that
// a named unit triggers (a timer's service) is that Service's, with no
// notifier asked for its reads (triggeringService); another unit no
// Service names is no resource's, and its accesses are counted
// (unclaimed_accesses), not checked.
//
// # Relations
//
// Each rule is a general fact about Puppet, dpkg or Linux, lives in one
// function (rules.go unless said otherwise), and has a unit test with a
// case that is reported and a near miss that is not (rules_test.go).
//
// A block's access to a path is first read as a use (readUse):
//   - a File resource that reads or stats its own path (its path or title,
//     descendants too with recurse) is enforcing it, not needing it: it
//     produces the path even when the content was already right;
//   - an Exec's check of its creates path is not a need (rule 8): whoever
//     made the path, the check is met;
//   - otherwise a read before the block's own write (or without one), or a
//     removal, is a need of the path as the block found it; a read after
//     its own write is a use of its own product.
//
// b1 < b2 (must precede) on path p when b1 produced p and then, later in the
// trace (the direction is the trace's, rule 11), b2 (precedes):
//  1. overwrote it: b2 replaced the content without reading it first (a
//     File replacing a package's conffile, two resources writing one
//     file); metadata calls (chmod, chown, utime, xattr) do not overwrite,
//     and two resources that only ensure one directory commute;
//  2. modified it: b2 read it and wrote it back (file_line, ini_setting,
//     augeas, sed -i);
//  3. consumed it (generate-use, configure-use), or expunged it;
//  4. set its mode or owner, as a File on its own path, after b1 made the
//     file only because it was missing (an Exec's creates, a lookup that
//     failed first, a package's file): in the other order the File finds no
//     file, and does nothing or makes an empty one that b1 then leaves or
//     replaces (rule 18, setsMetadataOfMade);
//  5. looked it up before b1 made it and did not find it (observed): when
//     Puppet reported b2 failed, the fault happened in this run (rule 5,
//     relation missing, an observed finding); otherwise b2 went on without
//     it (an onlyif or unless test, a maintainer script's check: relation
//     missed, rule 19), and in the other order finds it. Not when b2 made
//     the path itself afterwards, nor for an Exec's creates (rule 8);
//  6. is a File that makes its own path when it is missing (ensure file,
//     directory, link), and p is that path's parent directory: in the other
//     order the File has to make its path, and cannot without the parent,
//     even when in this run it found its path made (a Package's conffile
//     directory). Puppet autorequires a parent that a File manages, not one
//     a Package or an Exec makes (rule 21, parentNeeds).
//
// b1 ⇝ b2 (must notify) when b2 is a Service that read p, before or after
// b1 produced it, or an Exec with refreshonly (it runs only when notified:
// newaliases, daemon-reload) that read it (notifies, blockRole.notifiable).
// A directory counts when b1 is the File that manages it and really
// changed it (created it, changed owner or mode, rule 3); a directory some
// other resource happened to make is not the service's configuration. A
// directory counts too when b2 read it as an include directory (it listed it,
// getdents, and then the listing program read a file in it: a daemon's
// conf.d) and b1 made or replaced a file in it after b2's last listing: the
// daemon runs without it (rule 20, fileAfterListing, listingIndex). A
// refreshonly Exec that nothing refreshed in this run ran nothing (Puppet
// checks refreshonly before unless and onlyif), so the trace cannot show
// what it reads: the absolute paths its command names as arguments (not its
// programs, not words the shell would expand) stand for its reads, and a
// resource that produced one of them and does not notify it is an MN: the
// change never reaches what the Exec makes (rule 26, command.go, relation
// Names). Package →
// Service notifications are opt-in (Options.PackageNotify): a package upgrade
// restarts its own service through the maintainer scripts.
//
// Not faults:
//   - two Packages are never paired: they meet in dpkg's own state, and apt
//     orders its installs (detect.go, relatePath);
//   - Puppet's and Ruby's temporary files (Dir::Tmpname names in /tmp and
//     /var/tmp, unlinked by the garbage collector in whichever block runs
//     next) are filtered like Puppet's own state (rule 7,
//     isRubyTempfile, DefaultFilterPrefixes);
//   - a pair that meets only on the account databases (/etc/passwd, group,
//     shadow, gshadow, subuid, subgid, their locks and backups,
//     nsswitch.conf, login.defs) is held back (rule 6, isAccountDatabase):
//     every owner lookup reads them, and User/Group order is Puppet's
//     autorequire business. Unless the consumer names (owner, group, gid,
//     groups; the user of an Exec, a Cron, an Ssh_authorized_key) an
//     account that was not on the node before the apply
//     (Options.Accounts), that no User or Group manages, and that no
//     resource but the producer (and Users and Groups) can have made (none
//     other wrote the database before the consumer read it): a
//     Package whose postinst ran adduser, before a File owned by that user
//     (accounts.go). In the other order Puppet cannot find the account
//     (account-databases);
//   - a pair of resources that commute is held back (rule 9): key-level
//     editors of one file with disjoint keys (catalog.Commute: ini_setting
//     and the *_config types, file_line, shellvar, augeas, debconf, the
//     parsedfile types such as mailalias and host), a metadata-only
//     File against a key-level editor or against a resource that only reads
//     or edits the content in place (commutes, metadata-before-content);
//   - a consumer that only needed a directory to exist, when another
//     producer of it is ordered before the consumer (rule 10, metByOther):
//     a directory made by both a Package and a File, and a File inside it
//     that requires the File.
//
// The rules that hold a relation or a finding back are the rows of one
// table (holds.go, holdRules), each with its number here, its name (in
// parentheses below: a held finding's HeldRule, report.json's held_rule,
// and the key of Stats.HeldBy), its stage and, for a path's relation, its
// function; a stage tries its rows in the table's order.
//
// What a relation needs (docs/DESIGN.md, "What changed"): the model says,
// per block and path, whether a production changed only metadata (chmod,
// chown, utime, xattrs), whether a consumption only looked at metadata or
// existence (stat, access), whether the path was executed, and whether a
// mode change left no execute bit. The path rules below hold a relation
// back, with its reason, one path at a time; a pair whose every relation is
// held is a held-back finding:
//  12. a production of metadata only does not matter to a consumer that
//     runs as root (every type but a Service, and an Exec with another
//     user): root reads, writes and removes whatever the mode and owner say,
//     unless every execute bit of a file it runs (or checks it can run) is
//     gone (metadata-for-root). And a File that found its own path right
//     produced it only if it manages what is in it
//     (catalog.EnforcesContent) or that it exists (ensure, its own path
//     only, not recursed descendants);
//  13. a producer that made the path only after looking it up and not
//     finding it (mkdir -p, a default written when there is none, an
//     Exec's creates) commutes with a resource that overwrites it: in the
//     other order it finds that one's path and leaves it. Not a Package:
//     dpkg replaces a file it finds that is not a conffile, keeps a
//     conffile only as one changed locally (its own as .dpkg-dist), and its
//     maintainer scripts may rewrite it, so a File that replaces a
//     package's file must follow the Package (made-when-missing);
//  14. an entry that a key-level editor (Host, augeas, file_line) adds to a
//     name-service database (/etc/hosts, services, protocols, networks, rpc,
//     ethers) changes only the lookups of its own names: a consumer whose
//     parameters name neither them nor the file (cp, grep work on every
//     entry) does not depend on it (other-names), in either order, nor
//     does a refreshonly Exec that read it need the refresh (it runs and
//     ends). A Service that read the file at start
//     still needs the restart (its MN is not held: which names a daemon
//     looks up later is beyond the trace);
//  15. a Service needs a restart only for what it read: not for a path it
//     only looked up (a directory it neither listed nor made entries in, a
//     program it only checked is there: only-looked-up), nor for its own
//     state (a file it writes itself) that another changed in place
//     (own-state), nor for a directory it only read (made no name in, did
//     not miss before) whose File manages only that it exists, its owner
//     and mode (dir-read-only), nor for a file it read and then removed,
//     writing none of it: a message to its start (removed-after-read);
//  16. a resource generated before Puppet builds its graph (concat's File)
//     has its own autorequires there (its parent directory's File): a
//     relation of its block that they order is ordered
//     (GeneratedOrderGraph);
//  17. a path that a Package's install made belongs to the dpkg packages
//     whose file lists name it (Options.Packages, dpkg's database after the
//     apply) and to the one whose maintainer script made it in that install
//     (interp.Access.Script: update-rc.d's links, a postinst's defaults):
//     when another Package ordered before the consumer installs one of
//     them, itself or as a dependency, the path is there before the
//     consumer in any order (dpkg.go);
//  22. a File that found its own path as it manages it changed nothing in
//     this run (rule 12 still counts it a producer): a consumer that only
//     read the path, or edited what the File does not enforce on a path
//     that is there (ensure only, content with replace => false), finds
//     the path the same in the other order (found-as-managed). What the
//     File enforces still orders: content the consumer then edited (in the
//     other order the File replaces the edit), a path the consumer removed
//     (the File makes it again), and a Service that read it still needs
//     the notification;
//  23. an Exec guarded by creates runs only while its creates path is
//     missing: it acted in this run and Puppet will not run it again, so a
//     notifiable consumer that read what it made after it made it has no
//     later change to be notified of (runs-once, blockRole.runsOnce). A
//     consumer that read the path before it was made runs stale now and
//     keeps the MN; an unordered pair keeps its MOR;
//  24. an Exec with refreshonly runs again only when notified: when every
//     resource that notifies it notifies the consumer too, and it precedes
//     the consumer, each refresh that runs it runs the consumer after it,
//     and the consumer never keeps an older run's work (refreshed-together,
//     NotifierGraph);
//  25. a refreshonly Exec runs and ends: it needs no notification from the
//     File of a directory that manages only its existence, owner and mode
//     (onlyEnsuresDir), whose later changes do not make what the Exec did
//     there stale (exec-dir-owner-mode). A Service keeps the old inode or
//     loses permission (rule 15 holds it only for a directory it read), and
//     a File that manages the directory's content (purge, source) still
//     notifies.
//  27. a missing notifier x ⇝ c is the fault of a missing notifier x ⇝ n
//     shown beside it when n notifies c (and c does not notify n): x ~> n,
//     its fix, refreshes n, and Puppet passes n's refresh on to c after n
//     (a check Exec subscribed to the Service it checks). x ⇝ c is held,
//     naming x ⇝ n, which stays shown (refreshed-through, through.go).
//
// Program models (models.go): a reviewed fact about one Debian program
// (apt reads an empty configuration part as none; the clients mariadb's
// unit runs at each start keep nothing in the server) holds a relation
// back last at its stage, an order's or a restart's, naming the model,
// when only that program read the path (program-model); Options.NoModels
// turns them off.
//
// An observed fault (rule 5) is never held back.
//
// Held-back findings stay in the report (Finding.HeldBack, the reason, and
// Commutes), in JSON always and in the text report with --all; they never
// count as faults or set the exit status.
//
// A finding is one unordered resource pair with every path that relates
// them; a pair that is both MOR and MN is reported once, as MN (~> fixes
// both), and says that the order is missing too (Finding.Unordered), so
// that the MOR is not lost in the notifier. When the paths relate the pair both ways (interleaved blocks, a
// daemon), the fix keeps the order in which the run applied them
// (traceDirection, Finding.BothWays).
//
// # Non-idempotent resources (NI)
//
// With a second apply of the module (Options.Idempotence: fsmove run
// --idempotence), every resource that Puppet's report of that apply says it
// changed, or that failed then and not in the first, is an NI finding
// (idempotence.go), with the paths it wrote with content in the second
// trace and, for each, its write of the path in the first. Two such
// resources that wrote one path in the second apply are one finding, a
// fight; an Exec is unguarded without creates, unless, onlyif and
// refreshonly. NI findings are observed (Puppet's own report) and never
// grouped; one is held back: a service found stopped because systemd skipped
// its unit's start for a condition only a container fails
// (containerConditions: a capability Docker does not give, a unit that does
// not start in a container: container-condition).
//
// Other Puppet knowledge that the generic file-system model lacks lives
// here too: a Service and a refreshonly Exec are the resources a
// notification makes act again; which
// paths are Puppet's own business (DefaultFilterPrefixes); container blocks
// (Class, Stage, defined types: Puppet's whits) do no file work of their
// own, so their accesses are not a resource's.
package detector
