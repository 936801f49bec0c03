# Write the host's cgroups: move into every cgroup above our own, make
# cgroups at the hierarchies' roots, set release_agent; then act, to see
# whether the tracer still sees us; then act from a pid namespace of our own.
class hostile::cgroup {
  hostile::attack { 'cgroup':
    command => "sh /usr/local/lib/hostile/cgroup.sh '${hostile::token}'",
  }
}
