//go:build !mfusim_static && !mfusim_bundled

package mfusim

// The shared library (libmfusim.so.1), found with pkg-config; mfusim.pc adds an rpath to its directory.
// The pkg-config lines live in files of their own, selected by the build tag, so that the two builds are
// different packages to the build cache (which does not hash what pkg-config answers).

/*
#cgo pkg-config: mfusim
*/
import "C"
