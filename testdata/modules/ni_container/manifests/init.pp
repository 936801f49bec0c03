# Fixture: services that systemd does not start (fsmove run --idempotence,
# systemd mode only: the services are systemd units).
#
# systemd skips the start of a unit whose Condition is not met, Puppet
# counts the start a success, and the second apply finds the service
# stopped and starts it again. Expected:
# - Service['ni-captime']: its unit wants CAP_SYS_TIME, which fsmove's
#   container does not give and root on a host has (as Debian's chrony and
#   ntpsec do): fsmove lifts that condition for the trace, the unit starts
#   and stays up, no finding. (Were it skipped, as when no daemon-reload
#   ran the lift's generator, the finding would be held back, the
#   container's doing: detector's TestServiceStopsForContainerCondition.)
# - Service['ni-nofile'] (near miss): its unit wants a file that nothing
#   makes, which a host lacks too: reported (service-stops).
class ni_container {
  file { '/etc/systemd/system/ni-captime.service':
    ensure  => file,
    content => "[Unit]\nDescription=fsmove fixture: needs CAP_SYS_TIME\nConditionCapability=CAP_SYS_TIME\n\n[Service]\nExecStart=/bin/sleep infinity\n",
  }
  ~> service { 'ni-captime':
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
