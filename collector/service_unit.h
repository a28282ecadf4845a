/* The system service a process runs in: the systemd unit its cgroup names,
 * when the system manager made that cgroup.
 *
 * Only the system manager's units name services: a unit is the first
 * component of the path that is no slice ("/system.slice/nginx.service",
 * "/system.slice/system-getty.slice/getty@tty1.service", or
 * "/nginx.service" for a unit in the root slice), cgroups only root can
 * make. The user manager's units are under
 * "/user.slice/user-UID.slice/user@UID.service/", where a user creates
 * any unit and any cgroup name ("postgresql.service", "system.slice"),
 * so nothing under user.slice names a service; and below a unit, in a
 * subtree delegated to the service, names are the service's, not units:
 * "/system.slice/a.service/x/b.service" is service a. A scope (a login
 * session, a container) is no service.
 *
 * Of /proc/PID/cgroup's lines only systemd's hierarchies count: the
 * unified one ("0::PATH") and the named one of cgroup v1
 * ("N:name=systemd:PATH"); the controllers' hierarchies of v1 may be
 * arranged by anyone root lets. Thread-safe (no state). */
#ifndef SMOLDER_COLLECTOR_SERVICE_UNIT_H
#define SMOLDER_COLLECTOR_SERVICE_UNIT_H
#include <stddef.h>

/* The service of the text of a /proc/PID/cgroup (len bytes): 0 with
 * *name, *len_out its unit's name without ".service", pointing into text;
 * -ENOENT when no line (ended by a newline) names a system service. */
int service_unit__parse(const char *text, size_t len, const char **name, size_t *len_out);

#endif
