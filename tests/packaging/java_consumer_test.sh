#!/usr/bin/env bash
# The Java binding as a third party gets it: `mvn install` of bindings/java (jar with the JNI library inside,
# sources and javadoc jars), then a fresh Maven project with JUnit 5 that depends on the installed artifact and
# runs `mvn test` with no -D flags and no library path. Also checks that a checkout without the native parts
# fails in one line naming the command to run first.
# Usage: java_consumer_test.sh <mvn> <CMake build dir> <work dir> [mvn args for both, e.g. -Dmaven.repo.local=...]
set -euo pipefail
mvn=$1
build=$(cd "$2" && pwd)
work=$(mkdir -p "$3" && cd "$3" && pwd)
shift 3
here=$(cd "$(dirname "$0")" && pwd)
java=$(cd "$here/../../bindings/java" && pwd)
unset MFUSIM_JNI_LIBRARY LD_LIBRARY_PATH
fail() { echo "FAIL: $*" >&2; exit 1; }
step() { echo "== $* ($(date +%T))"; }

step "without the native parts: one line naming the missing file and what to run first"
if out=$(cd "$java" && "$mvn" -B -q "$@" -Dmfusim.cmake.build="$work/no-such-build" -Dmfusim.build.dir="$work/none" validate 2>&1); then
    fail "validate passed without the native parts"
fi
echo "$out" | grep -m1 "libmfusim_jni.so is not built: run first" || fail "no 'run first' line in: $out"

step "with them, the documented defaults (../../build, a path with ..) pass the check (only where that build exists)"
if [ "$(cd "$java/../../build" 2>/dev/null && pwd -P)" = "$(cd "$build" && pwd -P)" ]; then
    (cd "$java" && "$mvn" -B -q "$@" -Dmfusim.build.dir="$work/defaults" validate) || fail "validate with the defaults"
fi

step "mvn install of the binding (tests are CTest's java test)"
(cd "$java" && "$mvn" -B -q "$@" -Dmfusim.cmake.build="$build" -Dmfusim.build.dir="$work/binding" -DskipTests install) ||
    fail "mvn install"
jar=$work/binding/mfusim-1.0.0.jar
for f in "$jar" "$work/binding/mfusim-1.0.0-sources.jar" "$work/binding/mfusim-1.0.0-javadoc.jar"; do
    [ -f "$f" ] || fail "$f not built"
done
listing=$(jar tf "$jar")
for entry in io/mfusim/native/linux-x86_64/libmfusim_jni.so META-INF/LICENSE io/mfusim/Estimator.class \
             io/mfusim/swig/MfusimNative.class; do
    grep -qx "$entry" <<<"$listing" || fail "$jar lacks $entry"
done
unzip -p "$jar" META-INF/MANIFEST.MF | grep -q "Automatic-Module-Name: io.mfusim" || fail "no Automatic-Module-Name"
native=$work/binding/mfusim-1.0.0-linux-x86_64.jar
[ -f "$native" ] || fail "no per-platform classifier jar $native"
[ "$(jar tf "$native" | grep -c '\.so$')" = 1 ] && ! jar tf "$native" | grep -q '\.class$' ||
    fail "$native should hold the JNI library alone"
rm -rf "$work/so" && mkdir -p "$work/so" && (cd "$work/so" && jar xf "$jar" io/mfusim/native/linux-x86_64/libmfusim_jni.so)
so=$work/so/io/mfusim/native/linux-x86_64/libmfusim_jni.so
! readelf -S "$so" | grep -Eq '\.symtab|\.debug_info' || fail "the JNI library in the jar is not stripped"
echo "JNI library in the jar: $(du -k "$so" | cut -f1) KiB, stripped"

step "a fresh Maven project depending on io.github.libmfusim:mfusim:1.0.0"
rm -rf "$work/consumer"
cp -R "$here/java_consumer" "$work/consumer"
(cd "$work/consumer" && "$mvn" -B "$@" test) >"$work/consumer.log" 2>&1 || { cat "$work/consumer.log"; fail "consumer mvn test"; }
grep -E "libmfusim .*Java|Tests run:" "$work/consumer.log" | head -n 3
echo "PASS: installed artifact (jar with $(grep -c '^io/mfusim/native/.*\.so$' <<<"$listing") native entries, sources, javadoc) used by a fresh project with no flags"
