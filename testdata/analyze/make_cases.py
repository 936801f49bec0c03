# Authoring aid for testdata/analyze/*: writes realistic strace -f -s 300 logs of
# Puppet 7 runs and their catalogs. Run once; the outputs are committed.
import hashlib, json, os
# The outputs go next to this script, wherever the checkout is.
OUT = os.path.dirname(os.path.abspath(__file__))
PUP = 4242  # the puppet (ruby) process
SITE = "/etc/puppet/code/environments/production/manifests/site.pp"

class T:
    def __init__(s): s.l = []; s.n = 0; s.m = 0
    def raw(s, pid, txt): s.l.append("%d  %s" % (pid, txt))
    def marker(s, pid, msg):
        m = "\\33[0;32mInfo: %s\\33[0m" % msg
        ln = len(m.replace("\\33", "x"))
        s.raw(pid, 'writev(1, [{iov_base="%s", iov_len=%d}, {iov_base="\\n", iov_len=1}], 2) = %d' % (m, ln, ln + 1))
    def begin(s, src):
        s.n += 1
        s.marker(PUP, "%s: Starting to evaluate the resource (%d of %d)" % (src, s.n, s.m))
    def end(s, src, t="0.01"):
        s.marker(PUP, "%s: Evaluated in %s seconds" % (src, t))
    def startup(s):
        r = s.raw
        r(PUP, 'execve("/usr/bin/puppet", ["puppet", "apply", "--debug", "--evaltrace", "--catalog_cache_terminus", "json", "site.pp"], 0x7ffc3a1e9d48 /* 14 vars */) = 0')
        r(PUP, 'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3')
        r(PUP, 'close(3)                          = 0')
        r(PUP, 'openat(AT_FDCWD, "/usr/lib/ruby/3.1.0/rubygems.rb", O_RDONLY|O_CLOEXEC) = 5')
        r(PUP, 'newfstatat(5, "", {st_mode=S_IFREG|0644, st_size=38212, ...}, AT_EMPTY_PATH) = 0')
        r(PUP, 'close(5)                          = 0')
        r(PUP, 'getcwd("/root", 4096)             = 6')
        r(PUP, 'openat(AT_FDCWD, "/etc/puppet/puppet.conf", O_RDONLY|O_CLOEXEC) = 5')
        r(PUP, 'close(5)                          = 0')
        r(PUP, 'newfstatat(AT_FDCWD, "%s", {st_mode=S_IFREG|0644, st_size=412, ...}, 0) = 0' % SITE)
        r(PUP, 'openat(AT_FDCWD, "%s", O_RDONLY|O_CLOEXEC) = 5' % SITE)
        r(PUP, 'close(5)                          = 0')
        r(PUP, 'openat(AT_FDCWD, "/var/cache/puppet/client_data/catalog/fsmove.json20261122-4242-1v3x9q", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0640) = 5')
        r(PUP, 'close(5)                          = 0')
        r(PUP, 'rename("/var/cache/puppet/client_data/catalog/fsmove.json20261122-4242-1v3x9q", "/var/cache/puppet/client_data/catalog/fsmove.json") = 0')
    def whits(s, first):
        # Puppet 7 logs the stage and class whits as blocks too.
        if first:
            s.begin("Stage[main]"); s.end("Stage[main]", "0.00")
            s.begin("Class[Settings]"); s.end("Class[Settings]", "0.00")
            s.begin("Class[Main]"); s.end("Class[Main]", "0.00")
        else:
            s.begin("Class[Main]"); s.end("Class[Main]", "0.00")
            s.begin("Class[Settings]"); s.end("Class[Settings]", "0.00")
            s.begin("Stage[main]"); s.end("Stage[main]", "0.00")
    def file_content(s, path, content, stamp="1k2j3h"):
        r = s.raw; tmp = "%s20261122-%d-%s" % (path, PUP, stamp)
        r(PUP, 'newfstatat(AT_FDCWD, "%s", 0x7ffd5c0a1b20, AT_SYMLINK_NOFOLLOW) = -1 ENOENT (No such file or directory)' % path)
        r(PUP, 'newfstatat(AT_FDCWD, "%s", {st_mode=S_IFDIR|0755, st_size=4096, ...}, 0) = 0' % os.path.dirname(path))
        r(PUP, 'openat(AT_FDCWD, "%s", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 7' % tmp)
        r(PUP, 'write(7, "%s", %d) = %d' % (content.replace("\n", "\\n"), len(content), len(content)))
        r(PUP, 'close(7)                          = 0')
        r(PUP, 'chmod("%s", 0644)           = 0' % tmp)
        r(PUP, 'rename("%s", "%s") = 0' % (tmp, path))
    def spawn(s, child, argv, body, status=0):
        """Puppet's Exec/Package/Service: vfork + execve, as Ruby 3.1 does it."""
        r = s.raw
        r(PUP, 'vfork( <unfinished ...>')
        r(child, 'execve("%s", %s, 0x55d04a1c3e10 /* 12 vars */ <unfinished ...>' % (argv[0], json.dumps(argv).replace('", "', '", "')))
        r(PUP, '<... vfork resumed>)              = %d' % child)
        r(PUP, 'wait4(%d,  <unfinished ...>' % child)
        r(child, '<... execve resumed>)             = 0')
        r(child, 'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3')
        r(child, 'close(3)                          = 0')
        for line in body:
            r(child if isinstance(line, str) else line[0], line if isinstance(line, str) else line[1])
        r(child, 'exit_group(%d)                     = ?' % status)
        r(child, '+++ exited with %d +++' % status)
        r(PUP, '<... wait4 resumed>[{WIFEXITED(s) && WEXITSTATUS(s) == %d}], 0, NULL) = %d' % (status, child))
        r(PUP, '--- SIGCHLD {si_signo=SIGCHLD, si_code=CLD_EXITED, si_pid=%d, si_uid=0, si_status=%d, si_utime=0, si_stime=0} ---' % (child, status))
    def finish(s):
        m = "\\33[mNotice: Applied catalog in 0.42 seconds\\33[0m"
        s.raw(PUP, 'writev(1, [{iov_base="%s", iov_len=46}, {iov_base="\\n", iov_len=1}], 2) = 47' % m)
        s.raw(PUP, 'exit_group(0)                     = ?')
        s.raw(PUP, '+++ exited with 0 +++')
    def write(s, name):
        with open(os.path.join(OUT, name, "trace.log"), "w") as f:
            f.write("\n".join(s.l) + "\n")

