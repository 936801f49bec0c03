exec { 'unguarded': command => '/bin/sh -c "date +%s%N > /var/tmp/unguarded"' }
exec { 'guarded': command => '/bin/sh -c "echo hi > /var/tmp/guarded"', creates => '/var/tmp/guarded' }
exec { 'refresh': command => '/bin/sh -c "echo hi > /var/tmp/refresh"', refreshonly => true }
file { '/var/tmp/stable': content => "stable\n" }
file { '/var/tmp/stamp': content => Deferred('strftime', ['%s%N']) }
file { '/var/tmp/fight': content => "from file\n" }
exec { 'fight': command => '/bin/sh -c "echo from exec > /var/tmp/fight"', unless => '/bin/grep -q "from exec" /var/tmp/fight', require => File['/var/tmp/fight'] }
exec { 'second-fail': command => '/bin/sh -c "test ! -e /var/tmp/once && touch /var/tmp/once"' }
