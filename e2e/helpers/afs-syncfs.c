// SPDX-License-Identifier: GPL-2.0
/*
 * afs-syncfs: syncfs() the filesystem that holds a file, and say what it
 * returned.
 *
 *	afs-syncfs <file>
 *
 * Prints "syncfs: ok" or "syncfs: errno N (text)"; exits 0 on success, 3
 * if syncfs() failed, 1 if the file could not be opened.  (Busybox's
 * "sync -f" here exits 0 whatever syncfs() says.)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <file>\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0) {
		perror("afs-syncfs: open");
		return 1;
	}
	if (syncfs(fd) < 0) {
		printf("syncfs: errno %d (%s)\n", errno, strerror(errno));
		return 3;
	}
	printf("syncfs: ok\n");
	return 0;
}
