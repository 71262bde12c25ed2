//go:build mfusim_static && !mfusim_bundled

package mfusim

// -tags mfusim_static: libmfusim.a with the C++ runtime linked in (mfusim-static.pc), for a single binary with no
// libmfusim or libstdc++ run-time dependency.

/*
#cgo pkg-config: --static mfusim-static
*/
import "C"
