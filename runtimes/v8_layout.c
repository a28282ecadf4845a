/* V8's frame and object layout from a node binary's postmortem metadata. */
#include "config.h"

#include <errno.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>

#include "runtimes/elf_symbols.h"
#include "runtimes/v8_layout.h"

/* A field of an object is within its first KiB (the largest we read,
 * Code's header, is under 100 bytes); frame slots are a few words. */
#define MAX_FIELD 1024
#define MAX_FRAME_SLOT 256

/* Looks up the first of names[] the metadata has. */
static int first_of(v8_layout_lookup_fn lookup, void *ctx, const char *const *names, int64_t *v)
{
	for (; *names; names++)
		if (lookup(ctx, *names, v) == 0)
			return 0;
	return -ENOENT;
}

#define NAMES(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* An offset of a field, under any of its names. */
static int field(v8_layout_lookup_fn lookup, void *ctx, const char *const *names, uint16_t *out)
{
	int64_t v;

	if (first_of(lookup, ctx, names, &v) != 0)
		return -ENOENT;
	if (v < 0 || v >= MAX_FIELD || (v & 3))
		return -EPROTO;
	*out = (uint16_t)v;
	return 0;
}

/* An instance type, a 16-bit value. */
static int type(v8_layout_lookup_fn lookup, void *ctx, const char *const *names, uint16_t *out)
{
	int64_t v;

	if (first_of(lookup, ctx, names, &v) != 0)
		return -ENOENT;
	if (v < 0 || v > 0xffff)
		return -EPROTO;
	*out = (uint16_t)v;
	return 0;
}

/* A small constant (a mask, a tag, an index). */
static int small(v8_layout_lookup_fn lookup, void *ctx, const char *const *names, int64_t max,
		 int64_t *out)
{
	if (first_of(lookup, ctx, names, out) != 0)
		return -ENOENT;
	return *out < 0 || *out > max ? -EPROTO : 0;
}

/* V8's tagging on 64-bit without pointer compression, which every node
 * release ships: heap objects end in 01, small integers are the upper 32
 * bits over a zero low word. Anything else is a V8 we cannot read. */
static int check_tagging(v8_layout_lookup_fn lookup, void *ctx)
{
	static const struct {
		const char *name;
		int64_t want;
		int optional;
	} tags[] = {
		{ "HeapObjectTag", 1, 0 },   { "HeapObjectTagMask", 3, 0 }, { "SmiTag", 0, 0 },
		{ "SmiTagMask", 1, 0 },      { "SmiShiftSize", 31, 0 },     { "SmiValueShift", 1, 0 },
		{ "SystemPointerSize", 8, 1 }, { "TaggedSize", 8, 1 },
	};
	size_t i;

	for (i = 0; i < sizeof(tags) / sizeof(tags[0]); i++) {
		int64_t v;

		if (lookup(ctx, tags[i].name, &v) != 0) {
			if (tags[i].optional)
				continue;
			return -EPROTO;
		}
		if (v != tags[i].want)
			return -EPROTO;
	}
	return 0;
}

/* A frame slot: a multiple of a word below the frame pointer. */
static int slot(int64_t v, int *out)
{
	if (v >= 0 || v < -MAX_FRAME_SLOT || (v & 7))
		return -EPROTO;
	*out = (int)v;
	return 0;
}

static int frame_slots(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	int64_t marker, fn, off, arr;
	int err;

	if (first_of(lookup, ctx, NAMES("off_fp_context_or_frame_type", "off_fp_context"), &marker) ||
	    lookup(ctx, "off_fp_function", &fn))
		return -EPROTO;
	/* exported since V8 9.5; before, the bytecode array and its offset
	 * follow the function and the argument count, as since 8.7 */
	if (lookup(ctx, "off_fp_bytecode_offset", &off) != 0)
		off = fn - 24;
	if (lookup(ctx, "off_fp_bytecode_array", &arr) != 0)
		arr = off + 8;
	err = slot(marker, &l->fp_marker);
	if (!err)
		err = slot(fn, &l->fp_function);
	if (!err)
		err = slot(off, &l->fp_bytecode_offset);
	if (!err)
		err = slot(arr, &l->fp_bytecode_array);
	if (!err && (l->fp_marker == l->fp_function || l->fp_function == l->fp_bytecode_offset ||
		     l->fp_bytecode_array == l->fp_bytecode_offset || l->fp_bytecode_array == l->fp_function ||
		     l->fp_bytecode_array == l->fp_marker))
		err = -EPROTO;
	return err;
}

