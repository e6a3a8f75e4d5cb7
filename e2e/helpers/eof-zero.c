// SPDX-License-Identifier: GPL-2.0
/*
 * eof-zero: bytes a shared mapping wrote past the end of a file read back
 * as zeros once the file grows over them, from the page cache and from
 * the server.
 *
 *	eof-zero <file> <size> truncate|write <new size> [live]
 *
 * Writes <size> bytes of 'a' to a new <file> and stores them (fsync), maps
 * its last page MAP_SHARED and fills what lies past the end of the file in
 * that page with 0xee.  POSIX has those bytes read as zeros and never
 * written to the file.  The mapping is msync()ed and unmapped, or with
 * "live" kept, dirty, until the end.  Then the file grows to <new size>, by
 * ftruncate() or by writing one byte ('b') at <new size> - 1, and the page
 * is read back: the first <size> bytes must be 'a', the rest up to the new
 * size zeros.  It is read again after an fsync() and dropping the caches,
 * which reads the server's copy.  Reports, for each read, the first wrong
 * byte and how many there are.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static int fail(const char *what)
{
	fprintf(stderr, "eof-zero: %s: %s\n", what, strerror(errno));
	return 1;
}

static int short_io(const char *what, ssize_t n)
{
	if (n < 0)
		return fail(what);
	fprintf(stderr, "eof-zero: %s: %zd bytes\n", what, n);
	return 1;
}

/* Read the page at @base back and check it; 0 if it is right. */
static int check_page(int fd, unsigned char *buf, size_t page, size_t base,
		      size_t size, size_t new_size, int by_write, const char *when)
{
	size_t i, end, bad = 0, first = 0;
	ssize_t n;

	end = new_size - base < page ? new_size - base : page;
	n = pread(fd, buf, page, base);
	if (n < 0 || (size_t)n < end)
		return short_io("pread of the page", n);
	for (i = 0; i < end; i++) {
		unsigned char want = base + i < size ? 'a' : 0;

		if (by_write && base + i == new_size - 1)
			want = 'b';
		if (buf[i] != want && !bad++)
			first = i;
	}
	if (!bad)
		return 0;
	fprintf(stderr, "eof-zero: %s: %zu wrong bytes, the first at %zu: 0x%02x\n",
		when, bad, base + first, buf[first]);
	return 1;
}

int main(int argc, char **argv)
{
	size_t page = sysconf(_SC_PAGESIZE), size, new_size, base;
	int by_write, live, fd, dc, bad;
	unsigned char *buf, *map;
	ssize_t n;

	if ((argc != 5 && argc != 6) ||
	    (strcmp(argv[3], "truncate") && strcmp(argv[3], "write")) ||
	    (argc == 6 && strcmp(argv[5], "live"))) {
		fprintf(stderr, "usage: %s <file> <size> truncate|write <new size> [live]\n",
			argv[0]);
		return 2;
	}
	size = strtoul(argv[2], NULL, 0);
	new_size = strtoul(argv[4], NULL, 0);
	by_write = !strcmp(argv[3], "write");
	live = argc == 6;
	if (size % page == 0 || new_size <= size) {
		fprintf(stderr, "eof-zero: <size> must end inside a page, <new size> beyond it\n");
		return 2;
	}
	buf = malloc(size > page ? size : page);
	if (!buf)
		return fail("malloc");
	memset(buf, 'a', size);

	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fail("open");
	n = pwrite(fd, buf, size, 0);
	if (n != (ssize_t)size)
		return short_io("pwrite", n);
	if (fsync(fd) < 0)
		return fail("fsync");

	base = size / page * page;
	map = mmap(NULL, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, base);
	if (map == MAP_FAILED)
		return fail("mmap");
	memset(map + size - base, 0xee, page - (size - base));
	if (!live) {
		if (msync(map, page, MS_SYNC) < 0)
			return fail("msync");
		if (munmap(map, page) < 0)
			return fail("munmap");
	}

	if (!by_write) {
		if (ftruncate(fd, new_size) < 0)
			return fail("ftruncate");
	} else {
		n = pwrite(fd, "b", 1, new_size - 1);
		if (n != 1)
			return short_io("pwrite at the new end", n);
	}

	/* Both reads are checked and reported, whatever the first shows. */
	bad = check_page(fd, buf, page, base, size, new_size, by_write,
			 "from the page cache");
	if (live && munmap(map, page) < 0)
		return fail("munmap");
	if (fsync(fd) < 0)
		return fail("fsync after growing");
	dc = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (dc < 0 || write(dc, "3", 1) != 1 || close(dc) < 0)
		return fail("drop_caches");
	bad |= check_page(fd, buf, page, base, size, new_size, by_write,
			  "from the server");
	if (close(fd) < 0)
		return fail("close");
	return bad;
}
