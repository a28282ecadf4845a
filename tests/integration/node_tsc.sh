#!/bin/sh
# A real node program with no flags: Debian's TypeScript compiler (tsc)
# type-checking and emitting a generated project of 400 files (classes,
# generics, mapped types; each importing two before it), which compiles
# without an error. The V8 reader
# names its JavaScript frames from node's own metadata: >= 95 % of the
# main thread's samples (its stacks rooted at _start) hold a named
# JavaScript frame, "function (file.js:LINE)_[j]" (or _[i], inlined; node's
# own modules are "function (node:internal/...)"): the rest is node's C++
# start-up, before any JavaScript runs. And
# [unknown] is in <= 2 % of them. tsc's own functions (checkSourceFile,
# emitFiles...) must be among the names: the frames are tsc's, not only
# node's bootstrap.
. "$TESTS_SRCDIR/integration/lib.sh"
need_perf process
command -v node >/dev/null 2>&1 || skip "node not installed (Debian: nodejs)"
TSC=$(command -v tsc 2>/dev/null)
[ -n "$TSC" ] || skip "tsc not installed (Debian: node-typescript)"

"$PYTHON3" - "$TMP/proj" 400 <<'PY' || fail "generating the project"
import os, sys
root, n = sys.argv[1], int(sys.argv[2])
os.makedirs(os.path.join(root, "src"))
with open(os.path.join(root, "tsconfig.json"), "w") as f:
    f.write('{"compilerOptions": {"strict": true, "target": "es2019", "module": "commonjs",'
            ' "outDir": "out", "declaration": true}, "include": ["src"]}\n')
for i in range(n):
    deps = sorted({i - 1, i - 7} - {-1, -2, -3, -4, -5, -6, -7}) if i else []
    imports = "".join("import { Item%d, Store%d, score%d } from './m%d';\n" % (d, d, d, d) for d in deps)
    uses = "".join("        total += score%d({ id: x.id, tag: x.tag, weight: x.weight });\n" % d for d in deps)
    body = imports + """
export interface Item%(i)d { readonly id: number; tag: string; weight: number }
export type Keyed%(i)d = { [K in keyof Item%(i)d]: Item%(i)d[K] | null };
export type Ranked%(i)d<T extends Item%(i)d> = Array<{ item: T; rank: number }>;
export class Store%(i)d<T extends Item%(i)d> {
    private readonly all = new Map<number, T>();
    add(x: T): this { this.all.set(x.id, x); return this; }
    pick<K extends keyof T>(k: K): Array<T[K]> { return [...this.all.values()].map(v => v[k]); }
    ranked(): Ranked%(i)d<T> {
        return [...this.all.values()].sort((a, b) => a.weight - b.weight).map((item, rank) => ({ item, rank }));
    }
    blank(x: T): Keyed%(i)d { return { id: x.id, tag: null, weight: x.weight > 0 ? x.weight : null }; }
}
export function score%(i)d(x: Item%(i)d): number {
    let total = x.weight * %(i)d;
%(uses)s    return total + x.tag.length;
}
export const table%(i)d: Record<string, (n: number) => string> = {
%(entries)s
};
""" % {"i": i, "uses": uses,
       "entries": "\n".join("    k%d: (n: number) => `${n * %d}`," % (j, j) for j in range(12))}
    with open(os.path.join(root, "src", "m%d.ts" % i), "w") as f:
        f.write(body)
PY

(cd "$TMP/proj" && run_smolder 180 record -F 999 -o "$TMP/out.json" -- "$TSC" -p . && [ "$SM_RC" -eq 0 ]) \
	|| fail "record of tsc failed"
[ -f "$TMP/proj/out/m399.js" ] || fail "tsc did not compile the project"
keep_artifact "$TMP/out.json" node_tsc.out.json
"$PYTHON3" - "$TMP/out.json" <<'PY' || fail "tsc's JavaScript frames are not named well enough"
import json, re, sys
d = json.load(open(sys.argv[1]))
named = re.compile(r"^.+ \([^()]+\)_\[[ji]\]$")  # function (file.js:LINE), node:internal/... too
main = withjs = unknown = 0
names = {}
for p in d["profiles"]:
    if p["labels"].get("comm") != "node":
        continue
    for s in p["stacks"]:
        fr = s["stack"].split(";")
        if fr[0] != "_start":
            continue  # another thread's (clone3, start_thread), or no user stack
        n = s["count"]
        main += n
        js = [f for f in fr if named.match(f)]
        withjs += n if js else 0
        unknown += n if "[unknown]" in fr else 0
        for f in js:
            fn = f.split(" (")[0]
            names[fn] = names.get(fn, 0) + n
pct = lambda x: 100.0 * x / main if main else 0
top = sorted(names.items(), key=lambda kv: -kv[1])[:8]
print("tsc: %d main-thread samples, %.1f%% with a named JavaScript frame (>= 95), %.2f%% [unknown] "
      "(<= 2); most named: %s" % (main, pct(withjs), pct(unknown), ", ".join(k for k, _ in top)))
print("  v8: %s" % json.dumps(d["stats"]["runtimes"].get("v8"), sort_keys=True))
tsc_own = [k for k in names if k in ("checkSourceFile", "checkSourceFileWorker", "emitFiles",
                                      "createProgram", "getTypeOfSymbol", "checkExpression",
                                      "parseSourceFile", "bindSourceFile", "emitJsFileOrBundle")]
print("  tsc's own functions seen: %s" % ", ".join(sorted(tsc_own)))
sys.exit(0 if main >= 500 and pct(withjs) >= 95 and pct(unknown) <= 2 and tsc_own else 1)
PY
exit 0
