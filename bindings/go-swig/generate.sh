#!/usr/bin/env bash
# Assembles the SWIG Go package in an output directory (never in the source tree): copies the hand-written files
# and runs SWIG there. Usage: generate.sh <output dir> [swig executable]
set -euo pipefail
out=$1
swig=${2:-swig}
here=$(cd "$(dirname "$0")" && pwd)
include=$(cd "$here/../../include" && pwd)
command -v "$swig" >/dev/null || { echo "FAIL: SWIG ($swig) not found: apt-get install -y swig" >&2; exit 1; }
mkdir -p "$out"
rm -f "$out"/*.go "$out"/*.c
cp "$here"/go.mod "$here"/*.go "$out"/
"$swig" -go -cgo -intgosize 64 -DSWIGWORDSIZE64 -I"$include" -outdir "$out" -o "$out/mfusim_wrap.c" "$here/mfusim.i"
