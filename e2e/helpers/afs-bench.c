// SPDX-License-Identifier: GPL-2.0
/*
 * afs-bench: the E2E benchmark workload, timed in-process so that fork and
 * exec costs under emulation do not swamp the filesystem's.
 *
 *	afs-bench <directory> <files> <MiB>
 *
 * Creates, stats, lists and unlinks <files> empty files, then writes and
 * (after dropping the page cache) reads back a <MiB> MiB file sequentially.
 * Prints one "bench: <metric> <value> <unit>" line per figure.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void die(const char *what)
{
	fprintf(stderr, "afs-bench: %s: %s\n", what, strerror(errno));
	exit(1);
}

static void flush_page_cache(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "3", 1) != 1)
		die("dropping the page cache");
	close(fd);
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	char path[4096];
	struct dirent *de;
	struct stat st;
	double t;
	int files, mib, i, fd, seen;
	DIR *dir;

	if (argc != 4) {
		fprintf(stderr, "usage: %s <directory> <files> <MiB>\n", argv[0]);
		return 2;
	}
	files = atoi(argv[2]);
	mib = atoi(argv[3]);

	t = now();
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", argv[1], i);
		fd = open(path, O_CREAT | O_EXCL | O_WRONLY, 0644);
		if (fd < 0 || close(fd) < 0)
			die("create");
	}
	printf("bench: create %.0f ops/s\n", files / (now() - t));

	t = now();
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", argv[1], i);
		if (stat(path, &st) < 0)
			die("stat");
	}
	printf("bench: stat %.0f ops/s\n", files / (now() - t));

	t = now();
	dir = opendir(argv[1]);
	if (!dir)
		die("opendir");
	seen = 0;
	while ((de = readdir(dir)))
		seen += de->d_name[0] == 'f';
	closedir(dir);
	if (seen != files) {
		fprintf(stderr, "afs-bench: readdir saw %d of %d\n", seen, files);
		return 1;
	}
	printf("bench: readdir %.0f entries/s\n", files / (now() - t));

	t = now();
	for (i = 0; i < files; i++) {
		snprintf(path, sizeof(path), "%s/f%d", argv[1], i);
		if (unlink(path) < 0)
			die("unlink");
	}
	printf("bench: unlink %.0f ops/s\n", files / (now() - t));

	memset(buf, 0x5a, sizeof(buf));
	snprintf(path, sizeof(path), "%s/big", argv[1]);
	t = now();
	fd = open(path, O_CREAT | O_TRUNC | O_WRONLY, 0644);
	if (fd < 0)
		die("open for write");
	for (i = 0; i < mib; i++)
		if (write(fd, buf, sizeof(buf)) != sizeof(buf))
			die("write");
	if (fsync(fd) < 0 || close(fd) < 0)
		die("fsync");
	printf("bench: write %.1f MB/s\n", mib * 1.048576 / (now() - t));

	flush_page_cache();
	t = now();
	fd = open(path, O_RDONLY);
	if (fd < 0)
		die("open for read");
	for (i = 0; i < mib; i++)
		if (read(fd, buf, sizeof(buf)) != sizeof(buf))
			die("read");
	close(fd);
	printf("bench: read %.1f MB/s\n", mib * 1.048576 / (now() - t));
	return unlink(path) < 0;
}
