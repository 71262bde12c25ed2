//go:build asan

package adapter

// asan: built with `go test -asan` (ci/bindings_sanitize.sh), whose instrumentation allocates where the package
// does not: the zero-allocation checks are for the plain build.
const asan = true
