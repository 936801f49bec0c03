// Package detector turns what each Puppet resource did to the file system
// (an interp.Result) into faults: it infers which resources must be ordered
// or must notify a service (paper §3.3.2), checks that against the catalog's
// dependency graph, and reports missing ordering relationships (MOR) and
// missing notifiers (MN) as text, JSON (SCHEMA.md) or SARIF 2.1.0.
//
// Puppet knowledge that the generic file-system model lacks lives here:
//   - a File resource that stats or reads its own path is its producer
//     (Puppet's File inspects its target before replacing it);
//   - a Service is the only resource that can be notified;
//   - Package → Service notifications are opt-in (Options.PackageNotify);
//   - which paths are Puppet's own business (DefaultFilterPrefixes);
//   - container blocks (Class, Stage, defined types: Puppet's whits) do no
//     file work of their own, so their accesses are not a resource's.
package detector
