# Shared by abi/check.sh and abi/update-baseline.sh (sourced, not run). docs/abi.md explains the checks.
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
abi=$root/abi
build=${MFUSIM_ABI_BUILD_DIR:-$root/build-abi}
jobs=${MFUSIM_JOBS:-2}
baseline=$abi/libmfusim.so.1.abi
constants_baseline=$abi/mfusim.constants

for tool in abidw abidiff; do
  command -v "$tool" >/dev/null || { echo "abi: $tool not found (apt-get install -y abigail-tools)" >&2; exit 2; }
done

# Builds libmfusim.so.1 with debug information (abidw reads the DWARF) in its own folder.
build_library() {
  echo "== abi: building libmfusim in $build"
  cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DMFUSIM_BUILD_TESTS=OFF \
    -DMFUSIM_BUILD_BENCHMARKS=OFF -DMFUSIM_BUILD_BINDINGS=OFF -DMFUSIM_SANITIZE= >/dev/null
  # (Ninja: the target "mfusim" names the CLI's output file, so the library is built by its file's name.)
  cmake --build "$build" -j "$jobs" --target libmfusim.so
  library=$(readlink -f "$build/src/libmfusim.so.1")
}

# The ABI of the exported interface only (what mfusim.h declares), without paths of this machine, with the opaque
# handles' definitions dropped (abi/mfusim.abignore).
dump_abi() {  # output-file
  abidw --exported-interfaces-only --headers-dir "$root/include" --drop-private-types --drop-undefined-syms \
    --no-corpus-path --no-comp-dir-path --short-locs --suppressions "$abi/mfusim.abignore" "$library" >"$1"
}

# Every MFUSIM_* constant of mfusim.h as "NAME VALUE", sorted: the status, op, mode, bound, source and phase
# numbers (anonymous enums, invisible to abidw), flag bits and capacities, plus the size and member offsets of every
# public struct. The version macros are left out (they change with every release by design).
dump_constants() {  # output-file
  local work
  work=$(mktemp -d)
  {
    echo '#include <mfusim.h>'
    echo '#include <stddef.h>'
    echo '#include <stdio.h>'
    echo 'int main(void) {'
    grep -oE '^\s*(#define\s+)?MFUSIM_[A-Z0-9_]+\s*(=|\s[0-9(])' "$root/include/mfusim.h" |
      grep -oE 'MFUSIM_[A-Z0-9_]+' | grep -vE '^MFUSIM_(VERSION_|API$|H$)' | sort -u |
      while read -r name; do echo "  printf(\"%s %lld\\n\", \"$name\", (long long)($name));"; done
    # struct sizes and offsets, from the typedef'd structs of the header
    sed -n 's/^typedef struct \(mfusim_[a-z_]*\) {$/\1/p' "$root/include/mfusim.h" | while read -r type; do
      echo "  printf(\"sizeof(%s) %zu\\n\", \"$type\", sizeof($type));"
      awk -v t="$type" '$0 ~ "^typedef struct " t " \\{$" {on=1; next} on && /^}/ {on=0} on' "$root/include/mfusim.h" |
        grep -oE '^\s+[a-z_0-9 ]+[ *]+([a-z_0-9]+)(\[[A-Z_0-9]+\])?;' | sed -E 's/.*[ *]([a-z_0-9]+)(\[.*\])?;/\1/' |
        while read -r member; do
          echo "  printf(\"offsetof(%s, %s) %zu\\n\", \"$type\", \"$member\", offsetof($type, $member));"
        done
    done
    echo '  return 0;'
    echo '}'
  } >"$work/constants.c"
  ${CC:-cc} -std=c99 -I"$root/include" "$work/constants.c" -o "$work/constants"
  "$work/constants" | sort >"$1"
  rm -rf "$work"
}
