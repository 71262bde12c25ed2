#!/usr/bin/env bash
# Per-call cost of libmfusim from C, Go (hand-written cgo and SWIG), Rust and Java, measured side by side on this
# machine in one run: same estimator (llama-3.1-8b-instruct on H100, roofline, no tables) and same steps (the
# shared fixtures of bindings/README.md). Prints a table of medians in nanoseconds.
#
# Usage: bindings/bench_all.sh [build dir (default: build)] [--quick]
# The build must be configured with -DMFUSIM_BUILD_BINDINGS=ON; the needed targets are built first.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=$root/build
quick=
for arg in "$@"; do
    case $arg in
        --quick) quick=--quick ;;
        *) build=$(cd "$arg" && pwd) ;;
    esac
done
go=$(command -v go || echo /usr/local/go/bin/go)
cargo=$(command -v cargo || echo "$HOME/.cargo/bin/cargo")
swig=$(command -v swig || true)
count=$([ -n "$quick" ] && echo 3 || echo 7)
benchtime=$([ -n "$quick" ] && echo 0.2s || echo 1s)
export PKG_CONFIG_PATH=$build/pkgconfig-uninstalled GOTOOLCHAIN=local CGO_ENABLED=1
export GOCACHE=${GOCACHE:-$build/bindings/cache/go-build} CARGO_TARGET_DIR=$build/bindings/rust-target
results=$(mktemp)
trap 'rm -f "$results"' EXIT
say() { echo "== $*" >&2; }

say "building the library, the C benchmark and the JNI library"
cmake --build "$build" --target mfusim mfusim_bench_c mfusim_jni -j 2 >/dev/null

say "C"
"$build/bindings/mfusim_bench_c" $quick >>"$results"

# go test -bench output -> "<lang> <case> <median ns>" (ns/step for the batch benchmarks).
go_medians() {
    awk -v lang="$1" '
        /^Benchmark/ {
            name = $1; sub(/-[0-9]+$/, "", name)
            for (i = 2; i < NF; i++) if ($(i + 1) == "ns/op") op = $i; else if ($(i + 1) == "ns/step") step = $i
            c = ""
            if (name == "BenchmarkStepTime1") c = "single_1"
            if (name == "BenchmarkStepTime256") c = "single_256"
            if (name == "BenchmarkStepTimeBatch1x1000") c = "batch_1x1000_per_step"
            if (name == "BenchmarkStepTimeBatch256x64") c = "batch_256x64_per_step"
            if (c ~ /^batch/) v[c] = v[c] " " step
            else if (c != "") v[c] = v[c] " " op
        }
        END {
            for (c in v) {
                n = split(substr(v[c], 2), a, " ")
                for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
                print lang, c, a[int((n + 1) / 2)]
            }
        }'
}

say "Go (hand-written)"
(cd "$root/bindings/go" && "$go" test -run '^$' -bench 'StepTime' -benchtime="$benchtime" -count="$count" ./mfusim/) |
    go_medians go >>"$results"

say "Go (SWIG)"
if [ -n "$swig" ]; then
    "$root/bindings/go-swig/test.sh" "$build/bindings/go-swig-bench" "$swig" "$go" -run '^$' -bench 'StepTime' \
        -benchtime="$benchtime" -count="$count" . | go_medians go_swig >>"$results"
else
    echo "   (swig not found: skipped)" >&2
fi

say "Rust"
(cd "$root/bindings/rust" && "$cargo" bench --locked -q -p mfusim --bench step_time -j 2 -- $quick 2>/dev/null) |
    grep '^rust ' >>"$results"

say "Java"
(cd "$root/bindings/java" && mvn -B -q -Dstyle.color=never -Dmfusim.swig.sources="$build/bindings/java-swig" \
    -Dmfusim.build.dir="$build/bindings/maven" test-compile)
java -cp "$build/bindings/maven/classes:$build/bindings/maven/test-classes" \
    -Dmfusim.library.path="$build/bindings/java" io.mfusim.Bench $quick >>"$results"

echo
echo "Per-call cost, median ns ($(uname -m), $(nproc) cores; $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'))"
awk '
    { v[$1, $2] = $3; cases[$2] = 1 }
    END {
        split("single_1 single_256 batch_1x1000_per_step batch_256x64_per_step", order, " ")
        split("c go go_swig rust java", langs, " ")
        split("C|Go cgo|Go SWIG|Rust|Java JNI", heads, "|")
        printf "%-24s", "case"
        for (l = 1; l <= 5; l++) printf "%11s", heads[l]
        printf "%16s%16s\n", "Go - C", "Go SWIG - C"
        for (o = 1; o <= 4; o++) {
            c = order[o]
            printf "%-24s", c
            for (l = 1; l <= 5; l++) printf "%11s", ((langs[l], c) in v) ? v[langs[l], c] : "-"
            d1 = ((("go", c) in v) && (("c", c) in v)) ? sprintf("%+.1f", v["go", c] - v["c", c]) : "-"
            d2 = ((("go_swig", c) in v) && (("c", c) in v)) ? sprintf("%+.1f", v["go_swig", c] - v["c", c]) : "-"
            printf "%16s%16s\n", d1, d2
        }
    }' "$results"
echo "single_*: one step_time call; batch_*: one step_time_batch call over 1000 (or 64) steps, per step."
echo "Targets: Go single call under C + 100 ns; Go batched under 10 ns per step of overhead; 0 allocations (go test)."
