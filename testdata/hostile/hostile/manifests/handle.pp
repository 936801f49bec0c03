# "Shocker": open the host's root directory by file handle through a file
# bind-mounted from the host (/etc/hosts), then read and write the canary.
class hostile::handle {
  hostile::attack { 'handle':
    command => "perl /usr/local/lib/hostile/handle.pl '${hostile::canary}'",
  }
}
