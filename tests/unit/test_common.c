#include <criterion/criterion.h>
Test(placeholder, test_common) { cr_assert(1); }
