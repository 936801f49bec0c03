file { '/etc/demo.conf': content => "x\n" }
exec { 'use': command => '/bin/cat /etc/demo.conf', path => '/bin:/usr/bin' }
package { 'cowsay': ensure => installed }
