//go:build mfusim_bundled && mfusim_static

package mfusim

// -tags "mfusim_bundled mfusim_static": the bundled library with the C++ runtime linked in, so the binary needs
// neither libmfusim nor libstdc++ at run time.

/*
#cgo LDFLAGS: -static-libstdc++ -static-libgcc -lm
*/
import "C"