static int types(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	int64_t first, last;
	int err = 0;

	err |= type(lookup, ctx, NAMES("type_JSFunction__JS_FUNCTION_TYPE"), &l->t_function_first);
	err |= type(lookup, ctx, NAMES("type_SharedFunctionInfo__SHARED_FUNCTION_INFO_TYPE"), &l->t_sfi);
	err |= type(lookup, ctx, NAMES("type_Script__SCRIPT_TYPE"), &l->t_script);
	err |= type(lookup, ctx, NAMES("type_ScopeInfo__SCOPE_INFO_TYPE"), &l->t_scope_info);
	err |= type(lookup, ctx, NAMES("FirstNonstringType"), &l->t_first_nonstring);
	err |= type(lookup, ctx, NAMES("type_FixedArray__FIXED_ARRAY_TYPE"), &l->t_fixed_array);
	if (err)
		return -EPROTO;
	/* JSFunction has had subclasses (class and builtin constructors) since
	 * V8 9.0, whose types follow its own; 12.x exports the range. Before,
	 * 14 of them up to 9.6, 15 since (the last constructor added). */
	if (lookup(ctx, "FirstJSFunctionType", &first) == 0 && lookup(ctx, "LastJSFunctionType", &last) == 0 &&
	    first == l->t_function_first && last >= first && last - first < 64) {
		l->t_function_last = (uint16_t)last;
	} else {
		l->t_function_last = (uint16_t)(l->t_function_first + (l->major > 9 || l->minor >= 6 ? 14 : 13));
	}
	/* what optimized code's tables are: optional, inlined frames need them */
	if (type(lookup, ctx, NAMES("type_Code__CODE_TYPE"), &l->t_code) ||
	    type(lookup, ctx, NAMES("type_ByteArray__BYTE_ARRAY_TYPE"), &l->t_byte_array))
		l->t_code = 0;
	(void)type(lookup, ctx, NAMES("type_TrustedByteArray__TRUSTED_BYTE_ARRAY_TYPE"), &l->t_trusted_byte_array);
	(void)type(lookup, ctx, NAMES("type_WeakFixedArray__WEAK_FIXED_ARRAY_TYPE"), &l->t_weak_fixed_array);
	(void)type(lookup, ctx, NAMES("type_TrustedFixedArray__TRUSTED_FIXED_ARRAY_TYPE"),
		   &l->t_trusted_fixed_array);
	(void)type(lookup, ctx, NAMES("type_ProtectedFixedArray__PROTECTED_FIXED_ARRAY_TYPE"),
		   &l->t_protected_fixed_array);
	return 0;
}

static int strings(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	int64_t v[7];
	const char *names[7] = { "StringRepresentationMask", "SeqStringTag", "ConsStringTag", "ThinStringTag",
				 "SlicedStringTag", "StringEncodingMask", "OneByteStringTag" };
	size_t i;

	for (i = 0; i < 7; i++)
		if (small(lookup, ctx, NAMES(names[i]), 0xff, &v[i]) != 0)
			return -EPROTO;
	l->str_repr_mask = (uint16_t)v[0];
	l->str_seq = (uint16_t)v[1];
	l->str_cons = (uint16_t)v[2];
	l->str_thin = (uint16_t)v[3];
	l->str_sliced = (uint16_t)v[4];
	l->str_enc_mask = (uint16_t)v[5];
	l->str_one_byte = (uint16_t)v[6];
	/* the representations are distinct values of the mask */
	for (i = 1; i < 5; i++)
		if ((v[i] & ~v[0]) != 0)
			return -EPROTO;
	return v[1] == v[2] || v[1] == v[3] || v[2] == v[3] || (v[6] & ~v[5]) ? -EPROTO : 0;
}

