//go:build mfusim_bundled

package mfusim

// -tags mfusim_bundled: libmfusim compiled from its C++ sources by cgo (package internal/bundled), as go-sqlite3
// builds SQLite: no installed libmfusim, no pkg-config; a C++20 compiler is all it needs. The header comes from the
// module's own copy (internal/bundled/csrc, written by bundle.sh sources for a release) or the repository.
// With mfusim_static as well, the C++ runtime is linked statically (link_bundled_static.go).

/*
#cgo CFLAGS: -I${SRCDIR}/../internal/bundled/csrc/include -I${SRCDIR}/../../../include
*/
import "C"

import _ "github.com/libmfusim/libmfusim/bindings/go/internal/bundled"
