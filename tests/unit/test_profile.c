#include <criterion/criterion.h>
Test(placeholder, test_profile) { cr_assert(1); }
