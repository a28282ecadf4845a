#!/bin/sh
# Every linker's layout: the chain workload (main -> a -> b -> c, -O2, no frame
# pointers) built with GNU ld (with and without -z separate-code), gold, lld
# and mold, PIE and not, and a dlopened library linked by lld and mold (they
# pack the read-only and executable segments into one file page, so the
# mapping's file offset alone names the wrong segment). Each build must give
# the full chain from _start in >= 95% of its samples, and all builds the same
# user stack. A linker that is not installed is skipped and named.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
cc=${CC:-cc}
command -v "$cc" >/dev/null 2>&1 || skip "no C compiler ($cc)"

src="$TESTS_SRCDIR/workloads"
flags="-O2 -g -fomit-frame-pointer -I$src"
variants="bfd-pie:-fuse-ld=bfd_-pie bfd-nopie:-fuse-ld=bfd_-no-pie
bfd-separate:-fuse-ld=bfd_-pie_-Wl,-z,separate-code
bfd-noseparate:-fuse-ld=bfd_-pie_-Wl,-z,noseparate-code
gold-pie:-fuse-ld=gold_-pie gold-nopie:-fuse-ld=gold_-no-pie
lld-pie:-fuse-ld=lld_-pie lld-nopie:-fuse-ld=lld_-no-pie
mold-pie:-fuse-ld=mold_-pie mold-nopie:-fuse-ld=mold_-no-pie"

built= missing=
for v in $variants; do
	name=${v%%:*}
	opts=$(echo "${v#*:}" | tr '_' ' ')
	# shellcheck disable=SC2086
	if $cc $flags $opts -o "$TMP/chain-$name" "$src/chain.c" 2>"$TMP/cc.err"; then
		built="$built $name"
	else
		missing="$missing $name"
		echo "  $name: cannot link ($(head -n 1 "$TMP/cc.err"))"
	fi
done
[ -n "$built" ] || skip "no linker variant could be built"
case " $built " in *" lld-pie "*) ;; *) echo "NOTE: lld missing: the packed layout is not covered";; esac

ref=
for name in $built; do
	mkdir -p "$TMP/$name"
	# the variant's binary must be named chain for the exe filter
	cp "$TMP/chain-$name" "$TMP/$name/chain"
	run_smolder 60 record -F 999 -o "$TMP/$name/out.json" -- "$TMP/$name/chain" 1
	expect_ok
	keep_artifact "$TMP/$name/out.json" "linkers-$name.out.json"
	$CHECK share "$TMP/$name/out.json" --exe chain --first _start --seq 'main;a;b;c' --min 95 \
		--label "$name" || fail "$name: the chain is not unwound completely often enough"
	top=$("$PYTHON3" - "$TMP/$name/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
stacks = {}
for p in d["profiles"]:
    for s in p["stacks"]:
        # the linker shapes the user part; an interrupt's kernel tail on top
        # depends on the machine's load, not on the layout
        user = ";".join(f for f in s["stack"].split(";") if not f.endswith("_[k]"))
        stacks[user] = stacks.get(user, 0) + s["count"]
print(max(stacks, key=stacks.get))
PY
)
	echo "  $name: $top"
	if [ -z "$ref" ]; then ref=$top; ref_name=$name
	elif [ "$top" != "$ref" ]; then fail "$name's stack differs from $ref_name's: '$top' vs '$ref'"
	fi
done

# A shared library mapped by the packing linkers.
for l in lld mold; do
	case " $built " in *" $l-pie "*) ;; *) continue;; esac
	mkdir -p "$TMP/dl-$l"
	$cc $flags -fPIC -shared -fuse-ld=$l -o "$TMP/dl-$l/libdlwork.so" "$src/libdlwork.c" ||
		fail "libdlwork.so with $l"
	$cc $flags -fuse-ld=$l -o "$TMP/dl-$l/dlopen_main" "$src/dlopen_main.c" -ldl ||
		fail "dlopen_main with $l"
	run_smolder 60 record -F 999 -o "$TMP/dl-$l/out.json" -- "$TMP/dl-$l/dlopen_main" 2
	expect_ok
	$CHECK share "$TMP/dl-$l/out.json" --exe dlopen_main --first _start \
		--seq 'main;dl_outer;dl_hot' --min 80 --label "dlopen ($l)" ||
		fail "$l: the dlopened library's frames are not unwound from _start"
done
[ -z "$missing" ] || echo "not covered here (linker missing):$missing"
exit 0
