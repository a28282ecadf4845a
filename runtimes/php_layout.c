/* The Zend engine's layouts, per version (runtimes/php_layout.h).
 *
 * Sources, for x86-64 and pointers of 8 bytes:
 *  - executor_globals.current_execute_data (Zend/zend_globals.h, struct
 *    _zend_executor_globals): 480 in 7.0-7.2, 488 in 7.3-8.4, as the
 *    struct dumps gdb makes of each release's binary give them (phpspy's
 *    structs/x86_64/php_structs_7x.h, 8x.h); 488 checked on Debian's 8.2.
 *  - zend_execute_data (Zend/zend_compile.h): opline 0, call 8,
 *    return_value 16, func 24, This 32 (a zval: its u1.type_info, at 40,
 *    holds the call info in 7.0's top byte, in 7.1+ from bit 16); 7.0 has
 *    called_scope at 48 and so prev_execute_data at 56, 7.1+ at 48.
 *    ZEND_CALL_TOP, the frame an execute_ex call was entered with: 7.0
 *    ZEND_CALL_INFO() = type_info >> 24 with ZEND_CALL_TOP (1 << 1), so
 *    bit 25; 7.1-7.3 ZEND_CALL_INFO_SHIFT 16 with (1 << 1), 7.4+ (1 << 17):
 *    bit 17. (8.2 checked: the main script's frame has 0x130000.)
 *  - zend_function's common head (Zend/zend_compile.h,
 *    struct _zend_function.common): type 0 (zend_uchar), arg_flags[3],
 *    fn_flags 4, function_name 8, scope 16, in every 7.x and 8.x.
 *  - zend_op_array: last, opcodes and filename move with what each
 *    release adds before them. From the dumps, last_var / vars /
 *    filename are 72/80/120 (7.0-7.2), 52/88/128 (7.3), 52/96/136 (7.4),
 *    60/104/144 (8.0, 8.1), 76/112/152 (8.2), 72/104/144 (8.3),
 *    92/128/168 (8.4); the header puts `uint32_t last; zend_op *opcodes;`
 *    just before last_var in 7.0-7.2 (7.0: this_var 56, last 60, opcodes
 *    64; 7.1, 7.2: refcount 48, last 56, opcodes 64) and after it from 7.3
 *    (last_var, T, last, opcodes in 7.3-8.1: last 60/68, opcodes 64/72;
 *    last_var, last, opcodes in 8.2-8.4 with T moved into the common
 *    head: last 80/76/96, opcodes 88/80/104). 8.2's were checked on
 *    Debian's binary (every frame's opline inside its opcodes); the
 *    reader checks the same of every frame it names, so a wrong row
 *    fails a frame rather than naming it.
 *  - zend_class_entry.name 8 (after `char type`); zend_string: gc 0, h 8,
 *    len 16, val 24; zend_op: handler 0, op1, op2, result,
 *    extended_value, lineno 24; sizeof(zend_op) 32 (Zend/zend_compile.h,
 *    Zend/zend_types.h), in every 7.x and 8.x.
 * ZEND_MODULE_API_NO per release (Zend/zend_modules.h): 7.0 20151012,
 * 7.1 20160303, 7.2 20170718, 7.3 20180731, 7.4 20190902, 8.0 20200930,
 * 8.1 20210902, 8.2 20220829, 8.3 20230831, 8.4 20240924; PHP 5.4-5.6
 * (20100525, 20121212, 20131226) have none. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "runtimes/php_layout.h"

#define COMMON .fn_type = 0, .fn_name = 8, .fn_scope = 16, .ex_opline = 0, .ex_func = 24, \
	.ex_call_info = 40, .ce_name = 8, .str_len = 16, .str_val = 24, .zop_lineno = 24, \
	.zop_size = 32

static const struct php_layout layouts[] = {
	{ 7, 0, 20151012, 480, .ex_prev = 56, .ex_size = 64, .call_top = 1u << 25, .op_last = 60,
	  .op_opcodes = 64, .op_filename = 120, .op_size = 136, COMMON },
	{ 7, 1, 20160303, 480, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 56,
	  .op_opcodes = 64, .op_filename = 120, .op_size = 136, COMMON },
	{ 7, 2, 20170718, 480, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 56,
	  .op_opcodes = 64, .op_filename = 120, .op_size = 136, COMMON },
	{ 7, 3, 20180731, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 60,
	  .op_opcodes = 64, .op_filename = 128, .op_size = 144, COMMON },
	{ 7, 4, 20190902, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 60,
	  .op_opcodes = 64, .op_filename = 136, .op_size = 152, COMMON },
	{ 8, 0, 20200930, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 68,
	  .op_opcodes = 72, .op_filename = 144, .op_size = 160, COMMON },
	{ 8, 1, 20210902, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 68,
	  .op_opcodes = 72, .op_filename = 144, .op_size = 160, COMMON },
	{ 8, 2, 20220829, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 80,
	  .op_opcodes = 88, .op_filename = 152, .op_size = 168, COMMON },
	{ 8, 3, 20230831, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 76,
	  .op_opcodes = 80, .op_filename = 144, .op_size = 160, COMMON },
	{ 8, 4, 20240924, 488, .ex_prev = 48, .ex_size = 56, .call_top = 1u << 17, .op_last = 96,
	  .op_opcodes = 104, .op_filename = 168, .op_size = 184, COMMON },
};

const struct php_layout *php_layout__by_api(uint32_t api)
{
	size_t i;

	for (i = 0; i < sizeof(layouts) / sizeof(layouts[0]); i++)
		if (layouts[i].api == api)
			return &layouts[i];
	return NULL;
}

int php_layout__build_id(const char *data, size_t len, uint32_t *api, int *zts)
{
	static const char tag[] = "API";
	size_t i, j;

	/* "API" YYYYMMDD "," ("NTS" | "TS"): the engine's own build id; the
	 * extension API's "API4..." (nine digits) does not match */
	for (i = 0; i + 14 <= len; i++) {
		uint32_t v = 0;

		if (memcmp(data + i, tag, 3) != 0)
			continue;
		for (j = 0; j < 8 && data[i + 3 + j] >= '0' && data[i + 3 + j] <= '9'; j++)
			v = v * 10 + (uint32_t)(data[i + 3 + j] - '0');
		if (j != 8 || data[i + 11] != ',' || v < 19990000u)
			continue;
		if (i + 15 <= len && memcmp(data + i + 12, "NTS", 3) == 0) {
			*zts = 0;
		} else if (memcmp(data + i + 12, "TS", 2) == 0) {
			*zts = 1;
		} else {
			continue;
		}
		*api = v;
		return 0;
	}
	return -ENOENT;
}
