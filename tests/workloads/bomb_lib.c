/* The code of the debug-data bombs tests/integration/security_bombs.sh builds:
 * one function the bomb workload calls in each copy. */
volatile unsigned long bomb_sink;
__attribute__((noinline)) unsigned long bomb_work(unsigned long n)
{
	unsigned long x = n, i;

	for (i = 0; i < n; i++)
		x = x * 6364136223846793005UL + 1;
	bomb_sink = x;
	return x;
}