def catalog(name, resources, edges):
    base = [
        {"type": "Stage", "title": "main", "tags": ["stage", "main"], "exported": False, "parameters": {"name": "main"}},
        {"type": "Class", "title": "Settings", "tags": ["class", "settings"], "exported": False},
        {"type": "Class", "title": "main", "tags": ["class"], "exported": False, "parameters": {"name": "main"}},
    ]
    es = [{"source": "Stage[main]", "target": "Class[Settings]"}, {"source": "Stage[main]", "target": "Class[main]"}] + edges
    for r in resources:
        r.setdefault("exported", False)
        r.setdefault("tags", [r["type"].lower(), "class"])
        r.setdefault("file", SITE)
    doc = {"tags": ["settings", "main"], "name": "fsmove.example", "version": 1795312800, "code_id": None,
           "catalog_uuid": "6f1c7a52-0d47-4c67-9b8e-%012d" % (int(hashlib.sha256(name.encode()).hexdigest(), 16) % 10**12), "catalog_format": 1,
           "environment": "production", "resources": base + resources, "edges": es, "classes": ["settings"]}
    os.makedirs(os.path.join(OUT, name), exist_ok=True)
    with open(os.path.join(OUT, name, "catalog.json"), "w") as f:
        json.dump(doc, f, indent=2); f.write("\n")

def contained(cls, refs): return [{"source": cls, "target": r} for r in refs]

M = "/Stage[main]/Main/"
def case_fig1():
    # Paper Fig. 1/4/6: a file configured, and an exec that reads it, with no ordering (MOR).
    n = "fig1_mor_file_exec"
    catalog(n, [
        {"type": "File", "title": "/etc/app.conf", "line": 1, "parameters": {"ensure": "file", "content": "port = 8080\n"}},
        {"type": "Exec", "title": "use-conf", "line": 5, "parameters": {"command": "/bin/cat /etc/app.conf", "logoutput": True}},
    ], contained("Class[main]", ["File[/etc/app.conf]", "Exec[use-conf]"]))
    t = T(); t.m = 7; t.startup(); t.whits(True)
    t.begin(M + "File[/etc/app.conf]"); t.file_content("/etc/app.conf", "port = 8080\n"); t.end(M + "File[/etc/app.conf]")
    t.begin(M + "Exec[use-conf]")
    t.spawn(501, ["/bin/cat", "/etc/app.conf"], [
        'openat(AT_FDCWD, "/etc/app.conf", O_RDONLY) = 3',
        'read(3, "port = 8080\\n", 131072) = 12',
        'write(1, "port = 8080\\n", 12)   = 12',
        'close(3)                          = 0'])
    t.end(M + "Exec[use-conf]", "0.02")
    t.whits(False); t.finish(); t.write(n)

