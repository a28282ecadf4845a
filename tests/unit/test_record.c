#include <criterion/criterion.h>
Test(placeholder, test_record) { cr_assert(1); }
