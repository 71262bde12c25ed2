#!/usr/bin/env bash
# Per-call cost of libmfusim from C, Go (hand-written cgo and SWIG), Rust and Java, measured side by side on this
# machine in one run: same estimator (llama-3.1-8b-instruct on H100, roofline, no tables) and same steps (the
# shared fixtures of bindings/README.md). Prints a table of medians in nanoseconds.
#
# Usage: bindings/bench_all.sh [build dir (default: build)] [--quick (1 round instead of 7)]
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
export PKG_CONFIG_PATH=$build/pkgconfig-uninstalled GOTOOLCHAIN=local CGO_ENABLED=1
export GOCACHE=${GOCACHE:-$build/bindings/cache/go-build} CARGO_TARGET_DIR=$build/bindings/rust-target
results=$(mktemp)
say() { echo "== $*" >&2; }

# go test -bench output -> "<lang> <case> <median ns>" (ns/step for the batch benchmarks); one value per run of a benchmark, medians if it ran several times.
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


say "building: the library, the C benchmark, the JNI library, the Go test binaries, the Rust bench, the Java classes"
cmake --build "$build" --target mfusim mfusim_bench_c mfusim_jni -j 2 >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work" "$results"' EXIT
(cd "$root/bindings/go" && "$go" test -c -o "$work/go.test" ./mfusim/)
if [ -n "$swig" ]; then
    "$root/bindings/go-swig/generate.sh" "$build/bindings/go-swig-bench" "$swig"
    (cd "$build/bindings/go-swig-bench" && "$go" test -c -o "$work/go_swig.test" .)
else
    echo "   (swig not found: no Go SWIG column)" >&2
fi
(cd "$root/bindings/rust" && "$cargo" bench --locked -q -p mfusim --bench step_time -j 2 --no-run 2>/dev/null)
(cd "$root/bindings/java" && mvn -B -q -Dstyle.color=never -Dmfusim.swig.sources="$build/bindings/java-swig" \
    -Dmfusim.build.dir="$build/bindings/maven" test-compile >"$work/mvn.log" 2>&1) || { cat "$work/mvn.log"; exit 1; }

# Every language measures alike: 3 timed runs of a fixed iteration count per case (the counts of the C, Rust and
# Java programs' --quick mode), median of the 3. Go: the test binary, one benchmark at a time.
go_round() { # <test binary> <language column>
    local bin=$1 lang=$2 name n
    for spec in "StepTime1 20000" "StepTime256 2000" "StepTimeBatch1x1000 20" "StepTimeBatch256x64 30"; do
        read -r name n <<<"$spec"
        "$bin" -test.run '^$' -test.bench "^Benchmark${name}\$" -test.benchtime "${n}x" -test.count 3
    done | go_medians "$lang"
}

# The languages take turns, round after round, so that a busy neighbour on a shared machine disturbs them alike;
# each number below is the median over rounds of each round's own median.
rounds=$([ -n "$quick" ] && echo 1 || echo 7)
for round in $(seq "$rounds"); do
    say "round $round of $rounds: C, Go, Go SWIG, Rust, Java"
    "$build/bindings/mfusim_bench_c" --quick >>"$results"
    go_round "$work/go.test" go >>"$results"
    if [ -x "$work/go_swig.test" ]; then go_round "$work/go_swig.test" go_swig >>"$results"; fi
    (cd "$root/bindings/rust" && "$cargo" bench --locked -q -p mfusim --bench step_time -j 2 -- --quick 2>/dev/null) |
        grep '^rust ' >>"$results"
    java -cp "$build/bindings/maven/classes:$build/bindings/maven/test-classes" \
        -Dmfusim.library.path="$build/bindings/java" io.mfusim.Bench --quick >>"$results"
done

machine="$(uname -m), $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')"
# table <statistic over rounds: median | min>
table() {
    awk -v stat="$1" '
        { k = $1 SUBSEP $2; n[k]++; s[k, n[k]] = $3 }
        END {
            for (k in n) {
                m = n[k]
                for (i = 1; i <= m; i++) a[i] = s[k, i] + 0
                for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                if (stat == "min") v[k] = a[1]
                else v[k] = m % 2 ? a[(m + 1) / 2] : (a[m / 2] + a[m / 2 + 1]) / 2
            }
            split("single_1 single_256 batch_1x1000_per_step batch_256x64_per_step", order, " ")
            split("c go go_swig rust java", langs, " ")
            split("C|Go cgo|Go SWIG|Rust|Java JNI", heads, "|")
            printf "%-24s", "case"
            for (l = 1; l <= 5; l++) printf "%11s", heads[l]
            printf "%14s%14s\n", "Go - C", "Go SWIG - C"
            for (o = 1; o <= 4; o++) {
                c = order[o]
                printf "%-24s", c
                for (l = 1; l <= 5; l++) printf "%11s", ((langs[l], c) in v) ? sprintf("%.1f", v[langs[l], c]) : "-"
                d1 = ((("go", c) in v) && (("c", c) in v)) ? sprintf("%+.1f", v["go", c] - v["c", c]) : "-"
                d2 = ((("go_swig", c) in v) && (("c", c) in v)) ? sprintf("%+.1f", v["go_swig", c] - v["c", c]) : "-"
                printf "%14s%14s\n", d1, d2
            }
        }' "$results"
}
echo
echo "Per-call cost in ns, median over $rounds round(s) ($machine; load average $(cut -d' ' -f1-3 /proc/loadavg))"
table median
echo
echo "Best round (min): the least disturbed estimate on a shared machine"
table min
echo
echo "single_*: one step_time call; batch_*: one step_time_batch call over 1000 (or 64) steps, per step."
echo "Targets: Go single call under C + 100 ns; Go batched under 10 ns per step of overhead; 0 allocations (go test)."
