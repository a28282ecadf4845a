/* CPython's structure offsets per minor version (x86-64, default build:
 * no Py_TRACE_REFS, no free threading). Each number is the offset of the
 * named field in the named header of that version's source, as the
 * compiler lays it out (checked with `ptype /o` against the pyenv builds of
 * 2.7.18, 3.6.15, 3.7.16, 3.8.18, 3.9.18, 3.10.13, 3.11.7, 3.12.1). Fields
 * CPython moved between patch releases of one minor version are none of
 * these: the structures read are the ones debuggers and profilers rely on. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/cpython_layout.h"

/* Strings, all 3.x up to 3.11: Include/cpython/unicodeobject.h
 * PyASCIIObject { ob_base 0, length 16, hash 24, state 32, wstr 40 } = 48,
 * PyCompactUnicodeObject { _base, utf8_length 48, utf8 56, wstr_length 64 }
 * = 72. 3.12 dropped wstr: 40 and 56. Include/bytesobject.h:
 * PyBytesObject { ob_base 0 (ob_size 16), ob_shash 24, ob_sval 32 }. */
#define STR3_TO_311 .str_size = 16, .str_data = 48, .str_compact_data = 72, .str_state = 32, .bytes_data = 32
#define STR3_FROM_312 .str_size = 16, .str_data = 40, .str_compact_data = 56, .str_state = 32, .bytes_data = 32