static int fields(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	int err = 0;
	int64_t v;

	/* the map is the first word of every object; 0 is kept in .bss, and
	 * some versions do not export it at all */
	if (lookup(ctx, "class_HeapObject__map__Map", &v) == 0 && v != 0)
		return -EPROTO;
	err |= field(lookup, ctx, NAMES("class_Map__instance_type__uint16_t"), &l->map_instance_type);
	err |= field(lookup, ctx,
		     NAMES("class_JSFunction__shared__SharedFunctionInfo",
			   "class_JSFunction__shared__Tagged_SharedFunctionInfo_"),
		     &l->fn_shared);
	err |= field(lookup, ctx,
		     NAMES("class_SharedFunctionInfo__name_or_scope_info__Object",
			   "class_SharedFunctionInfo__name_or_scope_info__Tagged_Object_"),
		     &l->sfi_name_or_scope_info);
	err |= field(lookup, ctx,
		     NAMES("class_SharedFunctionInfo__script_or_debug_info__HeapObject",
			   "class_SharedFunctionInfo__script_or_debug_info__Object",
			   "class_SharedFunctionInfo__script__Tagged_HeapObject_",
			   "class_SharedFunctionInfo__raw_script__Tagged_Object_"),
		     &l->sfi_script);
	err |= field(lookup, ctx, NAMES("class_Script__name__Object", "class_Script__name__Tagged_Object_"),
		     &l->script_name);
	err |= field(lookup, ctx,
		     NAMES("class_Script__line_ends__Object", "class_Script__line_ends__Tagged_Object_"),
		     &l->script_line_ends);
	err |= field(lookup, ctx, NAMES("class_String__length__int32_t"), &l->str_length);
	err |= field(lookup, ctx, NAMES("class_SeqOneByteString__chars__char"), &l->seq_one_byte_chars);
	err |= field(lookup, ctx, NAMES("class_SeqTwoByteString__chars__char"), &l->seq_two_byte_chars);
	err |= field(lookup, ctx, NAMES("class_ConsString__first__String"), &l->cons_first);
	err |= field(lookup, ctx, NAMES("class_ConsString__second__String"), &l->cons_second);
	err |= field(lookup, ctx, NAMES("class_ThinString__actual__String"), &l->thin_actual);
	err |= field(lookup, ctx, NAMES("class_SlicedString__parent__String"), &l->sliced_parent);
	err |= field(lookup, ctx, NAMES("class_SlicedString__offset__SMI"), &l->sliced_offset);
	err |= field(lookup, ctx, NAMES("class_FixedArrayBase__length__SMI"), &l->array_length);
	err |= field(lookup, ctx, NAMES("class_FixedArray__data__uintptr_t"), &l->array_data);
	if (err)
		return -EPROTO;
	/* the source precedes the name in every Script since V8 8.4; only
	 * 10.x and later export it */
	if (field(lookup, ctx, NAMES("class_Script__source__Object", "class_Script__source__Tagged_Object_"),
		  &l->script_source) != 0) {
		if (l->script_name < 16)
			return -EPROTO;
		l->script_source = (uint16_t)(l->script_name - 8);
	}
	/* a ScopeInfo's slots follow its map since V8 9.1 (it was a FixedArray) */
	l->scope_data = 8;
	if (small(lookup, ctx, NAMES("scopeinfo_idx_first_vars"), 64, &v) != 0)
		return -EPROTO;
	l->scope_first_vars = (uint8_t)v;
	if (small(lookup, ctx, NAMES("scopeinfo_idx_ncontextlocals"), 64, &v) != 0 ||
	    v >= l->scope_first_vars)
		return -EPROTO;
	l->scope_ncontextlocals = (uint8_t)v;
	return 0;
}

/* JSFunction::code. Exported under its own name by 9.x (raw_code) and
 * 12.x; in 10.x and 11.x it is the word after the feedback cell, three
 * after the SharedFunctionInfo (JSFunction's torque layout), and in 11.7
 * it moved before the SharedFunctionInfo, where 12.x exports it. */
static int function_code(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	if (field(lookup, ctx,
		  NAMES("class_JSFunction__code__Tagged_Code_", "class_JSFunction__raw_code__CodeT",
			"class_JSFunction__code__Code", "class_JSFunction__raw_code__Object"),
		  &l->fn_code) == 0)
		return 0;
	if (l->major == 11 && l->minor >= 7) {
		if (l->fn_shared < 8)
			return -EPROTO;
		l->fn_code = (uint16_t)(l->fn_shared - 8);
	} else {
		l->fn_code = (uint16_t)(l->fn_shared + 24);
	}
	return 0;
}