def dpkg_install(t, child, files):
    """apt-get -> dpkg unpacking files through .dpkg-new renames."""
    body = []
    body.append('clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f3b2a1e5a10) = %d' % (child + 1))
    body.append((child + 1, 'execve("/usr/bin/dpkg", ["/usr/bin/dpkg", "--status-fd", "15", "--no-triggers", "--unpack", "--auto-deconfigure", "/var/cache/apt/archives/pkg.deb"], 0x5621e0f3a2c0 /* 18 vars */) = 0'))
    body.append((child + 1, 'openat(AT_FDCWD, "/var/lib/dpkg/lock-frontend", O_RDWR|O_CREAT, 0640) = 3'))
    body.append((child + 1, 'openat(AT_FDCWD, "/var/cache/apt/archives/pkg.deb", O_RDONLY) = 4'))
    for f in files:
        body.append((child + 1, 'openat(AT_FDCWD, "%s.dpkg-new", O_WRONLY|O_CREAT|O_EXCL, 000) = 10' % f))
        body.append((child + 1, 'write(10, "\\177ELF\\2\\1\\1\\0\\0\\0\\0\\0\\0\\0\\0\\0\\3\\0>\\0\\1\\0\\0\\0"..., 4096) = 4096'))
        body.append((child + 1, 'fchmod(10, 0644)                  = 0'))
        body.append((child + 1, 'close(10)                         = 0'))
        body.append((child + 1, 'rename("%s.dpkg-new", "%s") = 0' % (f, f)))
    body.append((child + 1, 'exit_group(0)                     = ?'))
    body.append((child + 1, '+++ exited with 0 +++'))
    body.append('wait4(%d, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = %d' % (child + 1, child + 1))
    return body

def service_start(t, child, daemon, argv, early, late_after_end=None):
    """/usr/sbin/service X start -> init script -> start-stop-daemon -> daemon forks and keeps running."""
    body = [
        'clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0c1d2e3a10) = %d' % (child + 1),
        (child + 1, 'execve("%s", %s, 0x55e1c2b3a4d0 /* 9 vars */) = 0' % (argv[0], json.dumps(argv))),
        (child + 1, 'openat(AT_FDCWD, "/etc/ld.so.cache", O_RDONLY|O_CLOEXEC) = 3'),
        (child + 1, 'close(3)                          = 0'),
    ] + [(child + 1, l) for l in early] + [
        (child + 1, 'clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f0c1d2e3a10) = %d' % daemon),
        (child + 1, 'exit_group(0)                     = ?'),
        (child + 1, '+++ exited with 0 +++'),
        'wait4(%d, [{WIFEXITED(s) && WEXITSTATUS(s) == 0}], 0, NULL) = %d' % (child + 1, child + 1),
        (daemon, 'setsid()                          = %d' % daemon),
        (daemon, 'chdir("/")                        = 0'),
    ]
    return body

def case_fig2():
    # Paper Fig. 2: a library package and the service that maps it, ordered but not notified (MN only with --package-notify).
    n = "fig2_mn_package_service"
    lib = "/usr/lib/x86_64-linux-gnu/libssl.so.3"
    catalog(n, [
        {"type": "Package", "title": "libssl3", "line": 1, "parameters": {"ensure": "latest"}},
        {"type": "Service", "title": "nginx", "line": 4, "parameters": {"ensure": "running", "require": "Package[libssl3]"}},
    ], contained("Class[main]", ["Package[libssl3]", "Service[nginx]"]))
    t = T(); t.m = 7; t.startup(); t.whits(True)
    t.begin(M + "Package[libssl3]")
    t.spawn(601, ["/usr/bin/apt-get", "-q", "-y", "-o", "DPkg::Options::=--force-confold", "install", "libssl3"], dpkg_install(t, 601, [lib, "/usr/lib/x86_64-linux-gnu/libcrypto.so.3"]))
    t.end(M + "Package[libssl3]", "3.10")
    t.begin(M + "Service[nginx]")
    body = service_start(t, 701, 703, ["/etc/init.d/nginx", "start"], [
        'newfstatat(AT_FDCWD, "/usr/sbin/nginx", {st_mode=S_IFREG|0755, st_size=1213872, ...}, 0) = 0'])
    body += [
        (703, 'execve("/usr/sbin/nginx", ["/usr/sbin/nginx", "-g", "daemon on; master_process on;"], 0x5640b1a2c3d0 /* 9 vars */) = 0'),
        (703, 'openat(AT_FDCWD, "%s", O_RDONLY|O_CLOEXEC) = 3' % lib),
        (703, 'close(3)                          = 0'),
        (703, 'openat(AT_FDCWD, "/etc/nginx/nginx.conf", O_RDONLY) = 4'),
        (703, 'close(4)                          = 0'),
    ]
    t.spawn(701, ["/usr/sbin/service", "nginx", "start"], body)
    t.end(M + "Service[nginx]", "0.31")
    t.whits(False); t.finish(); t.write(n)

