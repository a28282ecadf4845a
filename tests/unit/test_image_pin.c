/* collector/image_pin.c: a pin reads the image it was opened on and no
 * other; an exec since says so. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "collector/image_pin.h"
#include "collector/procmaps.h"

#include "exec_child.h"

/* The mapping of this test's executable that holds main's code. */
struct self_map {
	uint64_t start, pgoff, ino;
	char path[4096];
};

static int find_text(void *ctx, const struct procmaps_entry *e)
{
	struct self_map *m = ctx;
	uint64_t pc = (uint64_t)(uintptr_t)&find_text;

	if (pc < e->start || pc >= e->end)
		return 0;
	m->start = e->start;
	m->pgoff = e->pgoff;
	m->ino = e->ino;
	snprintf(m->path, sizeof(m->path), "%.*s", (int)e->path_len, e->path);
	return 1;
}

/* A child of this image, pinned at the mapping m of this executable. */
static pid_t pinned_child(struct self_map *m, struct image_pin *pin, int *tell)
{
	pid_t pid;

	cr_assert_eq(procmaps__read(getpid(), find_text, m, NULL), 1);
	pid = exec_child__start(0, tell);
	cr_assert_eq(image_pin__open(pin, pid, m->start, m->pgoff, m->ino, m->path), 0);
	cr_assert(image_pin__same(pin), "the child runs the image it was pinned on");
	return pid;
}

Test(image_pin, an_exec_unpins)
{
	struct self_map m;
	struct image_pin pin = IMAGE_PIN_INIT;
	int tell;
	pid_t pid = pinned_child(&m, &pin, &tell);

	exec_child__exec(pid, tell);
	cr_assert_not(image_pin__same(&pin), "after exec the pin reads nothing");
	image_pin__close(&pin);
	/* the new image does not map this file there */
	cr_assert_eq(image_pin__open(&pin, pid, m.start, m.pgoff, m.ino, m.path), -ESTALE);
	cr_assert_eq(pin.fd, -1);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(tell);
}

Test(image_pin, a_pin_is_refused_when_the_maps_disagree)
{
	struct self_map m;
	struct image_pin pin = IMAGE_PIN_INIT;

	cr_assert_eq(procmaps__read(getpid(), find_text, &m, NULL), 1);
	cr_assert_eq(image_pin__open(&pin, getpid(), m.start, m.pgoff + 4096, m.ino, m.path), -ESTALE,
		     "another file offset");
	cr_assert_eq(image_pin__open(&pin, getpid(), m.start, m.pgoff, m.ino + 1, m.path), -ESTALE,
		     "another file");
	cr_assert_eq(image_pin__open(&pin, getpid(), m.start, m.pgoff, 0, "/usr/bin/python3"), -ESTALE,
		     "another path, when the inode is not known");
	cr_assert_eq(image_pin__open(&pin, getpid(), m.start, m.pgoff, 0, m.path), 0);
	cr_assert(image_pin__same(&pin));
	image_pin__close(&pin);
	cr_assert_not(image_pin__same(&pin), "a closed pin pins nothing");
}

Test(image_pin, an_exit_unpins)
{
	struct self_map m;
	struct image_pin pin = IMAGE_PIN_INIT;
	int tell;
	pid_t pid = pinned_child(&m, &pin, &tell);

	close(tell); /* the child exits without exec */
	waitpid(pid, NULL, 0);
	cr_assert_not(image_pin__same(&pin));
	image_pin__close(&pin);
}
