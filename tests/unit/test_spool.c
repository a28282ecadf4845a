#include <criterion/criterion.h>
Test(placeholder, test_spool) { cr_assert(1); }
