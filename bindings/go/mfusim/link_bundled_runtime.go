//go:build mfusim_bundled && !mfusim_static

package mfusim

// The bundled library's C++ runtime, linked dynamically (libstdc++ at run time).

/*
#cgo LDFLAGS: -lstdc++ -lm
*/
import "C"
