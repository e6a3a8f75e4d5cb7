// SPDX-License-Identifier: GPL-2.0
/*
 * trunc-mmap-race: shared-writable mmap stores racing truncation.
 *
 *	trunc-mmap-race <file> <seconds>
 *
 * A child stores to random bytes of a 1 MiB shared mapping of <file> while
 * the parent truncates the file to random sizes and back, for <seconds>.
 * A store beyond the end of the file raises SIGBUS, which the child expects
 * and counts.  Afterwards the file is set to a known content through write(),
 * fsync()ed, and read back after dropping the page cache: it must match.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SIZE (1 << 20)

static sigjmp_buf env;

static void on_sigbus(int sig)
{
	siglongjmp(env, 1);
}

static int fail(const char *what)
{
	fprintf(stderr, "trunc-mmap-race: %s: %s\n", what, strerror(errno));
	return 1;
}

static void child(int fd)
{
	volatile unsigned long sigbus = 0, stores = 0;
	struct sigaction sa = { .sa_handler = on_sigbus };
	volatile char *p;

	sigaction(SIGBUS, &sa, NULL);
	p = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		_exit(fail("mmap"));
	srandom(getpid());
	for (;;) {
		if (sigsetjmp(env, 1))
			sigbus++;
		p[random() % SIZE] = random();
		if (++stores % 4096 == 0)
			msync((void *)p, SIZE, MS_SYNC);
	}
}

int main(int argc, char **argv)
{
	static char want[SIZE], got[SIZE];
	time_t end;
	pid_t pid;
	int fd, dc, i, rounds;
	ssize_t n;

	if (argc != 3) {
		fprintf(stderr, "usage: %s <file> <seconds>\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, SIZE) < 0)
		return fail("create");

	pid = fork();
	if (pid == 0)
		child(fd);
	srandom(1);
	end = time(NULL) + atoi(argv[2]);
	for (rounds = 0; time(NULL) < end; rounds++) {
		if (ftruncate(fd, random() % SIZE) < 0 || ftruncate(fd, SIZE) < 0)
			return fail("ftruncate");
		usleep(random() % 20000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);

	for (i = 0; i < SIZE; i++)
		want[i] = i * 7 + 3;
	if (pwrite(fd, want, SIZE, 0) != SIZE || fsync(fd) < 0)
		return fail("write the known content");
	close(fd);
	dc = open("/proc/sys/vm/drop_caches", O_WRONLY);
	if (dc < 0 || write(dc, "3\n", 2) != 2)
		return fail("drop_caches");
	close(dc);
	fd = open(argv[1], O_RDONLY);
	n = fd < 0 ? -1 : pread(fd, got, SIZE, 0);
	if (n != SIZE)
		return fail("read back");
	if (memcmp(want, got, SIZE)) {
		for (i = 0; i < SIZE && want[i] == got[i]; i++)
			;
		fprintf(stderr, "trunc-mmap-race: differs from offset %d\n", i);
		return 1;
	}
	printf("trunc-mmap-race: %d rounds of truncation raced the stores; content intact\n",
	       rounds);
	return 0;
}
