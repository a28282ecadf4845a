/* Per-binary CFI: libdw lookups decoded into compact rows, cached by pc and by row range. */
#include "config.h"

#include <dwarf.h>
#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "common/u64map.h"
#include "unwind/cfi.h"
#include "unwind/elffile.h"

/* Rows added before the keys are sorted again (a linear scan finds them). */
#define CFI_TAIL 64

/* Map values that are not row indexes: cached misses. */
#define NEG_NOFDE UINT64_MAX
#define NEG_BAD (UINT64_MAX - 1)
#define NO_ROW ((size_t)-1)

/* GNU ld, gold and lld all emit the search table as datarel|sdata4 pairs. */
#define EH_PE_omit 0xff
#define EH_PE_absptr 0x00
#define EH_PE_udata2 0x02
#define EH_PE_udata4 0x03
#define EH_PE_udata8 0x04
#define EH_PE_sdata2 0x0a
#define EH_PE_sdata4 0x0b
#define EH_PE_sdata8 0x0c
#define EH_PE_TABLE 0x3b

struct cfi {
	Dwarf_CFI *eh;  /* owned (dwarf_cfi_end) */
	Dwarf *dw;      /* owned (dwarf_end); dbg belongs to it */
	Dwarf_CFI *dbg;

	/* .eh_frame_hdr binary search table: FDE starts without extra memory */
	const uint8_t *hdr_table;
	size_t hdr_count;
	uint64_t hdr_vaddr;

	struct cfi_row *rows;
	size_t nrows, rows_cap;
	/* The rows' ranges, rows_cap long: [0, nsorted) sorted by start, then
	 * the rows added since (at most CFI_TAIL, in row order), merged in once
	 * there are CFI_TAIL of them: inserting into one sorted array moved
	 * half of it per row, which for a monolith's thousands of rows cost
	 * more than decoding them. The ranges are copied here so that searching
	 * and merging read one array in order, not rows scattered over MBs. */
	struct row_key {
		uint64_t start, end;
		uint32_t row;
	} *keys;
	size_t nsorted;
	struct u64map *pcs; /* vaddr -> row index or NEG_* */
	Dwarf_Op *ops;      /* copied expression ops */
	size_t nops, ops_cap;
	size_t last;        /* row of the previous hit, NO_ROW */
	struct cfi_stats st;
};

static size_t enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case EH_PE_absptr: case EH_PE_udata8: case EH_PE_sdata8: return 8;
	case EH_PE_udata4: case EH_PE_sdata4: return 4;
	case EH_PE_udata2: case EH_PE_sdata2: return 2;
	default: return 0;
	}
}

/* The .eh_frame_hdr bytes PT_GNU_EH_FRAME points at: the data of the
 * section that holds them, which libdw has read already (no second copy,
 * and no read of a size only the program header states). */
static Elf_Data *hdr_bytes(Elf *elf, const GElf_Phdr *ph)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;

		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_PROGBITS &&
		    sh.sh_offset == ph->p_offset && sh.sh_size == ph->p_filesz)
			return elf_rawdata(scn, NULL);
	}
	return NULL;
}

/* Finds the .eh_frame_hdr table through PT_GNU_EH_FRAME. Any surprise
 * leaves the table unused. */
static void hdr_init(struct cfi *c, Elf *elf)
{
	GElf_Ehdr ehdr;
	size_t phnum, i, p, esz;
	uint64_t count;

	if (!gelf_getehdr(elf, &ehdr) || ehdr.e_ident[EI_DATA] != ELFDATA2LSB ||
	    ehdr.e_ident[EI_CLASS] != ELFCLASS64 || elf_getphdrnum(elf, &phnum) != 0)
		return;
	for (i = 0; i < phnum && i < 4096; i++) {
		GElf_Phdr ph;
		Elf_Data *d;
		const uint8_t *b;

		if (!gelf_getphdr(elf, (int)i, &ph) || ph.p_type != PT_GNU_EH_FRAME)
			continue;
		d = hdr_bytes(elf, &ph);
		if (!d || !d->d_buf || d->d_size < 4)
			return;
		b = d->d_buf;
		if (b[0] != 1 || b[3] != EH_PE_TABLE || b[1] == EH_PE_omit || b[2] == EH_PE_omit)
			return;
		p = 4;
		esz = enc_size(b[1]);
		if (!esz || d->d_size - p < esz)
			return;
		p += esz;
		/* the count is an absolute unsigned number */
		esz = enc_size(b[2]);
		if ((b[2] & 0x70) != 0 || !esz || d->d_size - p < esz)
			return;
		count = 0;
		memcpy(&count, b + p, esz);
		p += esz;
		if (count > (d->d_size - p) / 8)
			return;
		c->hdr_table = b + p;
		c->hdr_count = (size_t)count;
		c->hdr_vaddr = ph.p_vaddr;
		return;
	}
}

