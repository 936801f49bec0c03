# Find a container engine's socket in the container (fsmove's reaper holds
# the engine's socket in a container of its own).
class hostile::engine {
  hostile::attack { 'engine':
    command => 'bash /usr/local/lib/hostile/engine.sh',
  }
}
