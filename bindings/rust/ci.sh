#!/usr/bin/env bash
# cargo test of the workspace, then the benchmark binary in quick mode. Usage: ci.sh <cargo>
# CARGO_TARGET_DIR and PKG_CONFIG_PATH (or MFUSIM_LIB_DIR) come from the environment (CTest sets them).
set -euo pipefail
cargo=$1
cd "$(dirname "$0")"
"$cargo" test --locked --workspace -j 2
"$cargo" bench --locked -p mfusim --bench step_time -j 2 -- --quick
