# Take the host's tasks and memory.
class hostile::limits {
  hostile::attack { 'pids':
    command => 'perl /usr/local/lib/hostile/forks.pl 600',
  }
  hostile::attack { 'memory':
    command => 'sh /usr/local/lib/hostile/memory.sh',
    require => Hostile::Attack['pids'],
  }
}