def case_fig10():
    # Paper Fig. 10: an exec downloads the .deb that a dpkg package installs, unordered (generate-use MOR).
    n = "fig10_mor_generate_use"
    catalog(n, [
        {"type": "Exec", "title": "download-app", "line": 1, "parameters": {"command": "/usr/bin/curl -sSfo /tmp/app.deb http://example.com/app.deb", "creates": "/tmp/app.deb"}},
        {"type": "Package", "title": "app", "line": 5, "parameters": {"ensure": "installed", "provider": "dpkg", "source": "/tmp/app.deb"}},
    ], contained("Class[main]", ["Exec[download-app]", "Package[app]"]))
    t = T(); t.m = 7; t.startup(); t.whits(True)
    t.begin(M + "Exec[download-app]")
    t.raw(PUP, 'newfstatat(AT_FDCWD, "/tmp/app.deb", 0x7ffd5c0a1b20, 0) = -1 ENOENT (No such file or directory)')
    t.spawn(801, ["/usr/bin/curl", "-sSfo", "/tmp/app.deb", "http://example.com/app.deb"], [
        'socket(AF_INET, SOCK_STREAM, IPPROTO_TCP) = 5',
        'openat(AT_FDCWD, "/tmp/app.deb", O_WRONLY|O_CREAT|O_TRUNC, 0666) = 6',
        'write(6, "!<arch>\\ndebian-binary   1700000000  0     0     100644  4         `\\n2.0\\n"..., 16384) = 16384',
        'close(6)                          = 0',
        'close(5)                          = 0'])
    t.end(M + "Exec[download-app]", "0.88")
    t.begin(M + "Package[app]")
    t.spawn(811, ["/usr/bin/dpkg-query", "-W", "--showformat", "${Status} ${Package} ${Version}\\n", "app"], [
        'openat(AT_FDCWD, "/var/lib/dpkg/status", O_RDONLY) = 3', 'close(3)                          = 0'], status=1)
    t.spawn(821, ["/usr/bin/dpkg", "--force-confold", "-i", "/tmp/app.deb"], [
        'openat(AT_FDCWD, "/var/lib/dpkg/lock-frontend", O_RDWR|O_CREAT, 0640) = 3',
        'openat(AT_FDCWD, "/tmp/app.deb", O_RDONLY) = 4',
        'read(4, "!<arch>\\n", 8)          = 8',
        'close(4)                          = 0',
        'openat(AT_FDCWD, "/usr/bin/app.dpkg-new", O_WRONLY|O_CREAT|O_EXCL, 000) = 10',
        'close(10)                         = 0',
        'rename("/usr/bin/app.dpkg-new", "/usr/bin/app") = 0'])
    t.end(M + "Package[app]", "1.20")
    t.whits(False); t.finish(); t.write(n)

