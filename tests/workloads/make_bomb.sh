#!/bin/sh
# make_bomb.sh DIR [CC]: builds DIR/bomb.so, a 230 KB library (bomb_lib.c
# beside this script) that declares 100 MB of MiniDebugInfo and 200 MB of
# compressed DWARF: loading its debug data is as expensive as a user can
# make it (doc/security.md, F3). Exit 77 when a tool is missing.
set -u
dir=$1
cc=${2:-${CC:-cc}}
src=$(dirname "$0")/bomb_lib.c
for t in "$cc" objcopy strip xz; do
	command -v "$t" >/dev/null 2>&1 || { echo "$t not installed (needed to build the bombs)"; exit 77; }
done
mkdir -p "$dir" || exit 1
"$cc" -O2 -g -fPIC -shared -o "$dir/lib.so" "$src" || exit 1
strip --strip-all -o "$dir/lib.stripped" "$dir/lib.so" || exit 1
head -c 100M /dev/zero | xz -1 -c >"$dir/mini.xz" || exit 1
head -c 200M /dev/zero >"$dir/zeros" || exit 1
objcopy --add-section .gnu_debugdata="$dir/mini.xz" --add-section .debug_str="$dir/zeros" \
	"$dir/lib.stripped" "$dir/lib.big" || exit 1
objcopy --compress-debug-sections=zlib "$dir/lib.big" "$dir/bomb.so" || exit 1
rm -f "$dir/zeros" "$dir/lib.big" "$dir/mini.xz" "$dir/lib.stripped" "$dir/lib.so"
ls -la "$dir/bomb.so"
