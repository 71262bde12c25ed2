#!/usr/bin/env bash
# CI-sized fuzzing (docs/reliability.md). Builds every libFuzzer target of tests/fuzz with clang, ASan and UBSan in
# its own build folder, then fuzzes each from its committed seeds (tests/fuzz/corpus/<target>) with its dictionary
# (tests/fuzz/dicts/<target>.dict) for MFUSIM_FUZZ_SECONDS. Fails on any crash, sanitizer report, leak, timeout or
# out-of-memory, or a target that ran no input at all (a dictionary libFuzzer cannot parse stops it before the first);
# the input that did it is kept in <build>/fuzz-artifacts/ (replay it with the target binary, or
# with mfusim_fuzz_replay_<target> in any build, then commit it to the corpus once fixed).
#
#   ci/fuzz.sh                       # all targets, 25 s each, two at a time
#   MFUSIM_FUZZ_SECONDS=600 ci/fuzz.sh csv_table    # a longer run of one target
#
# Environment: MFUSIM_FUZZ_SECONDS (25), MFUSIM_FUZZ_BUILD_DIR (<repo>/build-fuzz), MFUSIM_JOBS (2: build jobs and
# targets fuzzed at once), CC/CXX for the fuzz build (clang/clang++).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
build=${MFUSIM_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${MFUSIM_FUZZ_SECONDS:-25}
jobs=${MFUSIM_JOBS:-2}
corpora=$root/tests/fuzz/corpus

if [ $# -gt 0 ]; then
  targets=("$@")
else
  mapfile -t targets < <(find "$corpora" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)
fi

echo "== fuzz: configuring $build (clang, address+undefined, libFuzzer)"
CC=${CC:-clang} CXX=${CXX:-clang++} cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DMFUSIM_BUILD_FUZZERS=ON -DMFUSIM_SANITIZE=address,undefined -DCMAKE_CXX_FLAGS=-fsanitize=fuzzer-no-link \
  -DMFUSIM_BUILD_BENCHMARKS=OFF -DMFUSIM_BUILD_BINDINGS=OFF >/dev/null
echo "== fuzz: building ${targets[*]}"
cmake --build "$build" -j "$jobs" --target "${targets[@]/#/mfusim_fuzz_}"

artifacts=$build/fuzz-artifacts
work=$(mktemp -d "${TMPDIR:-/tmp}/mfusim-fuzz-XXXXXX")
trap 'rm -rf "$work"' EXIT
mkdir -p "$artifacts"

# One target: fuzz from the seeds into a scratch corpus (the committed seeds are never written to).
fuzz_one() {
  local target=$1 dict=()
  [ -f "$root/tests/fuzz/dicts/$target.dict" ] && dict=(-dict="$root/tests/fuzz/dicts/$target.dict")
  mkdir -p "$work/$target"
  (cd "$work" && "$build/tests/fuzz/mfusim_fuzz_$target" "$work/$target" "$corpora/$target" "${dict[@]}" \
     -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 -print_final_stats=1 \
     -artifact_prefix="$artifacts/$target-" >"$work/$target.log" 2>&1)
}

status=0
pids=()
names=()
for target in "${targets[@]}"; do
  fuzz_one "$target" &
  pids+=($!)
  names+=("$target")
  if [ ${#pids[@]} -ge "$jobs" ]; then
    wait "${pids[0]}" || status=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || status=1; done

total=0
for target in "${names[@]}"; do
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/$target.log" | tail -n 1)
  runs=${runs:-0}
  total=$((total + runs))
  if [ "$runs" = 0 ] || grep -qE 'ERROR: (libFuzzer|AddressSanitizer|LeakSanitizer)|runtime error:|fuzz property violated|SUMMARY:' \
       "$work/$target.log"; then
    echo "== fuzz: $target FAILED after $runs executions; its log:"
    grep -vE '^#[0-9]+' "$work/$target.log" | tail -n 40
    status=1
  else
    printf '== fuzz: %-14s %9d executions in %ss, no crash\n' "$target" "$runs" "$seconds"
  fi
done
echo "== fuzz: $total executions in all; artifacts (crash inputs) in $artifacts"
exit $status