/* Code's fields, for inlined frames. 9.x exports its instruction size and
 * start (the body, after the header); 11.x lost them all but the tables,
 * which lie before the instruction start pointer (11.1+), the flags and
 * the size (with two 16-bit fields before it until 11.4); 12.x exports the
 * start, size and flags, and its tables lie before a wrapper pointer. */
static void code_fields(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	uint16_t start = 0, size = 0, flags = 0, spt = 0, deopt = 0;
	int64_t v;
	int have_size = field(lookup, ctx, NAMES("class_Code__instruction_size__int"), &size) == 0;
	int have_start = field(lookup, ctx,
			       NAMES("class_Code__instruction_start__uintptr_t",
				     "class_Code__instruction_start__Address"),
			       &start) == 0;

	(void)field(lookup, ctx, NAMES("class_Code__flags__uint32_t"), &flags);
	(void)field(lookup, ctx,
		    NAMES("class_Code__source_position_table__ByteArray",
			  "class_Code__source_position_table__Tagged_ByteArray_"),
		    &spt);
	(void)field(lookup, ctx,
		    NAMES("class_Code__deoptimization_data__FixedArray",
			  "class_Code__deoptimization_data__Tagged_FixedArray_"),
		    &deopt);
	l->code_start_is_pointer = l->major > 11 || (l->major == 11 && l->minor >= 1);
	if (have_size && have_start && l->major < 11) {
		if (!flags)
			flags = (uint16_t)(size + 8);
		if (!spt && size >= 16)
			spt = (uint16_t)(size - 16);
	} else if (!have_size && spt) {
		start = (uint16_t)(spt + 16);
		flags = (uint16_t)(start + 8);
		size = (uint16_t)(flags + 4 + (l->major == 11 && l->minor < 4 ? 4 : 0));
	} else if (have_size && have_start && flags && !spt) {
		if (lookup(ctx, "type_CodeWrapper__CODE_WRAPPER_TYPE", &v) == 0 && start >= 24)
			spt = (uint16_t)(start - 24);
	}
	if (!deopt && spt >= 8)
		deopt = (uint16_t)(spt - 8);
	l->code_instruction_start = start;
	l->code_instruction_size = size;
	l->code_flags = flags;
	l->code_source_positions = spt;
	l->code_deopt_data = deopt;
	/* CodeKind: exported since 9.5; BASELINE was 11 from 9.0 */
	l->code_kind_mask = 0xf;
	l->code_kind_shift = 0;
	l->code_kind_baseline = 11;
	if (small(lookup, ctx, NAMES("CodeKindFieldMask"), 0xffff, &v) == 0 && v)
		l->code_kind_mask = (uint32_t)v;
	if (small(lookup, ctx, NAMES("CodeKindFieldShift"), 31, &v) == 0)
		l->code_kind_shift = (uint8_t)v;
	if (small(lookup, ctx, NAMES("CodeKindBaseline"), 63, &v) == 0)
		l->code_kind_baseline = (uint8_t)v;
	/* DeoptimizationData's indexes: exported since 10.x, unchanged */
	l->deopt_inlined_count = 1;
	l->deopt_literals = 2;
	l->deopt_inlining_positions = 7;
	if (small(lookup, ctx, NAMES("DeoptimizationDataInlinedFunctionCountIndex"), 32, &v) == 0)
		l->deopt_inlined_count = (uint8_t)v;
	if (small(lookup, ctx, NAMES("DeoptimizationDataLiteralArrayIndex"), 32, &v) == 0)
		l->deopt_literals = (uint8_t)v;
	if (small(lookup, ctx, NAMES("DeoptimizationDataInliningPositionsIndex"), 32, &v) == 0)
		l->deopt_inlining_positions = (uint8_t)v;
	l->have_inlining = l->t_code && start && size && flags && spt && deopt && l->fn_code &&
			   start < MAX_FIELD && size < MAX_FIELD && flags < MAX_FIELD;
	/* 11.1 split Code into a Code and the InstructionStream holding its
	 * instructions, after the stream's map and its Code pointer */
	if (!l->code_start_is_pointer) {
		l->stream_header = start;
		l->stream_code = 0;
	} else if (field(lookup, ctx, NAMES("class_InstructionStream__instruction_start__uintptr_t"),
			 &l->stream_header) == 0 && l->stream_header >= 16) {
		l->stream_code = 8;
	}
}

