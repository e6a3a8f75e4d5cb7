// SPDX-License-Identifier: GPL-2.0
/*
 * fd-getlk: ask F_GETLK about a read lock over the whole of an inherited
 * descriptor's file.
 *
 *	fd-getlk <fd>
 *
 * The descriptor is used as it is, not reopened by a path: a directory
 * renamed over can no longer be opened.  With no local lock in the way,
 * kAFS asks the fileserver for the vnode's status to answer.  Prints the
 * answer's lock type; exits 1 with the error if fcntl() fails.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };

	if (argc != 2) {
		fprintf(stderr, "usage: fd-getlk <fd>\n");
		return 2;
	}
	if (fcntl(atoi(argv[1]), F_GETLK, &fl) < 0) {
		fprintf(stderr, "fd-getlk: F_GETLK: %s\n", strerror(errno));
		return 1;
	}
	printf("F_GETLK: %s\n", fl.l_type == F_UNLCK ? "unlocked" :
	       fl.l_type == F_RDLCK ? "read lock" : "write lock");
	return 0;
}
