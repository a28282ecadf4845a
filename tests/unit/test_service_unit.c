/* collector/service_unit: which cgroups name a system service. */
#include "config.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "collector/service_unit.h"

/* The service text names, "" for none. */
static const char *service_of(const char *text)
{
	static char out[256];
	const char *name;
	size_t len;

	if (service_unit__parse(text, strlen(text), &name, &len) < 0)
		return "";
	cr_assert_lt(len, sizeof(out));
	memcpy(out, name, len);
	out[len] = '\0';
	return out;
}

Test(service_unit, units_of_the_system_manager)
{
	cr_assert_str_eq(service_of("0::/system.slice/nginx.service\n"), "nginx");
	cr_assert_str_eq(service_of("0::/system.slice/system-getty.slice/getty@tty1.service\n"),
			 "getty@tty1");
	cr_assert_str_eq(service_of("0::/system.slice/postgresql@14-main.service\n"), "postgresql@14-main");
	/* a slice of root's own, the root slice */
	cr_assert_str_eq(service_of("0::/app.slice/api.service\n"), "api");
	cr_assert_str_eq(service_of("0::/worker@1.service\n"), "worker@1");
	/* below the unit, the service's own cgroups (Delegate=yes) */
	cr_assert_str_eq(service_of("0::/system.slice/runner.service/jobs/postgresql.service\n"), "runner");
	/* cgroup v1: systemd's named hierarchy */
	cr_assert_str_eq(service_of("12:pids:/\n11:cpu,cpuacct:/\n1:name=systemd:/system.slice/sshd.service\n"),
			 "sshd");
}

/* What a user makes is no service: anything under user.slice (their own
 * manager's units and cgroups, whatever their names), scopes, the root. */
Test(service_unit, nothing_a_user_can_name)
{
	cr_assert_str_eq(service_of("0::/user.slice/user-1000.slice/user@1000.service/app.slice/postgresql.service\n"), "");
	cr_assert_str_eq(service_of("0::/user.slice/user-1000.slice/user@1000.service/system.slice/postgresql.service\n"), "");
	cr_assert_str_eq(service_of("0::/user.slice/user-1000.slice/session-3.scope\n"), "");
	cr_assert_str_eq(service_of("1:name=systemd:/user.slice/user-1000.slice/user@1000.service/x.service\n"), "");
	cr_assert_str_eq(service_of("0::/machine.slice/machine-web.scope/payload/system.slice/nginx.service\n"), "");
	cr_assert_str_eq(service_of("0::/init.scope\n"), "");
	cr_assert_str_eq(service_of("0::/\n"), "");
	cr_assert_str_eq(service_of("0::/system.slice\n"), "");
	/* a cgroup namespace of ours: paths outside it */
	cr_assert_str_eq(service_of("0::/../../system.slice/nginx.service\n"), "");
	/* the controllers' hierarchies of v1 are not systemd's */
	cr_assert_str_eq(service_of("4:memory:/system.slice/postgresql.service\n0::/user.slice/user-1000.slice/session-2.scope\n"), "");
	cr_assert_str_eq(service_of("0:name=other:/system.slice/a.service\n"), "");
	/* a line the read cut short */
	cr_assert_str_eq(service_of("0::/system.slice/nginx.service"), "");
	cr_assert_str_eq(service_of(""), "");
	cr_assert_str_eq(service_of("garbage\n::\n0:\n"), "");
}
