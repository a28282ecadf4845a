#!/bin/sh
# php.sh on a thread-safe (ZTS) PHP CLI: its executor globals are each
# thread's, in its TLS, and smolder reads the frames from the VM's frame
# register instead (runtimes/php_reader.c): the same chains, callbacks,
# lines and depths, the same floors. No FPM or JIT in that build.
# Debian ships no ZTS PHP: tests/build-php-zts.sh builds one from Debian's
# source (.ci/run does, into /opt/php-zts); SMOLDER_PHP_ZTS names another.
ZTS=${SMOLDER_PHP_ZTS:-/opt/php-zts/bin/php}
if [ ! -x "$ZTS" ]; then
	echo "SKIP: no thread-safe PHP at $ZTS (tests/build-php-zts.sh /opt/php-zts builds one)"
	exit 77
fi
if ! "$ZTS" -r 'exit(PHP_ZTS ? 0 : 1);'; then
	echo "FAIL: $ZTS is not a thread-safe build"
	exit 1
fi
SMOLDER_TEST_PHP=$ZTS SMOLDER_TEST_PHP_FPM=/nonexistent SMOLDER_TEST_PHP_TAG=php_zts \
	exec "$TESTS_SRCDIR/integration/php.sh"
