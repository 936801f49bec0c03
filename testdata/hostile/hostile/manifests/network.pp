# Reach the host's services (a port the test listens on) at its addresses
# and at the container's gateway.
class hostile::network {
  hostile::attack { 'network':
    command => "bash /usr/local/lib/hostile/network.sh ${hostile::port} ${hostile::host_ips}",
  }
}