def case_log():
    # A service started first keeps its log open; a File resource then recreates the log.
    # The service is ordered before the file but never notified: it writes to an orphaned inode (MN).
    n = "mn_log_recreated"
    catalog(n, [
        {"type": "Service", "title": "app", "line": 1, "parameters": {"ensure": "running", "hasrestart": True}},
        {"type": "File", "title": "/var/log/app.log", "line": 4, "parameters": {"ensure": "file", "content": "", "mode": "0640", "require": "Service[app]"}},
    ], contained("Class[main]", ["Service[app]", "File[/var/log/app.log]"]))
    t = T(); t.m = 7; t.startup(); t.whits(True)
    t.begin(M + "Service[app]")
    body = service_start(t, 901, 903, ["/etc/init.d/app", "start"], [])
    body += [
        (903, 'execve("/usr/sbin/appd", ["/usr/sbin/appd", "--daemon"], 0x5640b1a2c3d0 /* 9 vars */) = 0'),
        (903, 'openat(AT_FDCWD, "/etc/app/appd.conf", O_RDONLY) = 3'),
        (903, 'close(3)                          = 0'),
        (903, 'openat(AT_FDCWD, "/var/log/app.log", O_WRONLY|O_APPEND) = 3'),
        (903, 'dup2(3, 2)                        = 2'),
    ]
    t.spawn(901, ["/usr/sbin/service", "app", "start"], body)
    t.end(M + "Service[app]", "0.20")
    t.begin(M + "File[/var/log/app.log]")
    t.raw(PUP, 'newfstatat(AT_FDCWD, "/var/log/app.log", {st_mode=S_IFREG|0644, st_size=50, ...}, AT_SYMLINK_NOFOLLOW) = 0')
    t.raw(PUP, 'openat(AT_FDCWD, "/var/log/app.log20261122-4242-9zz1q", O_WRONLY|O_CREAT|O_EXCL|O_CLOEXEC, 0600) = 7')
    t.raw(PUP, 'close(7)                          = 0')
    t.raw(PUP, 'chmod("/var/log/app.log20261122-4242-9zz1q", 0640) = 0')
    t.raw(PUP, 'rename("/var/log/app.log20261122-4242-9zz1q", "/var/log/app.log") = 0')
    t.end(M + "File[/var/log/app.log]")
    # the daemon still writes to the old, now unlinked, inode
    t.raw(903, 'write(3, "appd: request served\\n", 21) = 21')
    t.whits(False); t.finish(); t.write(n)

def case_cron():
    # Measured on a real run: the cron daemon started by Service[cron] reads /etc/cron.d/backup only
    # after Puppet logged "Service[cron]: Evaluated in". The file is not ordered with the service (MN).
    n = "mn_cron_daemon_after_block"
    catalog(n, [
        {"type": "File", "title": "/etc/cron.d/backup", "line": 1, "parameters": {"ensure": "file", "content": "0 3 * * * root /usr/local/bin/backup\n"}},
        {"type": "Service", "title": "cron", "line": 5, "parameters": {"ensure": "running"}},
    ], contained("Class[main]", ["File[/etc/cron.d/backup]", "Service[cron]"]))
    t = T(); t.m = 7; t.startup(); t.whits(True)
    t.begin(M + "File[/etc/cron.d/backup]"); t.file_content("/etc/cron.d/backup", "0 3 * * * root /usr/local/bin/backup\n"); t.end(M + "File[/etc/cron.d/backup]")
    t.begin(M + "Service[cron]")
    t.spawn(1001, ["/usr/sbin/service", "cron", "status"], [], status=3)
    body = service_start(t, 1011, 1013, ["/etc/init.d/cron", "start"], [
        'openat(AT_FDCWD, "/etc/default/cron", O_RDONLY) = 3', 'close(3)                          = 0'])
    body += [(1013, 'execve("/usr/sbin/cron", ["/usr/sbin/cron"], 0x5640b1a2c3d0 /* 9 vars */) = 0'),
             (1013, 'clone(child_stack=NULL, flags=CLONE_CHILD_CLEARTID|CLONE_CHILD_SETTID|SIGCHLD, child_tidptr=0x7f2a1b3c4a10) = 1014'),
             (1013, 'exit_group(0)                     = ?'),
             (1013, '+++ exited with 0 +++')]
    t.spawn(1011, ["/usr/sbin/service", "cron", "start"], body)
    t.end(M + "Service[cron]", "0.12")
    # after the block: the daemonised cron scans its spool
    t.raw(1014, 'openat(AT_FDCWD, "/etc/crontab", O_RDONLY) = 4')
    t.raw(1014, 'close(4)                          = 0')
    t.raw(1014, 'openat(AT_FDCWD, "/etc/cron.d", O_RDONLY|O_NONBLOCK|O_CLOEXEC|O_DIRECTORY) = 5')
    t.raw(1014, 'getdents64(5, 0x55d1c0a2b3c0 /* 4 entries */, 32768) = 112')
    t.raw(1014, 'newfstatat(AT_FDCWD, "/etc/cron.d/backup", {st_mode=S_IFREG|0644, st_size=37, ...}, 0) = 0')
    t.raw(1014, 'openat(AT_FDCWD, "/etc/cron.d/backup", O_RDONLY) = 6')
    t.raw(1014, 'close(6)                          = 0')
    t.raw(1014, 'close(5)                          = 0')
    t.whits(False); t.finish(); t.write(n)

