# runtimes/: readers of language runtimes from outside the process (their
# memory, their own self-description) behind one contract (runtime.h),
# which the collector's registry drives and the symbolizer names through.
# Includes common/, profile/ and unwind/ (readers describe code as the
# unwinder's shapes and read its frames).
noinst_LIBRARIES += runtimes/libruntimes.a
runtimes_libruntimes_a_CPPFLAGS = $(AM_CPPFLAGS) $(DW_CFLAGS)
runtimes_libruntimes_a_SOURCES = \
	runtimes/runtime.h runtimes/readers.h \
	runtimes/accountant.c runtimes/accountant.h \
	runtimes/elf_symbols.c runtimes/elf_symbols.h \
	runtimes/glibc.c runtimes/glibc.h \
	runtimes/hotspot_reader.c runtimes/cpython_reader.c runtimes/go_reader.c \
	runtimes/procmem.c runtimes/procmem.h \
	runtimes/gostack.c runtimes/gostack.h \
	runtimes/gopclntab.c runtimes/gopclntab.h \
	runtimes/gopclntab_elf.c runtimes/gopclntab_elf.h \
	runtimes/gobuildinfo.c runtimes/gobuildinfo.h \
	runtimes/gobinary.c runtimes/gobinary.h \
	runtimes/golayout.c runtimes/golayout.h \
	runtimes/gojoin.c runtimes/gojoin.h \
	runtimes/memsource.c runtimes/memsource.h \
	runtimes/javacmd.c runtimes/javacmd.h \
	runtimes/hotspot_vm.c runtimes/hotspot_vm.h \
	runtimes/hotspot_code.c runtimes/hotspot_names.c runtimes/hotspot_frames.c \
	runtimes/hotspot_lines.c runtimes/hotspot_lines.h \
	runtimes/x86_insn.c runtimes/x86_insn.h runtimes/x86_frame.c runtimes/x86_frame.h \
	runtimes/hotspot.h runtimes/hotspot_impl.h \
	runtimes/cpython_layout.c runtimes/cpython_layout.h \
	runtimes/cpython.c runtimes/cpython.h runtimes/cpython_state.h \
	runtimes/cpython_ahead.c runtimes/cpython_ahead.h \
	runtimes/cpython_names.c runtimes/cpython_names.h \
	runtimes/cpython_proof.c \
	runtimes/cpython_lines.c runtimes/cpython_lines.h \
	runtimes/v8_reader.c runtimes/v8.c runtimes/v8.h \
	runtimes/v8_layout.c runtimes/v8_layout.h \
	runtimes/v8_heap.c runtimes/v8_heap.h \
	runtimes/v8_script.c runtimes/v8_script.h \
	runtimes/v8_names.c runtimes/v8_names.h \
	runtimes/v8_inline.c runtimes/v8_inline.h \
	runtimes/v8_lines.c runtimes/v8_lines.h \
	runtimes/v8_positions.c runtimes/v8_positions.h \
	runtimes/nodecmd.c runtimes/nodecmd.h \
	runtimes/pycmd.c runtimes/pycmd.h \
	runtimes/cmdline_args.h \
	runtimes/script_label.c runtimes/script_label.h \
	runtimes/ruby_reader.c runtimes/ruby.c runtimes/ruby.h runtimes/ruby_state.h \
	runtimes/ruby_layout.c runtimes/ruby_layout.h \
	runtimes/ruby_names.c runtimes/ruby_objects.c runtimes/ruby_batch.c \
	runtimes/ruby_stack.c \
	runtimes/ruby_lines.c runtimes/ruby_lines.h \
	runtimes/rubycmd.c runtimes/rubycmd.h \
	runtimes/interp_place.c runtimes/interp_place.h \
	runtimes/php_reader.c runtimes/php.c runtimes/php.h runtimes/php_names.c \
	runtimes/php_layout.c runtimes/php_layout.h runtimes/php_jit.c runtimes/php_jit.h \
	runtimes/phpcmd.c runtimes/phpcmd.h \
	runtimes/perl_reader.c runtimes/perl.c runtimes/perl.h runtimes/perl_names.c \
	runtimes/perl_slabs.c runtimes/perl_state.h \
	runtimes/perl_layout.c runtimes/perl_layout.h runtimes/prefetch.c runtimes/prefetch.h \
	runtimes/replay.c runtimes/replay.h \
	runtimes/perlcmd.c runtimes/perlcmd.h
RUNTIMES_LIBS = runtimes/libruntimes.a $(UNWIND_LIBS) $(PROFILE_LIBS) $(DW_LIBS)
