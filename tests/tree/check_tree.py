#!/usr/bin/env python3
"""The shape of the source tree, checked (doc/architecture.md says why):

1. No include arrow points up: a file of a stage includes headers of its own
   stage and of the stages below it only (STAGES below, bottom first).
2. No source file over MAX_FILE_LINES lines unless its header comment gives
   the reason, in a line starting "Long file:".
3. No function in cli/ over MAX_CLI_FUNC_LINES lines: a subcommand parses,
   calls the machinery and prints; more than that belongs in a stage.
4. No runtime reader is named outside runtimes/ but in the registry's table
   (READER_TABLE): other files reach readers through the contract
   (runtimes/runtime.h), so adding a runtime is a reader and a row. A
   reader's files are those of runtimes/ outside CONTRACT; its names are
   what the prefixes of their stems make by the code conventions
   (prefix__function, struct prefix_type, PREFIX_MACRO) and the reader
   objects readers.h declares.

Usage: check_tree.py [SRCDIR]   exit 0 when the tree keeps every rule, 1
with one line per violation. check_tree.py --self-test plants a violation
of each rule in a scratch tree and fails unless each is caught."""
import os
import re
import sys
import tempfile

# Each stage and the stages it may include, bottom first.
STAGES = {
    "common": set(),
    "profile": {"common"},
    "unwind": {"common"},
    "runtimes": {"common", "profile", "unwind"},
    "symbolize": {"common", "profile", "runtimes", "unwind"},
    "collector": {"common", "profile", "runtimes", "unwind", "symbolize"},
    "export": {"common", "profile"},
    "daemon": {"common", "profile", "runtimes", "unwind", "symbolize", "collector", "export"},
    "cli": {"common", "profile", "runtimes", "unwind", "symbolize", "collector", "export", "daemon"},
}
# What of runtimes/ every stage may use: the contract, the byte sources and
# budgets readers read through, the ELF symbol lookups, and Go's pc-line
# table (a part of a Go binary's format, as its symbol table is: the symbol
# index names Go functions from it, the Go reader unwinds by it).
CONTRACT = {"runtime", "readers", "memsource", "procmem", "accountant", "elf_symbols",
            "gopclntab", "gopclntab_elf", "gobuildinfo"}
