// SPDX-License-Identifier: GPL-2.0
/*
 * afs-pwrite: write a file's content into another at an offset, then fsync.
 *
 *	afs-pwrite <file> <offset> <source>
 *
 * Opens <file> (creating it), pwrite()s all of <source> at <offset> and
 * fsync()s.  Prints what fsync() said.  Exits 0 if everything succeeded,
 * 3 if only fsync() failed (its error printed), 1 on any other failure.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	off_t off, done = 0;
	ssize_t n;
	int fd, src;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <file> <offset> <source>\n", argv[0]);
		return 2;
	}
	off = strtoll(argv[2], NULL, 0);
	fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	src = open(argv[3], O_RDONLY);
	if (fd < 0 || src < 0) {
		perror("afs-pwrite: open");
		return 1;
	}
	while ((n = read(src, buf, sizeof(buf))) > 0) {
		ssize_t w = 0;

		while (w < n) {
			ssize_t r = pwrite(fd, buf + w, n - w, off + done + w);

			if (r <= 0) {
				fprintf(stderr, "afs-pwrite: pwrite: %s\n",
					r < 0 ? strerror(errno) : "wrote nothing");
				return 1;
			}
			w += r;
		}
		done += n;
	}
	if (n < 0) {
		perror("afs-pwrite: read");
		return 1;
	}
	if (fsync(fd) < 0) {
		printf("fsync: %s\n", strerror(errno));
		close(fd);
		return 3;
	}
	printf("fsync: ok\n");
	if (close(fd) < 0) {
		printf("close: %s\n", strerror(errno));
		return 3;
	}
	return 0;
}