static const struct cpython_layout table[] = {
	{
		/* 2.7: Include/pystate.h PyInterpreterState { next 0, tstate_head 8 },
		 * PyThreadState { next 0, interp 8, frame 16, ..., thread_id 144 };
		 * Include/frameobject.h PyFrameObject { ob_base 0 (ob_size 16),
		 * f_back 24, f_code 32, ..., f_lasti 120, f_lineno 124 };
		 * f_lasti is a byte offset until 3.9, an instruction index in
		 * 3.10; 3.11+ frames point at the instruction (prev_instr 56).
		 * Include/code.h PyCodeObject { ..., co_code 32, ..., co_filename 80,
		 * co_name 88, co_firstlineno 96, co_lnotab 104 };
		 * Include/stringobject.h PyStringObject { ob_size 16, ob_shash 24,
		 * ob_sstate 32, ob_sval 36 }. */
		.major = 2, .minor = 7, .frames = CPYTHON_FRAME_OBJECTS,
		.interp_tstate_head = 8,
		.tstate_next = 0, .tstate_interp = 8, .tstate_frame = 16, .cframe_current = -1,
		.tstate_thread_id = 144, .tstate_native_id = -1,
		.frame_back = 24, .frame_code = 32, .frame_entry = -1, .frame_owner = -1,
		.frame_instr = 120, .instr = CPYTHON_LASTI_BYTES, .frame_size = 128,
		.code_name = 88, .code_filename = 80, .code_qualname = -1, .code_firstlineno = 96,
		.code_linetable = 104, .code_bytecode = 32, .code_size = 112,
		.py2_str = 1, .str_size = 16, .str_data = 36, .bytes_data = 36,
	},
	{
		/* 3.6: Include/pystate.h PyInterpreterState { next 0, tstate_head 8 },
		 * PyThreadState { prev 0, next 8, interp 16, frame 24, ...,
		 * thread_id 152 }; Include/frameobject.h as 2.7 (f_back 24,
		 * f_code 32); Include/code.h PyCodeObject { ..., co_firstlineno 36,
		 * co_code 40, ..., co_filename 96, co_name 104, co_lnotab 112 }. */
		.major = 3, .minor = 6, .frames = CPYTHON_FRAME_OBJECTS,
		.interp_tstate_head = 8,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 24, .cframe_current = -1,
		.tstate_thread_id = 152, .tstate_native_id = -1,
		.frame_back = 24, .frame_code = 32, .frame_entry = -1, .frame_owner = -1,
		.frame_instr = 120, .instr = CPYTHON_LASTI_BYTES, .frame_size = 128,
		.code_name = 104, .code_filename = 96, .code_qualname = -1, .code_firstlineno = 36,
		.code_linetable = 112, .code_bytecode = 40, .code_size = 120,
		STR3_TO_311,
	},
	{
		/* 3.7: Include/internal/pystate.h _PyRuntimeState { ...,
		 * interpreters.head 24 }; Include/pystate.h PyThreadState { ...,
		 * frame 24, ..., thread_id 176 }; frame and code as 3.6. */
		.major = 3, .minor = 7, .frames = CPYTHON_FRAME_OBJECTS,
		.runtime_interp_head = 24, .interp_tstate_head = 8,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 24, .cframe_current = -1,
		.tstate_thread_id = 176, .tstate_native_id = -1,
		.frame_back = 24, .frame_code = 32, .frame_entry = -1, .frame_owner = -1,
		.frame_instr = 104, .instr = CPYTHON_LASTI_BYTES, .frame_size = 112,
		.code_name = 104, .code_filename = 96, .code_qualname = -1, .code_firstlineno = 36,
		.code_linetable = 112, .code_bytecode = 40, .code_size = 120,
		STR3_TO_311,
	},
	{
		/* 3.8: Include/internal/pycore_pystate.h _PyRuntimeState {
		 * interpreters.head 32 }; Include/cpython/pystate.h PyThreadState
		 * { frame 24, thread_id 176 }; Include/cpython/code.h PyCodeObject
		 * gained co_posonlyargcount: { co_firstlineno 40, co_code 48,
		 * co_filename 104, co_name 112, co_lnotab 120 }. */
		.major = 3, .minor = 8, .frames = CPYTHON_FRAME_OBJECTS,
		.runtime_interp_head = 32, .interp_tstate_head = 8,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 24, .cframe_current = -1,
		.tstate_thread_id = 176, .tstate_native_id = -1,
		.frame_back = 24, .frame_code = 32, .frame_entry = -1, .frame_owner = -1,
		.frame_instr = 104, .instr = CPYTHON_LASTI_BYTES, .frame_size = 112,
		.code_name = 112, .code_filename = 104, .code_qualname = -1, .code_firstlineno = 40,
		.code_linetable = 120, .code_bytecode = 48, .code_size = 128,
		STR3_TO_311,
	},
	{
		/* 3.9: as 3.8 (Include/internal/pycore_runtime.h for
		 * _PyRuntimeState, interpreters.head 32). */
		.major = 3, .minor = 9, .frames = CPYTHON_FRAME_OBJECTS,
		.runtime_interp_head = 32, .interp_tstate_head = 8,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 24, .cframe_current = -1,
		.tstate_thread_id = 176, .tstate_native_id = -1,
		.frame_back = 24, .frame_code = 32, .frame_entry = -1, .frame_owner = -1,
		.frame_instr = 104, .instr = CPYTHON_LASTI_BYTES, .frame_size = 112,
		.code_name = 112, .code_filename = 104, .code_qualname = -1, .code_firstlineno = 40,
		.code_linetable = 120, .code_bytecode = 48, .code_size = 128,
		STR3_TO_311,
	},
	{
		/* 3.10: as 3.9; PyThreadState gained cframe (48) but still keeps
		 * frame 24; co_linetable replaces co_lnotab at 120. */
		.major = 3, .minor = 10, .frames = CPYTHON_FRAME_OBJECTS,
		.runtime_interp_head = 32, .interp_tstate_head = 8,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 24, .cframe_current = -1,
		.tstate_thread_id = 176, .tstate_native_id = -1,
		.frame_back = 24, .frame_code = 32, .frame_entry = -1, .frame_owner = -1,
		.frame_instr = 96, .instr = CPYTHON_LASTI_UNITS, .frame_size = 104,
		.code_name = 112, .code_filename = 104, .code_qualname = -1, .code_firstlineno = 40,
		.code_linetable = 120, .code_bytecode = 48, .code_size = 128,
		STR3_TO_311,
	},
	{
		/* 3.11: Include/internal/pycore_runtime.h _PyRuntimeState {
		 * interpreters.head 40 }; Include/internal/pycore_interp.h
		 * PyInterpreterState { next 0, threads.head 16 };
		 * Include/cpython/pystate.h PyThreadState { next 8, cframe 56,
		 * thread_id 152, native_thread_id 160, datastack_chunk 296,
		 * datastack_top 304, datastack_limit 312 }, _PyCFrame {
		 * current_frame 8 }; Include/internal/pycore_frame.h
		 * _PyInterpreterFrame { f_code 32, previous 48, prev_instr 56,
		 * is_entry 68 }; Include/cpython/code.h PyCodeObject {
		 * co_firstlineno 72, co_filename 112, co_name 120, co_qualname 128,
		 * co_linetable 136, co_code_adaptive 184 }. */
		.major = 3, .minor = 11, .frames = CPYTHON_FRAME_ENTRY,
		.runtime_interp_head = 40, .interp_tstate_head = 16,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 56, .cframe_current = 8,
		.tstate_datastack = 296,
		.tstate_thread_id = 152, .tstate_native_id = 160,
		.frame_back = 48, .frame_code = 32, .frame_entry = 68, .frame_owner = -1,
		.frame_instr = 56, .instr = CPYTHON_PREV_INSTR, .frame_size = 72,
		.code_name = 120, .code_filename = 112, .code_qualname = 128, .code_firstlineno = 72,
		.code_linetable = 136, .code_bytecode = 184, .code_size = 144,
		STR3_TO_311,
	},
	{
		/* 3.12: _PyRuntimeState { interpreters.head 40 };
		 * PyInterpreterState { threads.head 72 }; PyThreadState { next 8,
		 * cframe 56, thread_id 136, native_thread_id 144, datastack_chunk
		 * 232, datastack_top 240, datastack_limit 248 }, _PyCFrame {
		 * current_frame 0 }; _PyInterpreterFrame { f_code 0, previous 8,
		 * prev_instr 56, owner 70 }; PyCodeObject { co_firstlineno 68,
		 * co_filename 112, co_name 120, co_qualname 128, co_linetable 136,
		 * co_code_adaptive 192 }. */
		.major = 3, .minor = 12, .frames = CPYTHON_FRAME_OWNER,
		.runtime_interp_head = 40, .interp_tstate_head = 72,
		.tstate_next = 8, .tstate_interp = 16, .tstate_frame = 56, .cframe_current = 0,
		.tstate_datastack = 232,
		.tstate_thread_id = 136, .tstate_native_id = 144,
		.frame_back = 8, .frame_code = 0, .frame_entry = -1, .frame_owner = 70,
		.frame_instr = 56, .instr = CPYTHON_PREV_INSTR, .frame_size = 72,
		.code_name = 120, .code_filename = 112, .code_qualname = 128, .code_firstlineno = 68,
		.code_linetable = 136, .code_bytecode = 192, .code_size = 144,
		STR3_FROM_312,
	},
};

