// SPDX-License-Identifier: GPL-2.0
/*
 * mkwrite-wait: fault on a shared-writable page while it is being stored.
 *
 *	mkwrite-wait <file>
 *
 * Maps the first page of <file> shared and writable and stores to it, forks
 * a child that fsync()s the file (so the page goes under writeback; with the
 * fileserver stopped the store waits), and a second later stores to the page
 * again: the fault waits in page_mkwrite for the store to end.  Run it in
 * the background, kill it with SIGKILL while it waits, and it must go away.
 * The child exits when its fsync() returns, printing what it said.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	volatile char *p;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: %s <file>\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR);
	if (fd < 0) {
		perror("mkwrite-wait: open");
		return 1;
	}
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mkwrite-wait: mmap");
		return 1;
	}
	p[0] = 'a';
	if (fork() == 0) {
		int ret = fsync(fd);

		printf("mkwrite-wait: child fsync: %s\n", ret ? strerror(errno) : "ok");
		_exit(0);
	}
	sleep(1);
	printf("mkwrite-wait: storing again\n");
	fflush(stdout);
	p[0] = 'b';
	printf("mkwrite-wait: stored\n");
	return 0;
}