/* The DWARF number of the x64 register whose V8 code the metadata names
 * (V8 numbers rax, rcx, rdx, rbx, rsp, rbp, rsi, rdi, then r8-r15). The
 * frame's own registers (rsp, rbp) are never the interpreter's. */
static int8_t dwarf_reg(v8_layout_lookup_fn lookup, void *ctx, const char *name)
{
	static const int8_t dwarf[16] = { 0, 2, 1, 3, -1, -1, 4, 5, 8, 9, 10, 11, 12, 13, 14, 15 };
	int64_t v;

	if (small(lookup, ctx, NAMES(name), 15, &v) != 0)
		return -1;
	return dwarf[v];
}

/* BytecodeArray, for the lines interpreted frames run. It extends
 * FixedArrayBase (map, length) with its constant pool, handler table and
 * source position table, then 32-bit sizes, then its bytecodes
 * (src/objects/code.tq, bytecode-array.tq): the table at 32 and the
 * bytecodes at 54 from V8 9.4 (an 8-bit OSR nesting level and age) to
 * 11.x (a 16-bit OSR urgency, the age moved to the SharedFunctionInfo),
 * which node 20 exports as data (54). 12.x moved the array to trusted
 * space, with layouts not checked here: its frames keep the line they
 * are defined on unless the metadata says where the table is. The sizes
 * of the bytecodes, for baseline frames, are the binary's own
 * (v8_layout__read). */
static void bytecode_fields(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	uint16_t t = 0, spt = 0, data = 0;

	if (type(lookup, ctx, NAMES("type_BytecodeArray__BYTECODE_ARRAY_TYPE"), &t) != 0)
		return;
	if (field(lookup, ctx,
		  NAMES("class_BytecodeArray__source_position_table__Object",
			"class_BytecodeArray__source_position_table__Tagged_Object_",
			"class_BytecodeArray__source_position_table__HeapObject"),
		  &spt) != 0 && l->major <= 11)
		spt = 32;
	/* the bytecodes' offset is not 4-aligned: not a field() */
	{
		int64_t v;

		if (small(lookup, ctx, NAMES("class_BytecodeArray__data__uintptr_t"), MAX_FIELD - 1, &v) == 0)
			data = (uint16_t)v;
		else if (l->major <= 11)
			data = 54;
	}
	if (!spt || !data || spt < 16 || data < spt + 8)
		return;
	l->reg_bytecode_array = dwarf_reg(lookup, ctx, "InterpreterBytecodeArrayRegister");
	l->reg_bytecode_offset = dwarf_reg(lookup, ctx, "InterpreterBytecodeOffsetRegister");
	if (l->reg_bytecode_array == l->reg_bytecode_offset)
		l->reg_bytecode_array = l->reg_bytecode_offset = -1;
	l->t_bytecode_array = t;
	l->bytecode_positions = spt;
	l->bytecode_data = data;
}

