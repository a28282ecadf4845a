/* Where the Zend engine (PHP 7.0-8.4, x86-64, non-thread-safe builds)
 * keeps what the PHP reader reads: per version, the offsets of the
 * executor globals' current frame, a frame's fields, a function's, a
 * class's and a string's. Each number is documented in php_layout.c with
 * the header and field it comes from. PHP 5's engine (a different frame
 * and op_array) has no row: its processes are refused, not guessed. */
#ifndef SMOLDER_RUNTIMES_PHP_LAYOUT_H
#define SMOLDER_RUNTIMES_PHP_LAYOUT_H
#include <stddef.h>
#include <stdint.h>

struct php_layout {
	unsigned major, minor;
	uint32_t api;               /* ZEND_MODULE_API_NO of the version */
	uint16_t eg_current_execute_data;
	/* zend_execute_data */
	uint16_t ex_opline, ex_func, ex_call_info, ex_prev, ex_size;
	uint32_t call_top;          /* the ZEND_CALL_TOP bit of ex_call_info */
	/* zend_function / zend_op_array */
	uint16_t fn_type, fn_name, fn_scope;
	uint16_t op_last, op_opcodes, op_filename, op_size;
	/* zend_class_entry, zend_string, zend_op */
	uint16_t ce_name, str_len, str_val, zop_lineno, zop_size;
};

/* zend_function.type values (zend_compile.h) */
#define PHP_INTERNAL_FUNCTION 1
#define PHP_USER_FUNCTION 2
#define PHP_EVAL_CODE 4

/* The layout of the version whose ZEND_MODULE_API_NO is api, NULL for
 * one without a row (PHP 5, or newer than the table). */
const struct php_layout *php_layout__by_api(uint32_t api);

/* The API number and thread safety a binary's ZEND_MODULE_BUILD_ID says
 * ("API20220829,NTS" in its read-only data), searched in data[0..len):
 * 0 with *api and *zts, -ENOENT when there is none. */
int php_layout__build_id(const char *data, size_t len, uint32_t *api, int *zts);

#endif
