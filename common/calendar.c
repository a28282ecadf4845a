/* Dates to day counts without timegm (which reads TZ) or time_t. */
#include "config.h"

#include "common/calendar.h"

static int is_leap(int64_t y)
{
	return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int calendar__valid_date(int64_t y, int m, int d)
{
	static const int days[] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };

	if (m < 1 || m > 12 || d < 1)
		return 0;
	return d <= days[m - 1] + (m == 2 && is_leap(y));
}

/* Counts in 400-year eras that start on March 1st, so that the leap day is
 * the last day of its year (Howard Hinnant's days_from_civil). */
int64_t calendar__days_from_civil(int64_t y, int m, int d)
{
	int64_t era, yoe, doy, doe;

	y -= m <= 2;
	era = (y >= 0 ? y : y - 399) / 400;
	yoe = y - era * 400;
	doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}
