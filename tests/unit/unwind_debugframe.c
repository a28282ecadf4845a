/* A function whose only CFI is in .debug_frame (built without unwind tables), for test_unwind. */
#include "config.h"

int chain_c(int x);
int dbgframe_mid(int x);

/* The work after the call keeps it a call, not a tail jump. */
__attribute__((noinline, noclone)) int dbgframe_mid(int x)
{
	volatile int pad[4];

	pad[0] = x;
	return chain_c(pad[0] + 1) * 11 + pad[0];
}
