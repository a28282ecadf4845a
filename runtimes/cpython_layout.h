/* Where CPython keeps what a profiler reads, per minor version: byte
 * offsets of the fields of its interpreter, thread and frame states, code
 * objects and strings on x86-64. 3.13 publishes its own offsets in
 * _PyRuntime (_Py_DebugOffsets) and they are taken from there; 2.7 and
 * 3.6-3.12 come from a table whose every number names the header and field
 * it is (runtimes/cpython_layout.c). */
#ifndef SMOLDER_RUNTIMES_CPYTHON_LAYOUT_H
#define SMOLDER_RUNTIMES_CPYTHON_LAYOUT_H
#include <stddef.h>
#include <stdint.h>

/* How the frames of a thread are kept. */
enum cpython_frames {
	CPYTHON_FRAME_OBJECTS,  /* 2.7-3.10: PyFrameObject, one native eval
	                           call each */
	CPYTHON_FRAME_ENTRY,    /* 3.11: _PyInterpreterFrame; is_entry marks the
	                           first frame of a native eval call */
	CPYTHON_FRAME_OWNER,    /* 3.12+: a frame owned by the C stack is the
	                           shim each native eval call pushes */
};

#define CPYTHON_OWNED_BY_CSTACK 3 /* Include/internal/pycore_frame.h */

/* Where a frame says which instruction it runs, and in which unit. */
enum cpython_instr {
	CPYTHON_LASTI_BYTES,  /* 2.7-3.9: int f_lasti, a byte offset */
	CPYTHON_LASTI_UNITS,  /* 3.10: int f_lasti, in 2-byte instructions */
	CPYTHON_PREV_INSTR,   /* 3.11, 3.12: prev_instr, a pointer to the
	                         instruction running or last run */
	CPYTHON_INSTR_PTR,    /* 3.13: instr_ptr, likewise */
};

struct cpython_layout {
	unsigned major, minor;
	enum cpython_frames frames;
	/* _PyRuntimeState.interpreters.head (3.7+) */
	uint32_t runtime_interp_head;
	/* PyInterpreterState */
	uint32_t interp_tstate_head;
	/* PyThreadState */
	uint32_t tstate_next, tstate_interp;
	uint32_t tstate_frame;     /* frame (<= 3.10), cframe (3.11, 3.12),
	                              current_frame (3.13) */
	int32_t cframe_current;    /* _PyCFrame.current_frame; -1: no cframe */
	uint32_t tstate_datastack; /* 3.11+: datastack_chunk, followed by
	                              datastack_top and datastack_limit; 0 (a
	                              PyThreadState's prev): not read */
	uint32_t tstate_thread_id; /* pthread_self() of the thread */
	int32_t tstate_native_id;  /* its TID (3.11+); -1: not recorded */
	/* the frame */
	uint32_t frame_back;       /* f_back, previous */
	uint32_t frame_code;       /* f_code, f_executable */
	int32_t frame_entry;       /* 3.11 is_entry; -1 */
	int32_t frame_owner;       /* 3.12+ owner; -1 */
	uint32_t frame_instr;      /* f_lasti, prev_instr, instr_ptr */
	enum cpython_instr instr;
	uint32_t frame_size;       /* bytes read of a frame */
	/* PyCodeObject */
	uint32_t code_name, code_filename;
	int32_t code_qualname;     /* -1: none (before 3.11) */
	uint32_t code_firstlineno;
	uint32_t code_bytecode;    /* co_code (a bytes object) before 3.11;
	                              co_code_adaptive, inline, from 3.11 */
	uint32_t code_linetable;   /* co_lnotab (2.7-3.9), co_linetable: a
	                              bytes object */
	uint32_t code_size;        /* bytes read of a code object's head */
	/* strings: PyStringObject (2.7) or PyASCIIObject/PyCompactUnicodeObject */
	int py2_str;
	uint32_t str_size;         /* ob_size / length */
	uint32_t str_data;         /* 2.7: ob_sval; 3: sizeof(PyASCIIObject) */
	uint32_t str_compact_data; /* 3: sizeof(PyCompactUnicodeObject) */
	uint32_t str_state;
	uint32_t bytes_data;       /* PyBytesObject.ob_sval */
};

/* The table's layout of major.minor; NULL when the version is not known. */
const struct cpython_layout *cpython_layout__table(unsigned major, unsigned minor);

/* _Py_DebugOffsets as 3.13 lays it out at the start of _PyRuntime: its
 * bytes (at least CPYTHON_DEBUG_OFFSETS_SIZE), checked (cookie, version
 * 3.13, not free-threaded, every offset within its structure's size) and
 * turned into a layout. Returns 0, -EPROTO for what is no such table or
 * not 3.13, -ERANGE for an offset out of bounds. */
#define CPYTHON_DEBUG_OFFSETS_SIZE 584
int cpython_layout__from_debug_offsets(const uint8_t *b, size_t len, struct cpython_layout *out);

/* A version from a binary's file name: "libpython3.11.so.1.0",
 * "libpython3.6m.so", "python2.7", "python3.13d". Returns 0 with
 * major/minor, or -ENOENT. */
int cpython_layout__version_from_name(const char *path, unsigned *major, unsigned *minor);

#endif
