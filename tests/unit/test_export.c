#include <criterion/criterion.h>
Test(placeholder, test_export) { cr_assert(1); }
