/* How the V8 embedded in a node binary lays out its frames and objects,
 * from the postmortem metadata the binary exports: node builds V8 with
 * gen-postmortem-metadata.py, which emits one `int v8dbg_NAME` per fact
 * (frame pointer offsets, instance types, field offsets, tag masks) into
 * .dynsym, for debuggers reading a core file. The facts are constants of
 * the file, so they are read once per binary, from the file, never from a
 * process.
 *
 * The script finds fields by scanning V8's sources, and some versions lost
 * a field or renamed its type suffix (Object -> Tagged_Object_): each fact
 * is looked up under every name it had, and the few the metadata of some
 * versions lacks are derived from neighbours the way V8's own layout
 * places them (each derivation names the versions it is for). Everything
 * is validated: tags that are not V8's 64-bit scheme without pointer
 * compression (what node ships), offsets outside an object's first KiB,
 * frame slots that are not below the frame pointer, make the layout
 * unusable (-EPROTO), never guessed.
 *
 * Covered: node 16 to 22 (V8 9.4 to 12.4), checked against the metadata of
 * node 16.20.2, 20.20.2 and 22.23.3. Thread-safe (no state). */
#ifndef SMOLDER_RUNTIMES_V8_LAYOUT_H
#define SMOLDER_RUNTIMES_V8_LAYOUT_H
#include <libelf.h>
#include <stddef.h>
#include <stdint.h>

/* Frame types we name when V8 marks a frame with one (anything else is
 * "other"); the values differ between versions and come from the file. */
enum v8_frame_kind {
	V8_FRAME_OTHER = 0,
	V8_FRAME_ENTRY,       /* JSEntry: native code calling into JS */
	V8_FRAME_EXIT,        /* a call out to C++ (CEntry, API callbacks) */
	V8_FRAME_STUB,        /* a builtin or stub with a frame of its own */
	V8_FRAME_REGEXP,      /* compiled regular expression code */
	V8_FRAME_WASM,        /* WebAssembly */
	V8_FRAME_INTERNAL,    /* V8's own trampolines (construct, internal) */
	V8_NFRAME_KINDS
};
#define V8_MAX_FRAME_TYPES 64
/* Bytecodes of a version at most (V8 11.3 has 198). */
#define V8_MAX_BYTECODES 512

struct v8_layout {
	unsigned major, minor, build;  /* V8's version, from the binary */

	/* slots of a frame, in bytes from its frame pointer */
	int fp_marker;         /* the context, or the frame type of a typed frame */
	int fp_function;       /* the JSFunction of a JavaScript frame */
	int fp_bytecode_offset;
	int fp_bytecode_array; /* an interpreted (or baseline) frame's BytecodeArray */

	/* instance types */
	uint16_t t_function_first, t_function_last; /* JSFunction and its subclasses */
	uint16_t t_sfi, t_script, t_scope_info, t_first_nonstring, t_fixed_array;
	uint16_t t_code, t_byte_array, t_trusted_byte_array, t_weak_fixed_array;
	uint16_t t_trusted_fixed_array, t_protected_fixed_array;

	/* string representations and encodings (of the instance type) */
	uint16_t str_repr_mask, str_seq, str_cons, str_thin, str_sliced;
	uint16_t str_enc_mask, str_one_byte;

	/* field offsets, bytes from an object's start (its untagged address) */
	uint16_t map_instance_type;
	uint16_t fn_shared, fn_code;
	uint16_t sfi_name_or_scope_info, sfi_script;
	uint16_t script_name, script_source, script_line_ends;
	uint16_t str_length, seq_one_byte_chars, seq_two_byte_chars;
	uint16_t cons_first, cons_second, thin_actual, sliced_parent, sliced_offset;
	uint16_t array_length, array_data;
	uint16_t scope_data;   /* where a ScopeInfo's slots start */
	uint8_t scope_first_vars, scope_ncontextlocals; /* slot indexes */

	/* interpreted frames' lines: a BytecodeArray's type, its source
	 * position table and its first bytecode; 0 where not known (the
	 * frames keep the line their function is defined on) */
	uint16_t t_bytecode_array, bytecode_positions, bytecode_data;
	/* the registers Ignition's handlers keep the array and the offset
	 * in, as DWARF numbers; -1: not known */
	int8_t reg_bytecode_array, reg_bytecode_offset;
	/* baseline frames' lines: each bytecode's size at each operand scale
	 * (1, 2, 4), from the binary's Bytecodes::kBytecodeSizes; nbytecodes
	 * 0: not known (the frames keep the line they are defined on) */
	uint16_t nbytecodes;
	uint8_t bytecode_sizes[3][V8_MAX_BYTECODES];

	/* optimized code: where its inlined functions are recorded */
	uint16_t code_instruction_start, code_instruction_size, code_flags;
	uint16_t code_deopt_data, code_source_positions;
	uint8_t code_start_is_pointer; /* 11.1+: a pointer, before: the body */
	uint8_t code_kind_shift;
	uint32_t code_kind_mask;
	uint8_t code_kind_baseline;   /* kinds at and above it are compiled */
	uint8_t deopt_inlined_count, deopt_literals, deopt_inlining_positions;
	uint8_t have_inlining;        /* all of the above were found */
	/* code found from a pc (on-stack replacement code no function points
	 * to): instructions start 64-aligned, stream_header bytes after the
	 * object holding them, which is the Code (before 11.1) or an
	 * InstructionStream whose word at stream_code points to its Code */
	uint16_t stream_header, stream_code;

	uint8_t frame_kind[V8_MAX_FRAME_TYPES]; /* frame type -> enum v8_frame_kind */
	uint8_t interpreted_type, baseline_type; /* frame types, 0: unknown */
};

/* Where the metadata comes from: the value of the exported int named
 * `name` (without its "v8dbg_" prefix). Returns 0 with *value, or -ENOENT. */
typedef int (*v8_layout_lookup_fn)(void *ctx, const char *name, int64_t *value);

/* The layout from a source of metadata and V8's version. Returns 0,
 * -ENOENT when the source has no V8 metadata at all, -ENOTSUP for a V8
 * older than 9.4 or newer than the layouts known, or -EPROTO when the
 * metadata is incomplete or not V8's 64-bit scheme. */
int v8_layout__from(v8_layout_lookup_fn lookup, void *ctx, unsigned major, unsigned minor,
		    unsigned build, struct v8_layout *out);

/* Sets the bytecode sizes from a copy of kBytecodeSizes (uint8_t[3][n],
 * bytes of it): 0, or -EPROTO when it cannot be one (the layout keeps
 * none). */
int v8_layout__bytecode_sizes(struct v8_layout *l, const uint8_t *sizes, size_t bytes);

/* The same from a node binary's exports: the v8dbg_* constants,
 * v8::internal::Version's fields and the interpreter's table of bytecode
 * sizes. Reads the file only. */
int v8_layout__read(Elf *elf, struct v8_layout *out);

/* The frame kind a frame's marker word says: V8_FRAME_OTHER for an
 * unknown type; -1 when the word is no marker (a context: the frame is a
 * JavaScript frame). */
int v8_layout__frame_kind(const struct v8_layout *l, uint64_t marker);

#endif
