// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/* Who is recording: the host's identity for the file header, and its addresses as VPR_ADDR records. */
#define _GNU_SOURCE
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "clock.h"
#include "host.h"
#include "output.h"

/* First line of a small file, without the newline; empty if unreadable. */
static void read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");

	buf[0] = '\0';
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

uint32_t current_netns(void)
{
	struct stat st;

	return stat("/proc/self/ns/net", &st) ? 0 : (uint32_t)st.st_ino;
}

void host_identity(struct vpr_file_header *hdr, const char *label, uint32_t netns)
{
	struct utsname u;

	memset(hdr, 0, sizeof(*hdr));
	hdr->start_mono_ns = mono_ns();
	hdr->start_real_ns = real_ns();
	hdr->netns = netns;
	if (uname(&u) == 0) {
		snprintf(hdr->hostname, sizeof(hdr->hostname), "%.63s", u.nodename);
		snprintf(hdr->kernel, sizeof(hdr->kernel), "%.63s", u.release);
	}
	if (label) {
		memset(hdr->hostname, 0, sizeof(hdr->hostname));
		snprintf(hdr->hostname, sizeof(hdr->hostname), "%.63s", label);
	}
	read_line("/etc/machine-id", hdr->machine_id, sizeof(hdr->machine_id));
	read_line("/proc/sys/kernel/random/boot_id", hdr->boot_id, sizeof(hdr->boot_id));
}

static unsigned prefix_len(const unsigned char *mask, size_t n)
{
	unsigned bits = 0;

	for (size_t i = 0; i < n; i++)
		bits += (unsigned)__builtin_popcount(mask[i]);
	return bits;
}

int host_write_addresses(struct output *out, uint32_t netns, uint64_t ts)
{
	struct ifaddrs *ifs, *ifa;
	int err = 0;

	if (getifaddrs(&ifs))
		return -errno;
	for (ifa = ifs; ifa && !err; ifa = ifa->ifa_next) {
		struct vpr_addr a;

		if (!ifa->ifa_addr)
			continue;
		memset(&a, 0, sizeof(a));
		a.h.type = VPR_ADDR;
		a.h.size = sizeof(a);
		a.h.ts_ns = ts ? ts : mono_ns();
		a.netns = netns;
		a.ifindex = if_nametoindex(ifa->ifa_name);
		if (ifa->ifa_addr->sa_family == AF_INET) {
			const struct sockaddr_in *sin = (const void *)ifa->ifa_addr;
			const struct sockaddr_in *mask = (const void *)ifa->ifa_netmask;

			a.family = AF_INET;
			memcpy(a.addr, &sin->sin_addr, 4);
			a.prefixlen = mask ? prefix_len((const void *)&mask->sin_addr, 4) : 32;
		} else if (ifa->ifa_addr->sa_family == AF_INET6) {
			const struct sockaddr_in6 *sin6 = (const void *)ifa->ifa_addr;
			const struct sockaddr_in6 *mask = (const void *)ifa->ifa_netmask;

			a.family = AF_INET6;
			memcpy(a.addr, &sin6->sin6_addr, 16);
			a.prefixlen = mask ? prefix_len((const void *)&mask->sin6_addr, 16) : 128;
		} else {
			continue;
		}
		err = output__append(out, &a);
	}
	freeifaddrs(ifs);
	return err;
}
