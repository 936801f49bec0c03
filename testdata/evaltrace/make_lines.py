#!/usr/bin/env python3
# Writes lines.strace (strace -f -s 300 lines of Puppet console writes, in
# the shapes of fsmove-notes §1.4) and lines.want (what puppet.Marker must
# say of each line: "begin REF", "end REF" or "nop"). Run: python3 make_lines.py

def q(s, limit=300):
    raw = s.encode()
    cut = len(raw) > limit
    raw = raw[:limit]
    out = ''
    for i, b in enumerate(raw):
        c = chr(b)
        if c == '"' or c == '\\': out += '\\' + c
        elif c == '\n': out += '\\n'
        elif b == 0x1b:
            nxt = raw[i+1:i+2]
            out += '\\033' if nxt.isdigit() else '\\33'
        elif b < 32 or b >= 127: out += '\\%o' % b
        else: out += c
    return '"' + out + '"' + ('...' if cut else '')
def writev(pid, text):
    return '%-5d writev(1, [{iov_base=%s, iov_len=%d}, {iov_base="\\n", iov_len=1}], 2) = %d' % (pid, q(text), len(text.encode()), len(text.encode())+1)
def write(pid, text):
    return '%-5d write(1, %s, %d) = %d' % (pid, q(text), len(text.encode()), len(text.encode()))
G = "\x1b[0;32m"; R = "\x1b[0m"
cases = []
def add(line, want): cases.append((line, want))
# The real lines of fsmove-notes §1.4 (strace 6.1, Puppet 7.23, Ruby 3.1).
add(writev(21746, G+"Info: /Stage[main]/Main/Exec[use-conf]: Starting to evaluate the resource (6 of 15)"+R), "begin Exec[use-conf]")
add(writev(21746, G+"Info: /Stage[main]/Main/Exec[use-conf]: Evaluated in 0.04 seconds"+R), "end Exec[use-conf]")
add(writev(21746, G+"Info: Class[Main]: Starting to evaluate the resource (4 of 15)"+R), "begin Class[Main]")
add(writev(21746, "\x1b[mNotice: Applied catalog in 0.07 seconds"+R), "nop")
# Whits, schedules, filebucket.
for ref in ["Stage[main]", "Class[Settings]"]:
    add(writev(21746, G+"Info: %s: Starting to evaluate the resource (1 of 15)" % ref + R), "begin "+ref)
    add(writev(21746, G+"Info: %s: Evaluated in 0.00 seconds" % ref + R), "end "+ref)
add(writev(21746, G+"Info: /Schedule[daily]: Starting to evaluate the resource (9 of 15)"+R), "begin Schedule[daily]")
add(writev(21746, G+"Info: /Filebucket[puppet]: Evaluated in 0.00 seconds"+R), "end Filebucket[puppet]")
# Older Ruby: write(1, "…\n").
add(write(1234, G+"Info: /Stage[main]/Main/File[/etc/x]: Starting to evaluate the resource (2 of 9)"+R+"\n"), "begin File[/etc/x]")
add(write(1234, G+"Info: /Stage[main]/Main/File[/etc/x]: Evaluated in 0.01 seconds"+R+"\n"), "end File[/etc/x]")
# --color=false and Puppet < 5 (no counter).
add(writev(77, "Info: /Stage[main]/Foo::Bar/Foo::Baz[x y]/File[/etc/x]: Starting to evaluate the resource"), "begin File[/etc/x]")
add(writev(77, "Info: /Stage[main]/Foo::Bar/Foo::Baz[x y]/File[/etc/x]: Evaluated in 1.00 seconds"), "end File[/etc/x]")
# Titles with brackets, braces, colons, quotes, slashes.
add(writev(77, G+"Info: /Stage[main]/Main/Notify[a [b]]: Starting to evaluate the resource (3 of 9)"+R), "begin Notify[a [b]]")
add(writev(77, G+'Info: /Stage[main]/Main/Exec[echo "{a: [1]}" > /tmp/x]: Evaluated in 0.30 seconds'+R), 'end Exec[echo "{a: [1]}" > /tmp/x]')
add(writev(77, G+"Info: /Stage[main]/Apache/Apache::Vhost[default]/Concat[/etc/apache2/sites-available/15-default.conf]/File[/etc/apache2/sites-available/15-default.conf]: Evaluated in 0.02 seconds"+R),
    "end File[/etc/apache2/sites-available/15-default.conf]")
# Cut by -s 300: a title long enough that the cut falls in the counter, in
# the phrase after "Starting to", before it, or inside the source.
def long_case(keep, kind="begin", want=True):
    # keep: the text that must end exactly at byte 300
    head = G + "Info: /Stage[main]/Gen::Site[www]/File[/srv/"
    tail_begin = "]: Starting to evaluate the resource (12 of 345)" + R
    tail_end = "]: Evaluated in 0.35 seconds" + R
    tail = tail_begin if kind == "begin" else tail_end
    k = tail.index(keep) + len(keep)
    n = 300 - len(head) - k
    title = "/srv/" + "d" * n
    text = head + "d" * n + tail
    assert len(text.encode()[:300].decode()) == 300 and text[:300].endswith(keep)
    return writev(77, text), ("%s File[%s]" % (kind, title)) if want else "nop"
for keep, kind, ok in [("(12 of 3", "begin", True), (": Starting to evaluate", "begin", True), (": Starting to", "begin", True),
                       (": Start", "begin", False), (": Evaluated in 0.3", "end", True), (": Evaluated", "end", False)]:
    add(*long_case(keep, kind, ok))
add(writev(77, G+"Info: /Stage[main]/Gen::Site[www]/File[/srv/" + "d"*400 + "]: Starting to evaluate the resource (1 of 2)"+R), "nop")
# Not markers.
add(writev(21746, "\x1b[0;36mDebug: /Stage[main]/Main/File[/etc/x]: Autorequiring File[/etc]"+R), "nop")
add(writev(21746, "\x1b[mNotice: /Stage[main]/Main/File[/etc/x]/ensure: defined content as '{sha256}1d2c'"+R), "nop")
add(writev(21746, G+"Info: /Stage[main]/Main/File[/etc/x]: Scheduling refresh of Service[x]"+R), "nop")
add(writev(21746, G+"Info: Applying configuration version '1700000000'"+R), "nop")
add(write(4242, "Starting to evaluate the resource\n"), "nop")
with open('lines.strace', 'w') as f:
    for l, _ in cases: f.write(l + '\n')
with open('lines.want', 'w') as f:
    for _, w in cases: f.write(w + '\n')
