#!/bin/sh
# Where root's output goes (doc/security.md, 9). In a world-writable sticky
# directory (like /tmp), user nobody plants what root will name with
# `record -o` and `report -o`: a FIFO (with a reader of theirs and without),
# a symlink to a root-only file, a device node of theirs, a hard link to a
# device, a directory, a file of theirs. No byte reaches what they planted,
# each refusal names the path, and record ends on its own within its -d
# bound. What root means still works: -o -, -o /dev/stdout in a pipeline, a
# FIFO of root's, whose reader is waited for; and record -d bounds that wait
# and the write when root's FIFO or pipe is not read.
. "$TESTS_SRCDIR/integration/lib.sh"
FIX="$TESTS_SRCDIR/fixtures/report"
need_perf system
need_workload deep_base
command -v setpriv >/dev/null 2>&1 || skip "setpriv (util-linux) not installed: cannot act as another user"
[ "$(id -u)" -eq 0 ] || skip "needs root: the paths are planted by another user for root to write"
AS_USER="setpriv --reuid=65534 --regid=65534 --clear-groups"
chmod 0755 "$TMP"
$AS_USER test -x "$SMOLDER" || skip "user nobody cannot reach $TMP"

D=2                         # record's -d
REC_BOUND_MS=$(((D + 6) * 1000)) # -d, the processing and write grace, start-up
REP_BOUND_MS=10000
SHARED="$TMP/shared"
mkdir "$SHARED" && chmod 1777 "$SHARED" || fail "cannot make the shared directory"
SECRET="$TMP/secret"
echo "root's secret" >"$SECRET" && chmod 0600 "$SECRET"
mkdir "$TMP/devs" && mknod -m 0666 "$TMP/devs/null" c 1 3 || fail "mknod failed"
failures=0
bad() { echo "FAIL: $*"; failures=$((failures + 1)); }

# attempt ARGS...: smolder as root, bounded by timeout; sets SM_RC and MS.
attempt() {
	_t0=$(date +%s%N)
	timeout -k 5 30 "$SMOLDER" "$@" >"$TMP/smolder.out" 2>"$TMP/smolder.err" </dev/null
	SM_RC=$?
	MS=$((($(date +%s%N) - _t0) / 1000000))
	echo "+ smolder $*"
	echo "  exit $SM_RC after $MS ms: $(tail -n 1 "$TMP/smolder.err")"
}

# ended NAME BOUND_MS: the last run ended on its own, in time, not by a signal.
ended() {
	if [ "$SM_RC" -eq 124 ] || [ "$SM_RC" -eq 137 ]; then
		bad "$1: did not end on its own (killed by timeout after $MS ms)"
		return 1
	fi
	[ "$SM_RC" -ge 128 ] && bad "$1: died by signal $((SM_RC - 128))"
	[ "$MS" -le "$2" ] || bad "$1: took $MS ms, over $2 ms"
	return 0
}

# refused NAME PATH BOUND_MS: a non-zero exit whose message names PATH.
refused() {
	ended "$1" "$3" || return
	[ "$SM_RC" -ne 0 ] || bad "$1: exit status 0, expected a refusal"
	grep -qF -- "$2" "$TMP/smolder.err" || bad "$1: the message does not name $2"
}

