/* common/redact: what of a URL may be logged. */
#include "config.h"

#include <criterion/criterion.h>
#include <string.h>

#include "common/redact.h"

static const char *r(const char *url)
{
	static char buf[256];

	return redact__url(url, buf, sizeof(buf));
}

Test(redact, userinfo_and_query_go)
{
	cr_assert_str_eq(r("https://collector:4040/ingest"), "https://collector:4040/ingest");
	cr_assert_str_eq(r("https://user:s3cret@collector/ingest"), "https://***@collector/ingest");
	cr_assert_str_eq(r("https://u:p@ss@collector:443/x"), "https://***@collector:443/x",
			 "a password holding '@'");
	cr_assert_str_eq(r("http://collector/ingest?api_key=abc&x=1"), "http://collector/ingest?***");
	cr_assert_str_eq(r("http://collector/ingest#frag"), "http://collector/ingest?***");
	cr_assert_str_eq(r("http://k:v@h?t=1"), "http://***@h?***");
	cr_assert_str_eq(r("http://host"), "http://host");
}

Test(redact, not_a_url_is_not_echoed)
{
	cr_assert_str_eq(r("s3cret-token"), "(not a URL)");
	cr_assert_str_eq(r("://x"), "(not a URL)");
	cr_assert_str_eq(r("a b://x"), "(not a URL)");
	cr_assert_str_eq(r(NULL), "(not a URL)");
}

Test(redact, small_buffers_and_detection)
{
	char buf[12];

	redact__url("https://user:pw@host/path", buf, sizeof(buf));
	cr_assert_eq(strlen(buf), sizeof(buf) - 1);
	cr_assert_null(strstr(buf, "pw"));
	cr_assert(redact__url_has_secret("https://a:b@h/"));
	cr_assert(redact__url_has_secret("https://h/?k=v"));
	cr_assert_not(redact__url_has_secret("https://h/path/x"));
	cr_assert_not(redact__url_has_secret("not a url ?k"));
}
