// SPDX-License-Identifier: GPL-2.0
/*
 * afs-mount: mount(2) an AFS volume, since busybox mount mangles sources
 * that start with '#'.
 *
 *	afs-mount <source> <target>	e.g. afs-mount %test.example:e2e /afs
 */
#include <stdio.h>
#include <string.h>
#include <errno.h>
#include <sys/mount.h>

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s <source> <target>\n", argv[0]);
		return 2;
	}
	if (mount(argv[1], argv[2], "afs", 0, NULL) < 0) {
		fprintf(stderr, "afs-mount: %s on %s: %s\n", argv[1], argv[2],
			strerror(errno));
		return 1;
	}
	return 0;
}