/* Frame types by the names V8 gives them (frametype_NAME). */
static void frame_types(v8_layout_lookup_fn lookup, void *ctx, struct v8_layout *l)
{
	static const struct {
		const char *name;
		uint8_t kind;
	} known[] = {
		{ "frametype_EntryFrame", V8_FRAME_ENTRY },
		{ "frametype_ConstructEntryFrame", V8_FRAME_ENTRY },
		{ "frametype_ExitFrame", V8_FRAME_EXIT },
		{ "frametype_BuiltinExitFrame", V8_FRAME_EXIT },
		{ "frametype_ApiCallbackExitFrame", V8_FRAME_EXIT },
		{ "frametype_StubFrame", V8_FRAME_STUB },
		{ "frametype_TurbofanStubWithContextFrame", V8_FRAME_STUB },
		{ "frametype_BuiltinFrame", V8_FRAME_STUB },
		{ "frametype_BuiltinContinuationFrame", V8_FRAME_STUB },
		{ "frametype_JavaScriptBuiltinContinuationFrame", V8_FRAME_STUB },
		{ "frametype_JavaScriptBuiltinContinuationWithCatchFrame", V8_FRAME_STUB },
		{ "frametype_IrregexpFrame", V8_FRAME_REGEXP },
		{ "frametype_WasmFrame", V8_FRAME_WASM },
		{ "frametype_WasmToJsFrame", V8_FRAME_WASM },
		{ "frametype_JsToWasmFrame", V8_FRAME_WASM },
		{ "frametype_WasmExitFrame", V8_FRAME_WASM },
		{ "frametype_CWasmEntryFrame", V8_FRAME_WASM },
		{ "frametype_InternalFrame", V8_FRAME_INTERNAL },
		{ "frametype_ConstructFrame", V8_FRAME_INTERNAL },
		{ "frametype_FastConstructFrame", V8_FRAME_INTERNAL },
	};
	size_t i;
	int64_t v;

	for (i = 0; i < sizeof(known) / sizeof(known[0]); i++)
		if (lookup(ctx, known[i].name, &v) == 0 && v > 0 && v < V8_MAX_FRAME_TYPES)
			l->frame_kind[v] = known[i].kind;
	if (lookup(ctx, "frametype_InterpretedFrame", &v) == 0 && v > 0 && v < V8_MAX_FRAME_TYPES)
		l->interpreted_type = (uint8_t)v;
	if (lookup(ctx, "frametype_BaselineFrame", &v) == 0 && v > 0 && v < V8_MAX_FRAME_TYPES)
		l->baseline_type = (uint8_t)v;
}

int v8_layout__from(v8_layout_lookup_fn lookup, void *ctx, unsigned major, unsigned minor,
		    unsigned build, struct v8_layout *out)
{
	struct v8_layout l;
	int64_t v;
	int err;

	if (lookup(ctx, "off_fp_function", &v) != 0)
		return -ENOENT;
	/* 9.4 is node 16's; older ones kept ScopeInfo as a FixedArray and
	 * frames without an argument count; 12.5 moved code and its tables
	 * into trusted space behind wrappers we have not checked */
	if (major < 9 || (major == 9 && minor < 4) || major > 12 || (major == 12 && minor > 4))
		return -ENOTSUP;
	memset(&l, 0, sizeof(l));
	l.reg_bytecode_array = l.reg_bytecode_offset = -1;
	l.major = major;
	l.minor = minor;
	l.build = build;
	err = check_tagging(lookup, ctx);
	if (!err)
		err = frame_slots(lookup, ctx, &l);
	if (!err)
		err = types(lookup, ctx, &l);
	if (!err)
		err = strings(lookup, ctx, &l);
	if (!err)
		err = fields(lookup, ctx, &l);
	if (!err)
		err = function_code(lookup, ctx, &l);
	if (err)
		return err;
	code_fields(lookup, ctx, &l);
	bytecode_fields(lookup, ctx, &l);
	frame_types(lookup, ctx, &l);
	*out = l;
	return 0;
}

int v8_layout__frame_kind(const struct v8_layout *l, uint64_t marker)
{
	/* a typed frame's marker is its type shifted past the small-integer
	 * tag, with the tag (0); a JavaScript frame has its context there,
	 * a tagged pointer */
	if (marker & 1)
		return -1;
	marker >>= 1;
	return marker < V8_MAX_FRAME_TYPES ? l->frame_kind[marker] : V8_FRAME_OTHER;
}

int v8_layout__bytecode_sizes(struct v8_layout *l, const uint8_t *sizes, size_t bytes)
{
	size_t n = bytes / 3, k, i;

	l->nbytecodes = 0;
	/* the four prefixes (Wide, ExtraWide and their debug breaks) come
	 * first in every version, and a bytecode is its byte and at most
	 * five operands of four bytes */
	if (bytes % 3 || n < 8 || n > V8_MAX_BYTECODES)
		return -EPROTO;
	for (k = 0; k < 3; k++)
		for (i = 0; i < n; i++)
			if (!sizes[k * n + i] || sizes[k * n + i] > 21)
				return -EPROTO;
	for (k = 0; k < 3; k++)
		memcpy(l->bytecode_sizes[k], sizes + k * n, n);
	l->nbytecodes = (uint16_t)n;
	return 0;
}