READER_TABLE = "collector/runtimes.c"
MAX_FILE_LINES = 800
MAX_CLI_FUNC_LINES = 80
SOURCE = re.compile(r"\.(c|h|cc)$")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([a-z_]+)/[^"]+"')


def sources(root):
    for stage in sorted(STAGES):
        d = os.path.join(root, stage)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if SOURCE.search(name):
                yield stage, os.path.join(stage, name), os.path.join(d, name)


def check_includes(stage, rel, lines):
    out = []
    for no, line in enumerate(lines, 1):
        m = INCLUDE.match(line)
        if m and m.group(1) in STAGES and m.group(1) != stage and m.group(1) not in STAGES[stage]:
            out.append("%s:%d: %s/ includes %s/, a stage above it or beside it: %s"
                       % (rel, no, stage, m.group(1), line.strip()))
    return out


def check_length(rel, lines):
    if len(lines) <= MAX_FILE_LINES:
        return []
    head = lines[:40]
    if any(re.match(r"^\s*\*?\s*Long file:", l) or "Long file:" in l for l in head):
        return []
    return ["%s: %d lines (over %d) and no 'Long file:' reason in its header comment"
            % (rel, len(lines), MAX_FILE_LINES)]


def check_cli_functions(rel, lines):
    out = []
    start = None
    for no, line in enumerate(lines, 1):
        if line.startswith("{") and start is None:
            start = no
        elif line.startswith("}") and start is not None:
            body = no - start - 1
            if body > MAX_CLI_FUNC_LINES:
                # the signature is the last non-blank line before the brace
                sig = next((lines[i].strip() for i in range(start - 2, -1, -1) if lines[i].strip()), "?")
                out.append("%s:%d: function of %d lines (over %d in cli/): %s"
                           % (rel, start, body, MAX_CLI_FUNC_LINES, sig))
            start = None
    return out


def reader_names(root):
    """The headers and identifier prefixes of runtime readers."""
    d = os.path.join(root, "runtimes")
    headers, prefixes = set(), set()
    if not os.path.isdir(d):
        return headers, prefixes
    for name in os.listdir(d):
        stem = re.sub(r"\.(c|h|cc)$", "", name)
        if not SOURCE.search(name) or stem in CONTRACT:
            continue
        if name.endswith(".h"):
            headers.add("runtimes/" + name)
        prefixes.add(stem.split("_")[0])
    readers = os.path.join(d, "readers.h")
    if os.path.exists(readers):
        with open(readers, encoding="utf-8", errors="replace") as f:
            prefixes.update(re.findall(r"runtime_reader\s+(\w+)\s*;", f.read()))
    return headers, prefixes


def code_only(text):
    """text without its comments and string literals (names in prose are fine)."""
    return re.sub(r'/\*.*?\*/|//[^\n]*|"(\\.|[^"\\\n])*"', " ", text, flags=re.S)


def check_readers(stage, rel, text, headers, prefixes):
    if stage == "runtimes" or rel == READER_TABLE or not prefixes:
        return []
    out = []
    for no, line in enumerate(text.split("\n"), 1):
        m = re.match(r'^\s*#\s*include\s+"(runtimes/[^"]+)"', line)
        if m and m.group(1) in headers:
            out.append("%s:%d: includes a runtime reader's header outside runtimes/ and the "
                       "registry's table (%s): %s" % (rel, no, READER_TABLE, line.strip()))
    objects = sorted(p for p in prefixes if p.startswith("runtime_"))
    stems = sorted(p for p in prefixes if not p.startswith("runtime_"))
    alts = ["\\b(%s)__\\w+" % "|".join(map(re.escape, stems)),
            "\\bstruct\\s+(%s)(_\\w+)?\\b" % "|".join(map(re.escape, stems)),
            "\\b(%s)_[A-Z0-9_]+\\b" % "|".join(re.escape(p.upper()) for p in stems)]
    if objects:
        alts.append("\\b(%s)\\b" % "|".join(map(re.escape, objects)))
    ident = re.compile("|".join(alts))
    for no, line in enumerate(code_only(text).split("\n"), 1):
        if line.lstrip().startswith("#"):
            continue
        m = ident.search(line)
        if m:
            out.append("%s:%d: names a runtime reader (%s) outside runtimes/ and the registry's "
                       "table (%s)" % (rel, no, m.group(0), READER_TABLE))
    return out


def check(root):
    problems = []
    headers, prefixes = reader_names(root)
    for stage, rel, path in sources(root):
        with open(path, encoding="utf-8", errors="replace") as f:
            text = f.read()
        lines = text.split("\n")
        problems += check_includes(stage, rel, lines)
        problems += check_length(rel, lines)
        problems += check_readers(stage, rel, text, headers, prefixes)
        if stage == "cli" and rel.endswith(".c"):
            problems += check_cli_functions(rel, lines)
    return problems


def self_test():
    with tempfile.TemporaryDirectory() as root:
        for stage in STAGES:
            os.mkdir(os.path.join(root, stage))

        def write(rel, text):
            with open(os.path.join(root, rel), "w") as f:
                f.write(text)

        write("common/ok.c", '#include "common/ok.h"\n')
        write("runtimes/runtime.h", "struct runtime_reader;\n")
        write("runtimes/readers.h", "extern const struct runtime_reader runtime_lisp;\n")
        write("runtimes/lisp.h", "int lisp__open(void);\n")
        write("runtimes/lisp_reader.c", '#include "runtimes/lisp.h"\n')
        write("collector/runtimes.c", '#include "runtimes/lisp.h"\nconst void *t[] = { &runtime_lisp };\n')
        write("symbolize/ok.c", '#include "runtimes/runtime.h"\n/* lisp__open() is the lisp reader\'s */\n')
        write("export/ok.c", '#include "profile/profile.h"\n#include "common/log.h"\n')
        if check(root):
            print("self-test: a clean tree was reported: %s" % check(root))
            return 1
        cases = [
            ("export/up.c", '#include "collector/sampler.h"\n', "includes collector/"),
            ("unwind/up.c", '#include "symbolize/symindex.h"\n', "includes symbolize/"),
            ("profile/up.h", '  #  include "export/json_dump.h"\n', "includes export/"),
            ("common/long.c", "int x;\n" * (MAX_FILE_LINES + 1), "no 'Long file:'"),
            ("cli/long.c", "static int f(void)\n{\n" + "\tx++;\n" * (MAX_CLI_FUNC_LINES + 1) + "}\n",
             "function of"),
            ("collector/lisps.c", '#include "runtimes/lisp.h"\n', "runtime reader's header"),
            ("symbolize/named.c", "int f(void) { return lisp__open(); }\n", "names a runtime reader"),
            ("unwind/row.c", "const void *r = &runtime_lisp;\n", "names a runtime reader"),
        ]
        failed = 0
        for rel, text, expect in cases:
            write(rel, text)
            got = check(root)
            if not any(rel in p and expect in p for p in got):
                print("self-test: %s was not caught (%s)" % (rel, got))
                failed = 1
            os.unlink(os.path.join(root, rel))
        write("common/long.c", "/* Long file: the tables of every format. */\n" + "int x;\n" * 900)
        if check(root):
            print("self-test: a long file with its reason was reported: %s" % check(root))
            failed = 1
        if not failed:
            print("self-test: every planted violation caught")
        return failed


def main(argv):
    if len(argv) > 1 and argv[1] == "--self-test":
        return self_test()
    root = argv[1] if len(argv) > 1 else os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
    problems = check(root)
    for p in problems:
        print(p)
    if not problems:
        print("tree: no upward include, no unexplained long file, no long cli/ function, "
              "no runtime reader named outside runtimes/ and its table")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
