// SPDX-License-Identifier: GPL-2.0
/*
 * slow-read: copy a file to stdout a chunk at a time with a pause between
 * chunks, so that something can happen to its server in the middle.  Every
 * chunk is read in full (short reads are continued), and a read error stops
 * it with the error's message.
 *
 *	slow-read <file> <chunk bytes> <pause ms>
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct timespec pause;
	size_t chunk;
	char *buf;
	int fd;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <file> <chunk bytes> <pause ms>\n", argv[0]);
		return 2;
	}
	chunk = strtoul(argv[2], NULL, 0);
	pause.tv_sec = atoi(argv[3]) / 1000;
	pause.tv_nsec = (atoi(argv[3]) % 1000) * 1000000L;
	buf = malloc(chunk);
	fd = open(argv[1], O_RDONLY);
	if (!buf || !chunk || fd < 0) {
		fprintf(stderr, "slow-read: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}

	for (;;) {
		size_t got = 0;
		ssize_t n = 0;

		while (got < chunk) {
			n = read(fd, buf + got, chunk - got);
			if (n <= 0)
				break;
			got += n;
		}
		if (n < 0) {
			fprintf(stderr, "slow-read: %s: %s\n", argv[1], strerror(errno));
			return 1;
		}
		if (got && fwrite(buf, 1, got, stdout) != got)
			return 1;
		if (got < chunk)
			return fflush(stdout) ? 1 : 0;
		nanosleep(&pause, NULL);
	}
}
