/* Proleptic Gregorian calendar arithmetic in UTC, independent of TZ, locale
 * and the width of time_t. Pure. */
#ifndef SMOLDER_COMMON_CALENDAR_H
#define SMOLDER_COMMON_CALENDAR_H
#include <stdint.h>

/* 1 when y-m-d names a day (m 1..12, d within the month, leap years
 * counted), else 0. */
int calendar__valid_date(int64_t y, int m, int d);

/* Days from 1970-01-01 to y-m-d (negative before). The date must be valid. */
int64_t calendar__days_from_civil(int64_t y, int m, int d);

#endif
