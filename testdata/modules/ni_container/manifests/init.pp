# Fixture: services that systemd does not start (fsmove run --idempotence,
# systemd mode only: the services are systemd units).
#
# systemd skips the start of a unit whose Condition is not met, Puppet
# counts the start a success, and the second apply finds the service
# stopped and starts it again. Expected:
# - Service['ni-notcontainer']: its unit wants not to be in a container
#   (ConditionVirtualization=!container), which a host is not: held back,
#   the container's doing. (A capability condition, as Debian's chrony and
#   ntpsec have, fsmove lifts for its container: such a unit starts, see
#   the cov_captime fixture.)
# - Service['ni-nofile'] (near miss): its unit wants a file that nothing
#   makes, which a host lacks too: reported (service-stops).
class ni_container {
  file { '/etc/systemd/system/ni-notcontainer.service':
    ensure  => file,
    content => "[Unit]\nDescription=fsmove fixture: not in a container\nConditionVirtualization=!container\n\n[Service]\nExecStart=/bin/sleep infinity\n",
  }
  ~> service { 'ni-notcontainer':
    ensure => running,
  }

  file { '/etc/systemd/system/ni-nofile.service':
    ensure  => file,
    content => "[Unit]\nDescription=fsmove fixture: needs a file nobody makes\nConditionPathExists=/etc/ni_container.missing\n\n[Service]\nExecStart=/bin/sleep infinity\n",
  }
  ~> service { 'ni-nofile':
    ensure => running,
  }
}