def case_class_require():
    # A class-level require orders the pair, and a subscribe to the class notifies the service: no finding.
    n = "clean_class_require"
    SITEM = "/etc/puppet/code/environments/production/modules/app/manifests/"
    catalog(n, [
        {"type": "Class", "title": "App::Config", "line": 1, "file": SITEM + "config.pp", "tags": ["class", "app::config", "app"]},
        {"type": "File", "title": "/etc/app.conf", "line": 2, "file": SITEM + "config.pp", "parameters": {"ensure": "file", "content": "port = 8080\n"}},
        {"type": "Exec", "title": "use-conf", "line": 3, "file": SITEM + "init.pp", "parameters": {"command": "/bin/cat /etc/app.conf", "require": "Class[App::Config]"}},
        {"type": "Service", "title": "app", "line": 6, "file": SITEM + "init.pp", "parameters": {"ensure": "running", "subscribe": ["Class[App::Config]"]}},
    ], contained("Class[main]", ["Class[App::Config]", "Exec[use-conf]", "Service[app]"]) + contained("Class[App::Config]", ["File[/etc/app.conf]"]))
    t = T(); t.m = 9; t.startup(); t.whits(True)
    t.begin("Class[App::Config]"); t.end("Class[App::Config]", "0.00")
    src = "/Stage[main]/App::Config/File[/etc/app.conf]"
    t.begin(src); t.file_content("/etc/app.conf", "port = 8080\n"); t.end(src)
    t.begin("Class[App::Config]"); t.end("Class[App::Config]", "0.00")
    t.begin(M + "Exec[use-conf]")
    t.spawn(1101, ["/bin/cat", "/etc/app.conf"], ['openat(AT_FDCWD, "/etc/app.conf", O_RDONLY) = 3', 'close(3)                          = 0'])
    t.end(M + "Exec[use-conf]")
    t.begin(M + "Service[app]")
    body = service_start(t, 1201, 1203, ["/etc/init.d/app", "start"], [])
    body += [(1203, 'execve("/usr/sbin/appd", ["/usr/sbin/appd"], 0x5640b1a2c3d0 /* 9 vars */) = 0'),
             (1203, 'openat(AT_FDCWD, "/etc/app.conf", O_RDONLY) = 3'),
             (1203, 'close(3)                          = 0')]
    t.spawn(1201, ["/usr/sbin/service", "app", "start"], body)
    t.end(M + "Service[app]", "0.20")
    t.whits(False); t.finish(); t.write(n)

def case_commutative():
    # Known false positive: File sets only the mode of /srv/data.txt; the Exec appends a line unless it
    # is there. In this run the line was there, so the Exec only read the file (its `unless` grep).
    # fsmove reports File -> Exec as a MOR, but both orders give the same result: the pair commutes.
    n = "fp_commutative_mode_content"
    catalog(n, [
        {"type": "File", "title": "/srv/data.txt", "line": 1, "parameters": {"ensure": "file", "mode": "0600"}},
        {"type": "Exec", "title": "append-line", "line": 4, "parameters": {"command": "/bin/sh -c 'echo enabled=1 >> /srv/data.txt'", "unless": "/bin/grep -q enabled=1 /srv/data.txt"}},
    ], contained("Class[main]", ["File[/srv/data.txt]", "Exec[append-line]"]))
    t = T(); t.m = 7; t.startup(); t.whits(True)
    t.begin(M + "File[/srv/data.txt]")
    t.raw(PUP, 'newfstatat(AT_FDCWD, "/srv/data.txt", {st_mode=S_IFREG|0644, st_size=10, ...}, AT_SYMLINK_NOFOLLOW) = 0')
    t.raw(PUP, 'chmod("/srv/data.txt", 0600)      = 0')
    t.end(M + "File[/srv/data.txt]")
    t.begin(M + "Exec[append-line]")
    t.spawn(1301, ["/bin/grep", "-q", "enabled=1", "/srv/data.txt"], ['openat(AT_FDCWD, "/srv/data.txt", O_RDONLY) = 3', 'close(3)                          = 0'])
    t.end(M + "Exec[append-line]")
    t.whits(False); t.finish(); t.write(n)

for c in [case_fig1, case_fig2, case_fig10, case_log, case_cron, case_class_require, case_commutative]:
    c()