# planted CMD NAME ARGS...: for each kind of path nobody can plant, run
# smolder CMD ARGS -o PATH and check what reached it.
planted() {
	cmd=$1 name=$2
	shift 2
	bound=$REC_BOUND_MS
	[ "$cmd" = report ] && bound=$REP_BOUND_MS
	for kind in fifo fifo_read symlink device devlink directory file; do
		p="$SHARED/$name.$kind"
		case $kind in
		fifo) $AS_USER mkfifo "$p" ;;
		fifo_read)
			$AS_USER mkfifo "$p"
			$AS_USER sh -c 'exec cat "$1" >"$2"' sh "$p" "$SHARED/stolen" &
			reader=$!
			BG_PIDS="$BG_PIDS $reader"
			;;
		symlink) $AS_USER ln -s "$SECRET" "$p" ;;
		# A user cannot mknod; this stands for a device node they own
		# at a name they chose, however it got there.
		device) mknod "$p" c 1 3 && chown 65534:65534 "$p" ;;
		# A hard link to a device they may write, on the same
		# filesystem: possible where fs.protected_hardlinks is 0.
		devlink) $AS_USER ln "$TMP/devs/null" "$p" 2>/dev/null || {
			echo "  ($cmd $kind: nobody may not link a device here (fs.protected_hardlinks); skipped)"
			continue
		} ;;
		directory) $AS_USER mkdir "$p" ;;
		file) $AS_USER sh -c 'echo theirs >"$1" && ln "$1" "$2"' sh "$p" "$SHARED/$name.keep" ;;
		esac
		attempt "$cmd" "$@" -o "$p"
		case $kind in
		fifo)
			refused "$cmd -o nobody's FIFO" "$p" "$bound"
			[ -p "$p" ] || bad "$cmd -o nobody's FIFO: the FIFO was replaced"
			;;
		fifo_read)
			refused "$cmd -o nobody's FIFO with a reader" "$p" "$bound"
			sleep 0.2
			kill "$reader" 2>/dev/null
			wait "$reader" 2>/dev/null
			n=$(wc -c <"$SHARED/stolen" 2>/dev/null || echo 0)
			[ "$n" -eq 0 ] || bad "$cmd -o nobody's FIFO with a reader: $n bytes reached it"
			rm -f "$SHARED/stolen"
			;;
		symlink)
			refused "$cmd -o nobody's symlink to a root-only file" "$p" "$bound"
			[ "$(cat "$SECRET")" = "root's secret" ] || bad "$cmd: the root-only file was changed"
			[ -L "$p" ] || bad "$cmd -o nobody's symlink: the link was replaced"
			;;
		device | devlink)
			refused "$cmd -o nobody's $kind" "$p" "$bound"
			[ -c "$p" ] || bad "$cmd -o nobody's $kind: no longer a device"
			;;
		directory)
			refused "$cmd -o nobody's directory" "$p" "$bound"
			[ -d "$p" ] && [ -z "$(ls -A "$p")" ] || bad "$cmd -o nobody's directory: changed"
			;;
		file)
			ended "$cmd -o nobody's file" "$bound" && [ "$SM_RC" -eq 0 ] ||
				bad "$cmd -o nobody's file: exit $SM_RC, expected it replaced"
			[ "$(cat "$SHARED/$name.keep")" = theirs ] || bad "$cmd -o nobody's file: written in place"
			[ -f "$p" ] && [ ! -L "$p" ] && [ -s "$p" ] &&
				[ "$(stat -c %u:%a "$p")" = 0:600 ] || bad "$cmd -o nobody's file: not replaced by root's 0600 file"
			;;
		esac
	done
}

