group { 'fsmg2': ensure => present, gid => 4242 }
group { 'fsmg3': ensure => present }
user { 'fsmu2': ensure => present, gid => 4242, groups => 'fsmg3' }
file { '/tmp/pt2': ensure => directory }
file { '/tmp/pt2/keys': ensure => file }
file { '/tmp/pt2/deep/sub/data': ensure => file }
file { 'link': path => '/tmp/pt2/link', ensure => link, target => '/tmp/pt2/keys' }
exec { 'quoted': command => '"/tmp/pt2/keys" arg', onlyif => '/tmp/pt2/link -x', unless => 'test -f /tmp/pt2/keys', path => '/usr/bin:/bin' }
file { '/tmp/pt2/x': ensure => file, owner => 'fsmu2', group => 'fsmg3', before => User['fsmu2'] }
