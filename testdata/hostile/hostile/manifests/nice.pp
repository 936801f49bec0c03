# Real-time and raised priorities, to starve the host.
class hostile::nice {
  hostile::attack { 'nice':
    command => 'sh /usr/local/lib/hostile/nice.sh',
  }
}
