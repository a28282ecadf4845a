/* No-op hooks for the frame-pointer workloads, built with -finstrument-functions.
 *
 * gcc 8 and later set up no frame in a leaf function that needs no stack
 * frame, even with -fno-omit-frame-pointer (and -mno-omit-leaf-frame-pointer
 * does not change it); gcc 4.8, the compiler of the era the 2.6.32 row
 * stands for, did. Sampled in such a leaf, the kernel's frame-pointer walk
 * starts at the caller's frame and loses the caller (main;a;c instead of
 * main;a;b;c). Instrumented functions call these hooks, so none of them is
 * a leaf and each keeps its frame, as gcc 4.8 would have built it. */

void __cyg_profile_func_enter(void *fn, void *site) __attribute__((no_instrument_function));
void __cyg_profile_func_exit(void *fn, void *site) __attribute__((no_instrument_function));

void __cyg_profile_func_enter(void *fn, void *site)
{
}

void __cyg_profile_func_exit(void *fn, void *site)
{
}