static uint64_t hdr_entry(const struct cfi *c, size_t i)
{
	int32_t rel;

	memcpy(&rel, c->hdr_table + i * 8, 4);
	return c->hdr_vaddr + (uint64_t)(int64_t)rel;
}

/* Start of the .eh_frame FDE covering vaddr. Only called once libdw found
 * an .eh_frame FDE for vaddr: FDEs do not overlap, so the greatest initial
 * location <= vaddr is that FDE's. */
static uint64_t hdr_func_start(const struct cfi *c, uint64_t vaddr)
{
	size_t lo = 0, hi = c->hdr_count;

	if (!c->hdr_table || !hi || hdr_entry(c, 0) > vaddr)
		return 0;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (hdr_entry(c, mid) <= vaddr)
			lo = mid;
		else
			hi = mid;
	}
	return hdr_entry(c, lo);
}

/* CFI sections larger than this (a .debug_frame once inflated) are not
 * used: no real one comes near it, and a hostile file's sizes stay sums
 * that cannot overflow. */
#define CFI_MAX_SECTION (256ull << 20)

/* What cfi__new reads of a file, found from its section headers: the
 * first section of each name, as libdw takes it. */
struct cfi_sections {
	bool eh_frame;        /* a .eh_frame with data, not too large */
	bool debug_frame;     /* a .debug_frame (or .zdebug_frame) likewise */
	uint64_t bytes;
};

static void find_sections(Elf *elf, struct cfi_sections *cs)
{
	uint64_t eh = 0, hdr = 0, dbg = 0;
	int seen_eh = 0, seen_hdr = 0, seen_dbg = 0;
	size_t shstrndx;
	Elf_Scn *scn = NULL;

	memset(cs, 0, sizeof(*cs));
	if (elf_kind(elf) != ELF_K_ELF || elf_getshdrstrndx(elf, &shstrndx) != 0)
		return;
	while ((scn = elf_nextscn(elf, scn)) != NULL) {
		GElf_Shdr sh;
		const char *name;
		uint64_t n;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type == SHT_NOBITS || sh.sh_size == 0)
			continue;
		name = elffile__name(elf, shstrndx, &sh);
		if (strcmp(name, ".eh_frame") == 0) {
			if (seen_eh++)
				continue;
			cs->eh_frame = sh.sh_size <= CFI_MAX_SECTION;
			eh = sh.sh_size;
		} else if (strcmp(name, ".eh_frame_hdr") == 0) {
			if (!seen_hdr++)
				hdr = sh.sh_size;
		} else if (elffile__is_section(name, ".debug_frame") && !seen_dbg++) {
			n = elffile__inflated_bytes(elf, &sh, name);
			cs->debug_frame = n <= CFI_MAX_SECTION;
			dbg = n;
		}
	}
	cs->eh_frame = cs->eh_frame && hdr <= CFI_MAX_SECTION;
	if (cs->eh_frame)
		cs->bytes += eh + hdr;
	if (cs->debug_frame)
		cs->bytes += dbg;
}

uint64_t cfi__bytes(Elf *elf)
{
	struct cfi_sections cs;

	if (!elf)
		return 0;
	find_sections(elf, &cs);
	return cs.bytes;
}

/* dwarf_begin_elf reads every DWARF section it knows, whole (and inflates
 * the compressed ones): only .debug_frame is wanted here. */
static bool not_debug_frame(const char *name, const GElf_Shdr *sh, void *arg)
{
	(void)sh;
	(void)arg;
	return elffile__is_dwarf(name) && !elffile__is_section(name, ".debug_frame");
}

