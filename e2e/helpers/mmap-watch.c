// SPDX-License-Identifier: GPL-2.0
/*
 * mmap-watch: wait for a change to show through a shared mapping.
 *
 *	mmap-watch <file> <offset> <text> <seconds> <ready file>
 *
 * Maps the whole file MAP_SHARED and read-only, reads it through the
 * mapping (so that its pages are mapped), creates <ready file>, then looks
 * every 50 ms, for at most <seconds>, for <text> at <offset>, always through
 * the same mapping.  Exits 0 when it shows, 1 with what was there if it does
 * not; the file is never read any other way.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "mmap-watch: %s: %s\n", what, strerror(errno));
	return 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile const char *p;
	unsigned long sum = 0;
	double start, limit;
	struct stat st;
	size_t off, len, i;
	char seen[64];
	int fd;

	if (argc != 6) {
		fprintf(stderr, "usage: %s <file> <offset> <text> <seconds> <ready file>\n",
			argv[0]);
		return 2;
	}
	off = strtoul(argv[2], NULL, 0);
	len = strlen(argv[3]);
	limit = strtod(argv[4], NULL);
	if (len == 0 || len >= sizeof(seen)) {
		fprintf(stderr, "mmap-watch: text of 1 to %zu bytes\n", sizeof(seen) - 1);
		return 2;
	}

	fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return fail("open");
	if (fstat(fd, &st) < 0)
		return fail("fstat");
	if (off + len > (size_t)st.st_size) {
		fprintf(stderr, "mmap-watch: text beyond the end of the file\n");
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return fail("mmap");
	for (i = 0; i < (size_t)st.st_size; i++)
		sum += p[i];
	if (close(open(argv[5], O_WRONLY | O_CREAT, 0644)) < 0)
		return fail("ready file");

	start = now();
	for (;;) {
		for (i = 0; i < len; i++)
			seen[i] = p[off + i];
		seen[len] = 0;
		if (memcmp(seen, argv[3], len) == 0) {
			printf("mmap-watch: seen after %.2f s\n", now() - start);
			return 0;
		}
		if (now() - start > limit)
			break;
		usleep(50000);
	}
	printf("mmap-watch: after %.1f s, still \"%s\" at %zu (sum %lu)\n",
	       now() - start, seen, off, sum);
	return 1;
}
