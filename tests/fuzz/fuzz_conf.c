/* Fuzz target: the configuration file (collector/conf.c): conf__load of the
 * input as a file, conf__validate and conf__copy of what loaded, conf__set
 * with a key and value split from the input, and the unit parsers on the
 * raw input. The error message must always be a terminated string. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "common/units.h"
#include "daemon/conf.h"
#include "tests/fuzz/fuzz.h"

static void check_err(const char *err, size_t errlen)
{
	FUZZ_CHECK(memchr(err, '\0', errlen) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[256], small[8];
	struct conf c, copy;
	uint64_t v64;
	char *s, *eq;
	int b;

	FUZZ_CHECK(conf__init(&c) == 0);
	memset(err, 'x', sizeof(err));
	memset(small, 'x', sizeof(small));
	/* alternate a normal and a tiny error buffer: messages are truncated */
	if (conf__load(&c, fuzz_tmp_write(data, size), (size & 1) ? small : err,
		       (size & 1) ? sizeof(small) : sizeof(err)) == 0) {
		memset(err, 'x', sizeof(err));
		if (conf__validate(&c, err, sizeof(err)) != 0)
			check_err(err, sizeof(err));
		if (conf__copy(&copy, &c) == 0)
			conf__free(&copy);
	} else {
		check_err((size & 1) ? small : err, (size & 1) ? sizeof(small) : sizeof(err));
	}

	/* The raw input as a C string for the unit parsers and conf__set. */
	s = malloc(size + 1);
	FUZZ_CHECK(s);
	memcpy(s, data, size);
	s[size] = '\0';
	(void)units__parse_duration(s, &v64);
	(void)units__parse_time(s, UINT64_C(1) << 62, &v64);
	(void)units__parse_size(s, &v64);
	(void)units__parse_bool(s, &b);
	eq = strchr(s, '=');
	if (eq) {
		*eq = '\0';
		memset(err, 'x', sizeof(err));
		if (conf__set(&c, s, eq + 1, err, sizeof(err)) != 0)
			check_err(err, sizeof(err));
	}
	free(s);
	conf__free(&c);
	return 0;
}
