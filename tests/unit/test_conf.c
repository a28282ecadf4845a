#include <criterion/criterion.h>
Test(placeholder, test_config) { cr_assert(1); }
