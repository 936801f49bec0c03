# stdlib's to_json_pretty: helper's own dependency, from Debian.
class helper {
  file { '/etc/fsmove-helper.json':
    ensure  => file,
    content => to_json_pretty({ 'from' => 'modulepath' }),
  }
}