/* The binary's exported constants, by name. */
struct elf_meta {
	Elf *elf;
	const char **names;  /* v8dbg_ symbols, without the prefix */
	uint64_t *vaddrs;
	size_t n, cap;
	uint64_t sizes_at, sizes_bytes; /* Bytecodes::kBytecodeSizes */
};

static int collect(void *arg, const GElf_Sym *sym, const char *name)
{
	struct elf_meta *m = arg;

	if (sym->st_shndx != SHN_UNDEF && GELF_ST_TYPE(sym->st_info) == STT_OBJECT &&
	    strcmp(name, "_ZN2v88internal11interpreter9Bytecodes14kBytecodeSizesE") == 0) {
		m->sizes_at = sym->st_value;
		m->sizes_bytes = sym->st_size;
		return 0;
	}

	if (sym->st_shndx == SHN_UNDEF || GELF_ST_TYPE(sym->st_info) != STT_OBJECT ||
	    strncmp(name, "v8dbg_", 6) != 0 || sym->st_size < 4)
		return 0;
	if (m->n == m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 256;
		const char **nn;
		uint64_t *nv;

		/* V8 exports about 500; a file exporting many more is not V8 */
		if (cap > 8192)
			return 1;
		nn = realloc(m->names, cap * sizeof(*nn));
		if (!nn)
			return 1;
		m->names = nn;
		nv = realloc(m->vaddrs, cap * sizeof(*nv));
		if (!nv)
			return 1;
		m->vaddrs = nv;
		m->cap = cap;
	}
	m->names[m->n] = name + 6;
	m->vaddrs[m->n++] = sym->st_value;
	return 0;
}

static int elf_lookup(void *ctx, const char *name, int64_t *value)
{
	struct elf_meta *m = ctx;
	int32_t v;
	size_t i;

	for (i = 0; i < m->n; i++) {
		if (strcmp(m->names[i], name) != 0)
			continue;
		if (elf_symbols__read(m->elf, m->vaddrs[i], &v, sizeof(v)) != 0)
			return -ENOENT;
		*value = v;
		return 0;
	}
	return -ENOENT;
}

/* v8::internal::Version's major_, minor_ and build_, exported data. */
static int version(Elf *elf, unsigned *major, unsigned *minor, unsigned *build)
{
	static const char *const names[3] = { "_ZN2v88internal7Version6major_E",
					      "_ZN2v88internal7Version6minor_E",
					      "_ZN2v88internal7Version6build_E" };
	uint64_t at[3];
	int32_t v[3];
	size_t i;

	if (elf_symbols__objects(elf, names, 3, at) != 3)
		return -ENOENT;
	for (i = 0; i < 3; i++)
		if (elf_symbols__read(elf, at[i], &v[i], sizeof(v[i])) != 0 || v[i] < 0 || v[i] > 0xffff)
			return -EPROTO;
	*major = (unsigned)v[0];
	*minor = (unsigned)v[1];
	*build = (unsigned)v[2];
	return 0;
}

int v8_layout__read(Elf *elf, struct v8_layout *out)
{
	struct elf_meta m;
	unsigned major, minor, build;
	int err;

	memset(&m, 0, sizeof(m));
	m.elf = elf;
	elf_symbols__each(elf, SHT_DYNSYM, collect, &m);
	if (!m.n) {
		err = -ENOENT;
		goto out;
	}
	err = version(elf, &major, &minor, &build);
	if (err == -ENOENT)
		err = -EPROTO;
	if (!err)
		err = v8_layout__from(elf_lookup, &m, major, minor, build, out);
	if (!err && m.sizes_at && m.sizes_bytes <= 3 * V8_MAX_BYTECODES) {
		uint8_t sizes[3 * V8_MAX_BYTECODES];

		if (elf_symbols__read(elf, m.sizes_at, sizes, (size_t)m.sizes_bytes) == 0)
			(void)v8_layout__bytecode_sizes(out, sizes, (size_t)m.sizes_bytes);
	}
out:
	free(m.names);
	free(m.vaddrs);
	return err;
}
