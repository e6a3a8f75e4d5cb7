// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-write: change a file through a shared writable mapping.
 *
 *	mmap-write <file> <offset> <text>
 *
 * Maps the whole file MAP_SHARED, copies <text> in at <offset>, msync()s
 * and munmap()s it.  Every step's failure is reported and fails the run.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "mmap-write: %s: %s\n", what, strerror(errno));
	return 1;
}

int main(int argc, char **argv)
{
	struct stat st;
	size_t off, len;
	char *p;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <file> <offset> <text>\n", argv[0]);
		return 2;
	}
	off = strtoul(argv[2], NULL, 0);
	len = strlen(argv[3]);

	fd = open(argv[1], O_RDWR);
	if (fd < 0)
		return fail("open");
	if (fstat(fd, &st) < 0)
		return fail("fstat");
	if (off + len > (size_t)st.st_size) {
		fprintf(stderr, "mmap-write: text beyond the end of the file\n");
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	memcpy(p + off, argv[3], len);
	if (msync(p, st.st_size, MS_SYNC) < 0)
		return fail("msync");
	if (munmap(p, st.st_size) < 0)
		return fail("munmap");
	if (close(fd) < 0)
		return fail("close");
	return 0;
}
