//go:build !asan

package adapter

const asan = false
