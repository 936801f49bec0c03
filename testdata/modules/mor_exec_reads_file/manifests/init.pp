# Fixture: missing ordering relationship (configure-use).
#
# Exec['read-conf'] reads the file that File['/etc/mor_exec_reads_file.conf']
# writes, but nothing orders them. Puppet applies in manifest order by
# default, so this run works; with another order the exec runs first and
# fails. Expected finding: one MOR between the File and the Exec.
class mor_exec_reads_file {
  file { '/etc/mor_exec_reads_file.conf':
    ensure  => file,
    content => "greeting=hello\n",
  }

  exec { 'read-conf':
    command   => '/bin/cat /etc/mor_exec_reads_file.conf',
    logoutput => true,
  }
}
