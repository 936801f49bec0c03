stage { 'pre': before => Stage['main'] }
class repo {
  file { '/tmp/pt-repo.list': content => "deb x\n" }
}
class { 'repo': stage => 'pre' }
class ntp {
  package { 'fsmove-nonexistent-pkg': ensure => absent }
  file { 'ntp.conf':
    path    => '/tmp/pt/ntp.conf',
    content => "server x\n",
    require => Package['fsmove-nonexistent-pkg'],
    notify  => Service['fsmove-svc'],
  }
  service { 'fsmove-svc':
    ensure   => stopped,
    provider => base,
    binary   => '/bin/true',
    start    => '/bin/true',
    stop     => '/bin/true',
    status   => '/bin/false',
  }
}
include ntp
define app::site(String $dir) {
  file { "${dir}/site-${title}": content => $title }
  exec { "touch-${title}":
    command => "/usr/bin/touch ${dir}/t-${title}",
    cwd     => $dir,
    creates => "${dir}/t-${title}",
    user    => 'fsmoveusr',
  }
}
group { 'fsmovegrp': ensure => present }
user { 'fsmoveusr': ensure => present, gid => 'fsmovegrp', groups => ['fsmovegrp'] }
file { '/tmp/pt/': ensure => directory, owner => 'fsmoveusr', group => 'fsmovegrp' }
file { '/tmp/pt/a/b/c.txt': content => "c\n" }
file { '/usr/bin/touch': ensure => file }
app::site { 'one': dir => '/tmp/pt' }
app::site { 'two': dir => '/tmp/pt', require => App::Site['one'] }
exec { 'final': command => '/bin/echo done', require => [Class['ntp'], App::Site['two']] }
notify { 'hello [x]': message => 'hi', subscribe => File['ntp.conf'] }
class outer {
  contain inner
  file { '/tmp/pt/outer': ensure => file, before => Class['inner'] }
}
class inner {
  file { '/tmp/pt/inner': ensure => file, notify => Exec['final'] }
}
include outer
Class['outer'] -> Notify['hello [x]']
