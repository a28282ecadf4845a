#include <criterion/criterion.h>
Test(placeholder, test_dump_read) { cr_assert(1); }
