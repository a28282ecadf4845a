#!/bin/sh
# Builds a thread-safe (ZTS) PHP CLI into PREFIX for tests/integration/
# php_zts.sh: Debian ships only non-thread-safe PHP, and the hosts smolder
# is for run ZTS builds under Apache's threaded MPMs and in images built
# from PHP's own sources. The source is Debian's php8.2 orig tarball, its
# name and SHA-256 taken from the archive's Sources index (the pool keeps
# only current versions, so no version is written here); it is built as
# distributions build it (GCC, -O2: the hybrid VM with its global
# registers), with only what the test needs (zlib for gzcompress).
#
# Usage: tests/build-php-zts.sh PREFIX   (about 10 minutes on 2 CPUs)
# Needs: python3, a C compiler, make, zlib1g-dev; reaches deb.debian.org.
set -eu
PREFIX=${1:?usage: $0 PREFIX}
if "$PREFIX/bin/php" -r 'exit(PHP_ZTS ? 0 : 1);' 2>/dev/null; then
	echo "build-php-zts: $PREFIX/bin/php is there and thread-safe"
	exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 - "$WORK" <<'PY'
import hashlib, lzma, os, re, sys, urllib.request

work = sys.argv[1]
suites = ["http://deb.debian.org/debian/dists/bookworm/main/source/Sources.xz",
          "http://deb.debian.org/debian-security/dists/bookworm-security/main/source/Sources.xz"]
cands = []
for url in suites:
    try:
        text = lzma.decompress(urllib.request.urlopen(url, timeout=120).read()).decode("utf-8", "replace")
    except OSError as e:
        print("build-php-zts: %s: %s" % (url, e))
        continue
    base = url.split("/dists/")[0]
    for stanza in text.split("\n\n"):
        if "\nPackage: php8.2\n" not in "\n" + stanza + "\n":
            continue
        fields, key = {}, None
        for line in stanza.split("\n"):
            if line[:1] in (" ", "\t") and key:
                fields[key].append(line.strip())
            elif ":" in line:
                key, _, v = line.partition(":")
                fields[key] = [v.strip()] if v.strip() else []
        version = fields["Version"][0]
        for line in fields.get("Checksums-Sha256", []):
            digest, _, name = line.split()
            if name.endswith(".orig.tar.xz"):
                cands.append((tuple(int(x) for x in re.findall(r"\d+", version)), version,
                              base + "/" + fields["Directory"][0] + "/" + name, digest, name))
# the newest first; an index may name a file its mirror does not serve
for _, version, url, digest, name in sorted(cands, reverse=True):
    try:
        data = urllib.request.urlopen(url, timeout=600).read()
    except OSError as e:
        print("build-php-zts: %s: %s" % (url, e))
        continue
    if hashlib.sha256(data).hexdigest() != digest:
        print("build-php-zts: %s: SHA-256 is not the index's %s" % (url, digest))
        continue
    print("build-php-zts: php8.2 %s from %s" % (version, url))
    with open(os.path.join(work, "php.tar.xz"), "wb") as f:
        f.write(data)
    sys.exit(0)
sys.exit("build-php-zts: no php8.2 source could be had from Debian's archive (%d named)" % len(cands))
PY
cd "$WORK"
tar xf php.tar.xz
cd php-*/
echo "build-php-zts: configure"
./configure --prefix="$PREFIX" --enable-zts --disable-all --disable-cgi --disable-phpdbg \
	--without-pear --without-sqlite3 --without-pdo-sqlite --without-libxml --with-zlib \
	>"$WORK/configure.log" 2>&1 || { tail -n 30 "$WORK/configure.log"; exit 1; }
echo "build-php-zts: make"
make -j"$(nproc)" >"$WORK/make.log" 2>&1 || { tail -n 30 "$WORK/make.log"; exit 1; }
make install-cli >"$WORK/install.log" 2>&1 || { tail -n 30 "$WORK/install.log"; exit 1; }
"$PREFIX/bin/php" -r 'exit(PHP_ZTS ? 0 : 1);' || { echo "build-php-zts: $PREFIX/bin/php is not thread-safe"; exit 1; }
echo "build-php-zts: $("$PREFIX/bin/php" -v | head -n 1)"
