#include <criterion/criterion.h>
Test(placeholder, test_ring) { cr_assert(1); }
