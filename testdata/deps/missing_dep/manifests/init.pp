class missing_dep {
  include nowhere
}