const struct cpython_layout *cpython_layout__table(unsigned major, unsigned minor)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].major == major && table[i].minor == minor)
			return &table[i];
	return NULL;
}

/* 3.13's Include/internal/pycore_debug_offsets.h: _Py_DebugOffsets is
 * { cookie[8] "xdebugpy", version (PY_VERSION_HEX), free_threaded, then
 * one struct per kind of object, each starting with its size: runtime_state
 * 24 { size, finalizing, interpreters_head }, interpreter_state 48 { size,
 * id, next, threads_head, ... }, thread_state 152 { size, prev, next,
 * interp, current_frame, thread_id, native_thread_id, datastack_chunk,
 * status }, interpreter_frame 224 { size, previous, executable, instr_ptr,
 * localsplus, owner }, code_object 272 { size, filename, name, qualname,
 * linetable, firstlineno, argcount, localsplusnames, localspluskinds,
 * co_code_adaptive }, pyobject 352 { size, ob_type }, ..., bytes_object
 * 512 { size, ob_size, ob_sval }, unicode_object 536 { size, state,
 * length, asciiobject_size } }. The layout of this table is 3.13's own
 * (3.14 changes it): only 3.13 is accepted. */
#define DO_VERSION 8
#define DO_FREE_THREADED 16
#define DO_RUNTIME 24
#define DO_INTERP 48
#define DO_TSTATE 152
#define DO_FRAME 224
#define DO_CODE 272
#define DO_BYTES 512
#define DO_UNICODE 536

static uint64_t u64_at(const uint8_t *b, size_t off)
{
	uint64_t v;

	memcpy(&v, b + off, sizeof(v));
	return v;
}

/* The field at byte off of a structure described at sect: its offset,
 * which must leave `width` bytes inside the structure's stated size. */
static int field(const uint8_t *b, size_t sect, size_t off, unsigned width, uint32_t *out)
{
	uint64_t size = u64_at(b, sect), v = u64_at(b, sect + off);

	if (size > (1u << 20) || v > size || size - v < width)
		return -ERANGE;
	*out = (uint32_t)v;
	return 0;
}