REC="record -a -F 99 -d $D -q --per-pid"
REC_ARGS=${REC#record }
# shellcheck disable=SC2086
planted record rec $REC_ARGS
planted report rep -f collapsed "$FIX/a.json" "$FIX/b.json"

# --- what root means -------------------------------------------------------
rm -f ./-
# shellcheck disable=SC2086
attempt $REC -o -
ended "record -o -" "$REC_BOUND_MS"
[ "$SM_RC" -eq 0 ] || bad "record -o -: exit $SM_RC"
[ -e ./- ] && bad "record -o -: wrote a file named '-'" && rm -f ./-
cp "$TMP/smolder.out" "$TMP/dash.json"
$CHECK validate "$TMP/dash.json" >/dev/null || bad "record -o -: standard output is not a dump"

attempt report -f collapsed -o - "$FIX/a.json" "$FIX/b.json"
[ "$SM_RC" -eq 0 ] || bad "report -o -: exit $SM_RC"
diff -q "$FIX/a_b.collapsed" "$TMP/smolder.out" >/dev/null || bad "report -o -: wrong output"

for cmd in record report; do
	if [ $cmd = record ]; then set -- $REC; else set -- report -f collapsed "$FIX/a.json" "$FIX/b.json"; fi
	{ timeout -k 5 30 "$SMOLDER" "$@" -o /dev/stdout 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc"; } |
		wc -c >"$TMP/pipe.count"
	echo "+ smolder $* -o /dev/stdout | wc -c: exit $(cat "$TMP/pipe.rc"), $(cat "$TMP/pipe.count") bytes"
	[ "$(cat "$TMP/pipe.rc")" -eq 0 ] || bad "$cmd -o /dev/stdout | wc -c: exit $(cat "$TMP/pipe.rc")"
	[ "$(cat "$TMP/pipe.count")" -gt 0 ] || bad "$cmd -o /dev/stdout | wc -c: nothing came through"

	# root's FIFO: its reader is waited for, as by any writer of a FIFO
	# (report's comes a second after it is ready to write)
	rm -f "$TMP/rootfifo" "$TMP/fifo.out"
	mkfifo -m 0600 "$TMP/rootfifo"
	late=0
	[ $cmd = report ] && late=1
	{ sleep $late; exec cat "$TMP/rootfifo" >"$TMP/fifo.out"; } &
	reader=$!
	BG_PIDS="$BG_PIDS $reader"
	attempt "$@" -o "$TMP/rootfifo"
	[ "$SM_RC" -eq 0 ] || bad "$cmd -o root's FIFO: exit $SM_RC"
	wait "$reader"
	[ -s "$TMP/fifo.out" ] || bad "$cmd -o root's FIFO: nothing came through"
	[ -p "$TMP/rootfifo" ] || bad "$cmd -o root's FIFO: replaced"
done

# A FIFO of root's that no process opens: -d ends the wait for a reader.
# shellcheck disable=SC2086
attempt $REC -o "$TMP/rootfifo"
refused "record -d $D -o root's FIFO that no process opens" "$TMP/rootfifo" "$REC_BOUND_MS"

# -d bounds the write too: root's FIFO, or the pipe of standard output, that
# is opened but not read (a one-page pipe). The dump must outgrow the page:
# a quiet host's 2 s make less than that, so a 300-frame stack runs meanwhile
# (some 10 KB of dump).
"$WORKLOADS/deep_base" 20 >/dev/null 2>&1 &
deep=$!
BG_PIDS="$BG_PIDS $deep"
# O_RDWR: a reader from the start, without waiting for the writer. It
# says when the pipe is down to a page: smolder starts only then (a
# slow start on a loaded host once let the dump into the default
# 64 KiB pipe first, and the write succeeded).
UNREAD='import fcntl, os, sys, time
fd = os.open(sys.argv[1], os.O_RDWR) if sys.argv[1] != "-" else 0
fcntl.fcntl(fd, 1031, 4096)  # F_SETPIPE_SZ: one page
open(sys.argv[2], "w").close()
time.sleep(60)'
ready() { # FILE: wait (up to 20 s) for the reader to make FILE
	_i=0
	while [ ! -e "$1" ] && [ $_i -lt 200 ]; do sleep 0.1; _i=$((_i + 1)); done
}
"$PYTHON3" -c "$UNREAD" "$TMP/rootfifo" "$TMP/ready1" &
reader=$!
BG_PIDS="$BG_PIDS $reader"
ready "$TMP/ready1"
# shellcheck disable=SC2086
attempt $REC -o "$TMP/rootfifo"
refused "record -d $D -o root's FIFO, opened and never read" "$TMP/rootfifo" "$REC_BOUND_MS"
kill "$reader" 2>/dev/null

rm -f "$TMP/pipe.rc"
_t0=$(date +%s%N)
# shellcheck disable=SC2086
{ ready "$TMP/ready2"; timeout -k 5 30 "$SMOLDER" $REC --format json 2>"$TMP/pipe.err"; echo $? >"$TMP/pipe.rc"; } |
	"$PYTHON3" -c "$UNREAD" - "$TMP/ready2" &
reader=$!
BG_PIDS="$BG_PIDS $reader"
i=0
while [ ! -s "$TMP/pipe.rc" ] && [ $i -lt 400 ]; do sleep 0.1; i=$((i + 1)); done
MS=$((($(date +%s%N) - _t0) / 1000000))
SM_RC=$(cat "$TMP/pipe.rc" 2>/dev/null || echo 124)
echo "+ smolder $REC --format json | (never read): exit $SM_RC after $MS ms: $(tail -n 1 "$TMP/pipe.err")"
ended "record -d $D into a pipe never read" "$REC_BOUND_MS" &&
	[ "$SM_RC" -ne 0 ] || bad "record -d $D into a pipe never read: exit $SM_RC, expected an error"
kill "$reader" 2>/dev/null
kill "$deep" 2>/dev/null

[ "$failures" -eq 0 ] || fail "$failures output-path check(s) failed"
echo "security_outputs: all checks passed"
