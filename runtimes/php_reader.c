/* The PHP row of the runtime table: a Zend engine binary (php, php-fpm,
 * php-cgi, libphp.so) recognised by its exports and its version read from
 * its own build id, its executor loop marked for the unwinder, and a
 * sample's PHP frames read and placed on the native execute_ex calls that
 * ran them (runtimes/php.h, runtimes/interp_place.h). */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/strtab_remap.h"
#include "profile/frame_name.h"
#include "runtimes/accountant.h"
#include "runtimes/elf_symbols.h"
#include "runtimes/php.h"
#include "runtimes/phpcmd.h"
#include "runtimes/readers.h"

/* An execute_ex call whose PHP frames the sample does not prove. */
#define UNPROVEN_NAME "[unproven]"
/* Read-only data searched for the build id at most: php's is 1-2 MiB. */
#define RODATA_MAX (64u << 20)

struct php_binary {
	uint64_t executor_globals;       /* ELF vaddr, 0 in thread-safe builds */
	uint64_t exec_start, exec_end;   /* execute_ex */
	uint32_t api;                    /* ZEND_MODULE_API_NO; 0: unknown */
	int zts;
};

enum { S_EG, S_EXECUTE_EX, S_EXECUTE, S_EG_OFFSET, S_EG_ID, S_N };
static const char *const symbol_names[S_N] = {
	[S_EG] = "executor_globals",
	[S_EXECUTE_EX] = "execute_ex",
	[S_EXECUTE] = "execute",
	[S_EG_OFFSET] = "executor_globals_offset",
	[S_EG_ID] = "executor_globals_id",
};

struct found {
	GElf_Sym sym[S_N];
};

static int wanted(void *arg, const GElf_Sym *sym, const char *name)
{
	struct found *w = arg;
	size_t k;

	if (sym->st_shndx == SHN_UNDEF || name[0] != 'e')
		return 0;
	for (k = 0; k < S_N; k++)
		if (!w->sym[k].st_value && strcmp(name, symbol_names[k]) == 0)
			w->sym[k] = *sym;
	return 0;
}

/* ZEND_MODULE_BUILD_ID ("API20220829,NTS") from .rodata. */
static void build_id(Elf *elf, struct php_binary *b)
{
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	if (elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_PROGBITS)
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!name || strcmp(name, ".rodata") != 0 || sh.sh_size > RODATA_MAX)
			continue;
		d = elf_getdata(scn, NULL);
		if (d && d->d_buf &&
		    php_layout__build_id(d->d_buf, d->d_size, &b->api, &b->zts) == 0)
			return;
	}
}

/* A binary defining the executor and its globals: the executable (php,
 * php-fpm, php-cgi) or libphp.so of a web server's module. */
static int recognise(const struct runtime_file *f, void **data)
{
	struct found w;
	struct php_binary *b;
	const GElf_Sym *loop;

	memset(&w, 0, sizeof(w));
	elf_symbols__each(f->elf, SHT_DYNSYM, wanted, &w);
	loop = w.sym[S_EXECUTE_EX].st_value ? &w.sym[S_EXECUTE_EX] : &w.sym[S_EXECUTE];
	if (!loop->st_value || !loop->st_size || GELF_ST_TYPE(loop->st_info) != STT_FUNC ||
	    (!w.sym[S_EG].st_value && !w.sym[S_EG_OFFSET].st_value && !w.sym[S_EG_ID].st_value))
		return 0;
	b = calloc(1, sizeof(*b));
	if (!b)
		return -ENOMEM;
	b->executor_globals = w.sym[S_EG].st_value;
	b->exec_start = loop->st_value;
	b->exec_end = loop->st_value + loop->st_size;
	build_id(f->elf, b);
	if (!b->executor_globals)
		b->zts = 1;
	*data = b;
	return 1;
}

static void free_data(void *data)
{
	free(data);
}

/* execute_ex keeps the frame it runs and its instruction in callee-saved
 * registers (r14, r15 in the hybrid VM of GCC builds): the unwinder keeps
 * them for each of its calls. */
static void describe_file(const void *data, uint64_t vaddr, struct unwind_module *out)
{
	const struct php_binary *b = data;

	if (vaddr > b->exec_start && vaddr <= b->exec_end)
		out->keep_regs = true;
}

struct instance {
	struct php *php;
	bool lines;
	uint32_t unproven; /* "[unproven]_[php]" */
	struct interp_stack stack;
	struct interp_sample es;
	struct interp_placed placed;
};

/* Thread-safe builds keep each thread's globals in its TLS block, and PHP
 * 5's engine is another: both refused (-ENOTSUP), never guessed. */
static int open_instance(const struct runtime_process *p, void **out)
{
	const struct php_binary *b = p->data;
	const struct php_layout *l = php_layout__by_api(b->api);
	struct instance *in;
	int err;

	if (b->zts || !l)
		return -ENOTSUP;
	in = calloc(1, sizeof(*in));
	if (!in)
		return -ENOMEM;
	in->lines = p->lines;
	err = ledger__intern_frame(p->mem.ledger, p->names, UNPROVEN_NAME, FRAME_SUFFIX_PHP,
				   &in->unproven);
	if (!err)
		err = php__open(&p->mem, b->executor_globals + p->bias, l, p->lines, p->names, &in->php);
	if (err) {
		free(in);
		return err;
	}
	*out = in;
	return 0;
}

static void close_instance(void *inst)
{
	struct instance *in = inst;

	if (!in)
		return;
	php__delete(in->php);
	free(in);
}

/* Each proven frame at the line its call's instruction register was at:
 * the frame running saves its instruction to memory only before calls
 * and helpers, so what the read found lags behind the sample. */
static void lines_at_sample(struct instance *in)
{
	struct interp_placed *pl = &in->placed;
	size_t k;

	for (k = 0; k < in->es.nev; k++) {
		struct interp_frame *f;

		if (pl->state[k] != INTERP_PROVEN || pl->proven_at[k] >= pl->n)
			continue;
		f = &pl->frames[pl->proven_at[k]];
		if (php__name_at(in->php, f->addr, pl->code_word[k], &f->name) != 0)
			continue; /* the line the read found stands */
	}
}

static int read_stack(void *inst, const struct runtime_sample *s, struct runtime_stack *out)
{
	struct instance *in = inst;
	int err;

	if (!interp_place__gather(s, &in->es))
		return 0;
	err = php__read_stack(in->php, s->now_ns, &in->stack);
	if (err)
		return err;
	interp_place(&in->stack, in->es.ev, in->es.nev, s->rooted, &in->placed);
	if (in->lines)
		lines_at_sample(in);
	interp_place__splice(&in->placed, &in->es, s->nframes, in->unproven, out);
	return 0;
}

/* php, php8.2, php-fpm8.2, php-cgi: the kernel's name says only "PHP". */
static bool labels(const char *comm)
{
	return strncmp(comm, "php", 3) == 0;
}

static int remap_names(void *inst, struct strtab_remap *r)
{
	struct instance *in = inst;

	return strtab_remap__id(r, &in->unproven) ? -ENOMEM : php__remap_names(in->php, r);
}

static void counters(const void *inst, struct runtime_counters *out)
{
	php__counters(((const struct instance *)inst)->php, out);
}

const struct runtime_reader runtime_php = {
	.name = "php",
	.recognise = recognise,
	.free_data = free_data,
	.describe_file = describe_file,
	.open = open_instance,
	.close = close_instance,
	.read_stack = read_stack,
	.labels = labels,
	.label = phpcmd__label,
	.remap_names = remap_names,
	.counters = counters,
};