int cpython_layout__from_debug_offsets(const uint8_t *b, size_t len, struct cpython_layout *out)
{
	struct cpython_layout l;
	uint32_t v = 0;
	uint64_t version;
	int err = 0;

	if (len < CPYTHON_DEBUG_OFFSETS_SIZE || memcmp(b, "xdebugpy", 8) != 0)
		return -EPROTO;
	version = u64_at(b, DO_VERSION);
	if ((version >> 16) != 0x030d || u64_at(b, DO_FREE_THREADED) != 0)
		return -EPROTO;
	memset(&l, 0, sizeof(l));
	l.major = 3;
	l.minor = 13;
	l.frames = CPYTHON_FRAME_OWNER;
	l.cframe_current = -1;
	l.frame_entry = -1;
	err |= field(b, DO_RUNTIME, 16, 8, &l.runtime_interp_head);
	err |= field(b, DO_INTERP, 24, 8, &l.interp_tstate_head);
	err |= field(b, DO_TSTATE, 16, 8, &l.tstate_next);
	err |= field(b, DO_TSTATE, 24, 8, &l.tstate_interp);
	err |= field(b, DO_TSTATE, 32, 8, &l.tstate_frame);
	err |= field(b, DO_TSTATE, 40, 8, &l.tstate_thread_id);
	err |= field(b, DO_TSTATE, 48, 8, &v);
	l.tstate_native_id = (int32_t)v;
	/* datastack_top and _limit are not published: they follow
	 * datastack_chunk in PyThreadState as in 3.11 and 3.12 */
	err |= field(b, DO_TSTATE, 56, 24, &l.tstate_datastack);
	err |= field(b, DO_FRAME, 8, 8, &l.frame_back);
	err |= field(b, DO_FRAME, 16, 8, &l.frame_code);
	err |= field(b, DO_FRAME, 40, 1, &v);
	l.frame_owner = (int32_t)v;
	err |= field(b, DO_FRAME, 24, 8, &l.frame_instr);
	l.instr = CPYTHON_INSTR_PTR;
	err |= field(b, DO_CODE, 32, 8, &l.code_linetable);
	err |= field(b, DO_CODE, 8, 8, &l.code_filename);
	err |= field(b, DO_CODE, 16, 8, &l.code_name);
	err |= field(b, DO_CODE, 24, 8, &v);
	l.code_qualname = (int32_t)v;
	err |= field(b, DO_CODE, 40, 4, &l.code_firstlineno);
	err |= field(b, DO_CODE, 72, 0, &l.code_bytecode);
	err |= field(b, DO_BYTES, 16, 0, &l.bytes_data);
	err |= field(b, DO_UNICODE, 16, 8, &l.str_size);
	err |= field(b, DO_UNICODE, 8, 4, &l.str_state);
	err |= field(b, DO_UNICODE, 24, 0, &l.str_data);
	if (err)
		return -ERANGE;
	/* PyCompactUnicodeObject adds utf8_length and utf8 to PyASCIIObject */
	l.str_compact_data = l.str_data + 16;
	l.frame_size = (uint32_t)(l.frame_owner + 1);
	if (l.frame_back + 8 > l.frame_size)
		l.frame_size = l.frame_back + 8;
	if (l.frame_code + 8 > l.frame_size)
		l.frame_size = l.frame_code + 8;
	if (l.frame_instr + 8 > l.frame_size)
		l.frame_size = l.frame_instr + 8;
	l.code_size = l.code_name;
	if (l.code_filename > l.code_size)
		l.code_size = l.code_filename;
	if ((uint32_t)l.code_qualname > l.code_size)
		l.code_size = (uint32_t)l.code_qualname;
	if (l.code_firstlineno > l.code_size)
		l.code_size = l.code_firstlineno;
	if (l.code_linetable > l.code_size)
		l.code_size = l.code_linetable;
	l.code_size += 8;
	if (l.code_size > 4096 || l.frame_size > 4096)
		return -ERANGE;
	*out = l;
	return 0;
}

int cpython_layout__version_from_name(const char *path, unsigned *major, unsigned *minor)
{
	const char *base = strrchr(path, '/'), *p;
	char *end;
	unsigned long ma, mi;

	base = base ? base + 1 : path;
	if (strncmp(base, "libpython", 9) == 0)
		p = base + 9;
	else if (strncmp(base, "python", 6) == 0)
		p = base + 6;
	else
		return -ENOENT;
	if (*p < '2' || *p > '3' || p[1] != '.')
		return -ENOENT;
	ma = (unsigned long)(*p - '0');
	mi = strtoul(p + 2, &end, 10);
	if (end == p + 2 || mi > 99)
		return -ENOENT;
	/* what may follow: an ABI flag (m, d, u, t), ".so", or nothing */
	while (*end == 'm' || *end == 'd' || *end == 'u' || *end == 't')
		end++;
	if (*end != 0 && *end != '.')
		return -ENOENT;
	*major = (unsigned)ma;
	*minor = (unsigned)mi;
	return 0;
}
