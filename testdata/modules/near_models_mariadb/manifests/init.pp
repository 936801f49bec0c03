# Fixture: the program model mariadb-debian-start (detector/models.go) on a
# real run, with the fault it must not hide.
#
# mariadb.service's ExecStartPost runs /etc/mysql/debian-start at each
# start: its clients (mysql_upgrade --version-check, a mysql query) read
# /etc/mysql/debian.cnf for their credentials and exit, and the server
# (mariadbd) never opens the file. Service['mariadb'] starts the server
# (the package's own start is stopped first, so that the start is the
# Service's); File['/etc/mysql/debian.cnf'] rewrites the credentials after
# it (once the clients are done) and does not notify it: a restart would only run the clients again.
# Held back, naming the model: MN File['/etc/mysql/debian.cnf'] ->
# Service['mariadb']; with --no-models it is reported.
#
# Near miss: File['/etc/mysql/mariadb.conf.d/50-server.cnf'] rewrites the
# server's options after the start and does not notify it; mariadbd read
# the file when it started, so it runs with the old options until a
# restart. Expected finding: MN
# File['/etc/mysql/mariadb.conf.d/50-server.cnf'] -> Service['mariadb'].
class near_models_mariadb {
  package { 'mariadb-server':
    ensure => installed,
  }

  exec { 'stop-mariadb':
    command => '/usr/bin/systemctl stop mariadb',
    require => Package['mariadb-server'],
  }

  service { 'mariadb':
    ensure  => running,
    require => Exec['stop-mariadb'],
  }

  # debian-start's clients run in the background after the start
  # returns: wait until their process is gone (an event, not a fixed
  # sleep), so that they have read the files before the Files rewrite them.
  exec { 'wait-debian-start':
    command => '/bin/sh -c "while /usr/bin/pgrep -x debian-start >/dev/null; do sleep 0.2; done"',
    require => Service['mariadb'],
  }

  file { '/etc/mysql/debian.cnf':
    ensure  => file,
    mode    => '0600',
    content => "[client]\nuser = root\nsocket = /run/mysqld/mysqld.sock\n",
    require => Exec['wait-debian-start'],
  }

  file { '/etc/mysql/mariadb.conf.d/50-server.cnf':
    ensure  => file,
    content => "[mysqld]\nbind-address = 127.0.0.1\nmax_connections = 99\n",
    require => Exec['wait-debian-start'],
  }
}
