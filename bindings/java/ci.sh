#!/usr/bin/env bash
# Maven build and JUnit 5 tests of the Java binding against the JNI library CMake built (packaged into the classes
# under io/mfusim/native/<platform>/ and loaded from there, as users' jars do), then a check that the JVM's
# -Xcheck:jni reported nothing (its findings are warnings that Maven would otherwise only mention).
# Usage: ci.sh <mvn> <generated SWIG Java sources> <dir of libmfusim_jni.so> <Maven output dir> [mvn args...]
set -euo pipefail
mvn=$1 sources=$2 libdir=$3 out=$4
shift 4
[ -f "$libdir/libmfusim_jni.so" ] || { echo "FAIL: $libdir/libmfusim_jni.so is missing: build the mfusim_jni target" >&2; exit 1; }
cd "$(dirname "$0")"
rm -rf "$out/surefire-reports"
"$mvn" -B -q -Dstyle.color=never "$@" "-Dmfusim.swig.sources=$sources" "-Dmfusim.native.dir=$libdir" "-Dmfusim.build.dir=$out" test
if compgen -G "$out/surefire-reports/*.dumpstream" >/dev/null; then
    echo "FAIL: the JVM reported JNI problems (-Xcheck:jni):" >&2
    sort "$out"/surefire-reports/*.dumpstream | uniq -c | sort -rn | head -n 20 >&2
    exit 1
fi
grep -h "Tests run" "$out"/surefire-reports/*.txt
