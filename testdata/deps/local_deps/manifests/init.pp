class local_deps {
  include helper
  include fixturedep
}