int cfi__new(Elf *elf, struct cfi **out)
{
	struct cfi_sections cs;
	struct cfi *c;
	int err = -ENOMEM;

	if (!elf || !out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->last = NO_ROW;
	find_sections(elf, &cs);
	/* Without a .eh_frame section libdw would find the table through
	 * PT_GNU_EH_FRAME and, not knowing its size, read the whole file. */
	if (cs.eh_frame)
		c->eh = dwarf_getcfi_elf(elf);
	if (cs.debug_frame) {
		elffile__hide(elf, not_debug_frame, NULL);
		c->dw = dwarf_begin_elf(elf, DWARF_C_READ, NULL);
		if (c->dw)
			c->dbg = dwarf_getcfi(c->dw);
	}
	if (!c->eh && !c->dbg) {
		err = -ENOENT;
		goto out_delete;
	}
	if (c->eh)
		hdr_init(c, elf);
	c->pcs = u64map__new(256);
	if (!c->pcs)
		goto out_delete;
	*out = c;
	return 0;

out_delete:
	cfi__delete(c);
	return err;
}

void cfi__delete(struct cfi *c)
{
	if (!c)
		return;
	if (c->eh)
		dwarf_cfi_end(c->eh);
	if (c->dw)
		dwarf_end(c->dw);
	u64map__delete(c->pcs);
	free(c->rows);
	free(c->keys);
	free(c->ops);
	free(c);
}

const Dwarf_Op *cfi__ops(const struct cfi *c, int32_t index)
{
	if (!c || index < 0 || (size_t)index >= c->nops)
		return NULL;
	return c->ops + index;
}

static void cache_clear(struct cfi *c)
{
	c->nrows = 0;
	c->nsorted = 0;
	c->nops = 0;
	c->last = NO_ROW;
	u64map__clear(c->pcs);
	c->st.evictions++;
}

/* The row containing vaddr: a binary search of the sorted keys, then a
 * scan of the few added since. */
static size_t range_find(const struct cfi *c, uint64_t vaddr)
{
	size_t lo = 0, hi = c->nsorted, i;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (c->keys[mid].start <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0 && vaddr < c->keys[lo - 1].end)
		return c->keys[lo - 1].row;
	for (i = c->nsorted; i < c->nrows; i++)
		if (c->keys[i].start <= vaddr && vaddr < c->keys[i].end)
			return c->keys[i].row;
	return NO_ROW;
}

/* Merges the keys added since the last merge into the sorted part. */
static void merge_tail(struct cfi *c)
{
	struct row_key tail[CFI_TAIL];
	size_t nt = c->nrows - c->nsorted, i, j, k;

	/* the tail sorted by start (insertion sort: at most CFI_TAIL) */
	for (i = 0; i < nt; i++) {
		struct row_key v = c->keys[c->nsorted + i];

		for (j = i; j > 0 && tail[j - 1].start > v.start; j--)
			tail[j] = tail[j - 1];
		tail[j] = v;
	}
	/* merged from the end: keys has room for every row */
	i = c->nsorted;
	j = nt;
	k = c->nrows;
	while (j > 0) {
		if (i > 0 && c->keys[i - 1].start > tail[j - 1].start)
			c->keys[--k] = c->keys[--i];
		else
			c->keys[--k] = tail[--j];
	}
	c->nsorted = c->nrows;
}

/* An expression rule found while decoding, copied once the row is known
 * to fit (so a cache clear never splits a row from its ops). */
struct pending {
	const Dwarf_Op *ops;
	size_t n;
	int32_t *index; /* where the pool index goes */
	uint16_t *count;
};

static int fit_i32(uint64_t v, int32_t *out)
{
	int64_t s = (int64_t)v;

	if (s < INT32_MIN || s > INT32_MAX)
		return -1;
	*out = (int32_t)s;
	return 0;
}

/* libdw's conventions (frame_register.c): nops 0 with ops == ops_mem is
 * undefined, nops 0 with ops NULL is same-value; offset rules come as
 * [call_frame_cfa, plus_uconst N], val_ forms end in DW_OP_stack_value,
 * register rules are [regx R], and expression rules are the CFI expression
 * behind a synthesized DW_OP_call_frame_cfa. */
static void decode_reg(Dwarf_Op *ops, size_t nops, struct cfi_reg_rule *r, struct pending *p)
{
	bool val;
	size_t m;

	memset(r, 0, sizeof(*r));
	if (nops == 0) {
		r->kind = ops ? CFI_REG_UNDEFINED : CFI_REG_SAME;
		return;
	}
	val = ops[nops - 1].atom == DW_OP_stack_value;
	m = nops - (val ? 1 : 0);
	r->kind = CFI_REG_UNSUPPORTED;
	if (m == 0)
		return;
	if (m <= 2 && ops[0].atom == DW_OP_call_frame_cfa &&
	    (m == 1 || ops[1].atom == DW_OP_plus_uconst)) {
		if (m == 2 && fit_i32(ops[1].number, &r->value) != 0)
			return;
		r->kind = val ? CFI_REG_VAL_OFFSET : CFI_REG_OFFSET;
		return;
	}
	if (m == 1 && !val && ops[0].atom == DW_OP_regx) {
		if (ops[0].number < UNWIND_NREGS) {
			r->kind = CFI_REG_REGISTER;
			r->reg = (uint8_t)ops[0].number;
		}
		return;
	}
	if (m > UINT16_MAX)
		return;
	r->kind = val ? CFI_REG_VAL_EXPR : CFI_REG_EXPR;
	p->ops = ops;
	p->n = m;
	p->index = &r->value;
	p->count = &r->nops;
}

/* Decodes the row of vaddr from one CFI section into *row (ops not yet
 * copied: pend/npend). 0, -ENOENT (no FDE), -EINVAL. Frees the frame. */
static int decode(Dwarf_CFI *cfi, uint64_t vaddr, struct cfi_row *row, struct pending *pend,
		  size_t *npend, Dwarf_Frame **framep)
{
	Dwarf_Frame *frame = NULL;
	Dwarf_Addr start, end;
	Dwarf_Op *ops, ops_mem[UNWIND_NREGS][3];
	size_t nops;
	bool signal = false;
	int ra, regno;

	*npend = 0;
	*framep = NULL;
	if (dwarf_cfi_addrframe(cfi, vaddr, &frame) != 0 || !frame)
		return -ENOENT;
	*framep = frame; /* the caller frees it after copying the ops */
	memset(row, 0, sizeof(*row));
	ra = dwarf_frame_info(frame, &start, &end, &signal);
	if (ra < 0 || ra >= UNWIND_NREGS)
		return -EINVAL;
	row->ra_reg = (uint8_t)ra;
	row->signal = signal;
	/* libdw's row start is wrong after DW_CFA_restore_state: it restores the
	 * start remembered with the state (e.g. the epilogue's first address),
	 * so a "row" would wrongly cover the epilogue. The end is right (the
	 * first advance past vaddr), so the rules hold on [vaddr, end). */
	if (start <= vaddr && vaddr < end) {
		row->start = vaddr;
		row->end = end;
	} else {
		row->start = vaddr;
		row->end = vaddr + 1;
	}

	if (dwarf_frame_cfa(frame, &ops, &nops) != 0 || nops == 0)
		return -EINVAL;
	if (nops == 1 && ops[0].atom == DW_OP_bregx) {
		/* libdw stores reg+offset CFA rules as one DW_OP_bregx */
		if (ops[0].number >= UNWIND_NREGS || fit_i32(ops[0].number2, &row->cfa_value) != 0)
			return -EINVAL;
		row->cfa_kind = CFI_CFA_REG_OFFSET;
		row->cfa_reg = (uint8_t)ops[0].number;
	} else {
		if (nops > UINT16_MAX)
			return -EINVAL;
		row->cfa_kind = CFI_CFA_EXPR;
		pend[*npend].ops = ops;
		pend[*npend].n = nops;
		pend[*npend].index = &row->cfa_value;
		pend[*npend].count = &row->cfa_nops;
		(*npend)++;
	}
	for (regno = 0; regno < UNWIND_NREGS; regno++) {
		struct pending p = { NULL, 0, NULL, NULL };

		if (dwarf_frame_register(frame, regno, ops_mem[regno], &ops, &nops) != 0) {
			memset(&row->regs[regno], 0, sizeof(row->regs[regno]));
			row->regs[regno].kind = CFI_REG_UNSUPPORTED;
			continue;
		}
		decode_reg(ops, nops, &row->regs[regno], &p);
		if (p.ops)
			pend[(*npend)++] = p;
	}
	return 0;
}

static int grow_rows(struct cfi *c)
{
	size_t cap = c->rows_cap ? c->rows_cap * 2 : 64;
	struct cfi_row *rows;
	struct row_key *keys;

	if (cap > CFI_CACHE_ROWS)
		cap = CFI_CACHE_ROWS;
	rows = realloc(c->rows, cap * sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	c->rows = rows;
	keys = realloc(c->keys, cap * sizeof(*keys));
	if (!keys)
		return -ENOMEM;
	c->keys = keys;
	c->rows_cap = cap;
	return 0;
}

static int reserve_ops(struct cfi *c, size_t need)
{
	size_t cap;
	Dwarf_Op *ops;

	if (c->nops + need <= c->ops_cap)
		return 0;
	cap = c->ops_cap ? c->ops_cap : 32;
	while (cap < c->nops + need)
		cap *= 2;
	if (cap > CFI_CACHE_OPS)
		cap = CFI_CACHE_OPS;
	ops = realloc(c->ops, cap * sizeof(*ops));
	if (!ops)
		return -ENOMEM;
	c->ops = ops;
	c->ops_cap = cap;
	return 0;
}

/* Makes room for one row with `nops` expression ops and one pc entry,
 * clearing the cache when a bound is reached. */
static int make_room(struct cfi *c, size_t nops)
{
	if (nops > CFI_CACHE_OPS)
		return -EINVAL;
	if (c->nrows >= CFI_CACHE_ROWS || c->nops + nops > CFI_CACHE_OPS ||
	    u64map__count(c->pcs) >= CFI_CACHE_PCS)
		cache_clear(c);
	if (c->nrows == c->rows_cap && grow_rows(c) != 0)
		return -ENOMEM;
	return reserve_ops(c, nops);
}

static int put_pc(struct cfi *c, uint64_t vaddr, uint64_t val)
{
	if (u64map__count(c->pcs) >= CFI_CACHE_PCS) {
		cache_clear(c);
		if (val < NEG_BAD)
			return 0; /* the row went with the clear: just not cached */
	}
	return u64map__put(c->pcs, vaddr, val);
}

static int neg_err(uint64_t v)
{
	return v == NEG_NOFDE ? -ENOENT : -EINVAL;
}

int cfi__lookup(struct cfi *c, uint64_t vaddr, const struct cfi_row **rowp)
{
	struct pending pend[UNWIND_NREGS + 1];
	struct cfi_row row;
	Dwarf_Frame *frame = NULL;
	size_t npend = 0, total = 0, i;
	uint64_t v;
	int err = -ENOENT;
	bool from_eh = false;

	if (!c || !rowp)
		return -EINVAL;
	c->st.lookups++;
	if (c->last != NO_ROW && c->rows[c->last].start <= vaddr && vaddr < c->rows[c->last].end) {
		c->st.hits++;
		*rowp = &c->rows[c->last];
		return 0;
	}
	if (u64map__get(c->pcs, vaddr, &v)) {
		c->st.hits++;
		if (v >= NEG_BAD)
			return neg_err(v);
		c->last = (size_t)v;
		*rowp = &c->rows[v];
		return 0;
	}
	i = range_find(c, vaddr);
	if (i != NO_ROW) {
		c->st.hits++;
		/* remember the pc itself so the next hit is one probe */
		if (put_pc(c, vaddr, i) != 0)
			return -ENOMEM;
		if (c->nrows == 0) /* cleared by put_pc */
			goto decode;
		c->last = i;
		*rowp = &c->rows[i];
		return 0;
	}

decode:
	/* .eh_frame first (what the runtime itself trusts), .debug_frame second */
	if (c->eh) {
		err = decode(c->eh, vaddr, &row, pend, &npend, &frame);
		from_eh = err != -ENOENT;
	}
	if (err == -ENOENT && c->dbg) {
		free(frame);
		frame = NULL;
		err = decode(c->dbg, vaddr, &row, pend, &npend, &frame);
	}
	if (err != 0) {
		free(frame);
		if (put_pc(c, vaddr, err == -ENOENT ? NEG_NOFDE : NEG_BAD) != 0)
			return -ENOMEM;
		return err;
	}
	for (i = 0; i < npend; i++)
		total += pend[i].n;
	err = make_room(c, total);
	if (err != 0)
		goto out_free;
	/* pend points into `row`: copy the ops first, then the row */
	for (i = 0; i < npend; i++) {
		memcpy(c->ops + c->nops, pend[i].ops, pend[i].n * sizeof(Dwarf_Op));
		*pend[i].index = (int32_t)c->nops;
		*pend[i].count = (uint16_t)pend[i].n;
		c->nops += pend[i].n;
	}
	row.func_start = from_eh ? hdr_func_start(c, vaddr) : 0;
	i = c->nrows;
	c->rows[i] = row;
	c->keys[i].start = row.start;
	c->keys[i].end = row.end;
	c->keys[i].row = (uint32_t)i;
	c->nrows++;
	if (c->nrows - c->nsorted >= CFI_TAIL)
		merge_tail(c);
	err = u64map__put(c->pcs, vaddr, i);
	if (err != 0)
		goto out_free;
	c->last = i;
	*rowp = &c->rows[i];
out_free:
	free(frame);
	return err;
}

int cfi__func_start(struct cfi *c, uint64_t vaddr, uint64_t *start)
{
	const struct cfi_row *row;
	int err = cfi__lookup(c, vaddr, &row);

	if (err == -EINVAL)
		err = -ENOENT;
	if (err != 0)
		return err;
	if (row->func_start == 0)
		return -ENOENT;
	*start = row->func_start;
	return 0;
}

void cfi__stats(const struct cfi *c, struct cfi_stats *out)
{
	if (!c) {
		memset(out, 0, sizeof(*out));
		return;
	}
	*out = c->st;
	out->entries = u64map__count(c->pcs);
}
