/* Runs a fuzz target's LLVMFuzzerTestOneInput over every file of the corpus
 * directories (or files) given as arguments, or of the corpus compiled in as
 * FUZZ_CORPUS: this is how `make check` replays the committed corpora with
 * the ordinary compiler, no libFuzzer needed. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tests/fuzz/fuzz.h"

#define REPLAY_MAX_FILE (64u << 20)

static int run_file(const char *path)
{
	struct stat st;
	uint8_t *buf;
	size_t len = 0;
	int fd;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || (uint64_t)st.st_size > REPLAY_MAX_FILE) {
		close(fd);
		return 0;
	}
	/* At least one byte so that an empty input is a valid pointer. */
	buf = malloc((size_t)st.st_size + 1);
	if (!buf) {
		close(fd);
		return -1;
	}
	while (len < (size_t)st.st_size) {
		ssize_t r = read(fd, buf + len, (size_t)st.st_size - len);

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	/* Exactly len bytes, like libFuzzer, so over-reads are caught by ASan builds. */
	{
		uint8_t *exact = malloc(len ? len : 1);

		if (!exact) {
			free(buf);
			return -1;
		}
		memcpy(exact, buf, len);
		free(buf);
		LLVMFuzzerTestOneInput(exact, len);
		free(exact);
	}
	return 1;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int run_path(const char *path, size_t *count)
{
	struct stat st;
	struct dirent *de;
	char **names = NULL;
	size_t n = 0, cap = 0, i;
	int err = 0;
	DIR *d;

	if (stat(path, &st) < 0) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		int r = run_file(path);

		if (r > 0)
			(*count)++;
		return r < 0 ? -1 : 0;
	}
	d = opendir(path);
	if (!d) {
		fprintf(stderr, "replay: %s: %s\n", path, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (n == cap) {
			char **nn = realloc(names, (cap ? cap * 2 : 64) * sizeof(*nn));

			if (!nn) {
				err = -1;
				break;
			}
			names = nn;
			cap = cap ? cap * 2 : 64;
		}
		names[n] = strdup(de->d_name);
		if (!names[n]) {
			err = -1;
			break;
		}
		n++;
	}
	closedir(d);
	/* Sorted: a failing input is then easy to name and reproduce. */
	if (n > 1)
		qsort(names, n, sizeof(*names), cmp_names);
	for (i = 0; i < n && !err; i++) {
		size_t plen = strlen(path) + 1 + strlen(names[i]) + 1;
		char *full = malloc(plen);
		int r;

		if (!full) {
			err = -1;
			break;
		}
		snprintf(full, plen, "%s/%s", path, names[i]);
		r = run_file(full);
		free(full);
		if (r < 0)
			err = -1;
		else if (r > 0)
			(*count)++;
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return err;
}

int main(int argc, char **argv)
{
	size_t count = 0;
	int i, err = 0;

	if (argc < 2) {
#ifdef FUZZ_CORPUS
		err = run_path(FUZZ_CORPUS, &count);
		printf("%s: %zu inputs replayed from %s\n", argv[0], count, FUZZ_CORPUS);
#else
		fprintf(stderr, "usage: %s CORPUS_DIR_OR_FILE...\n", argv[0]);
		return 2;
#endif
	} else {
		for (i = 1; i < argc; i++)
			if (run_path(argv[i], &count) < 0)
				err = -1;
		printf("%s: %zu inputs replayed\n", argv[0], count);
	}
	/* An empty corpus means the test replays nothing: make that a failure. */
	if (!err && count == 0) {
		fprintf(stderr, "replay: no inputs found\n");
		return 1;
	}
	return err ? 1 : 0;
}
