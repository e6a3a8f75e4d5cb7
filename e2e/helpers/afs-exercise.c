// SPDX-License-Identifier: GPL-2.0
/*
 * afs-exercise: seeded random file operations checked against a shadow copy.
 *
 *	afs-exercise [options] <dir>
 *	  -s SEED	the seed (default 1)
 *	  -n OPS	operations per process (default 1000)
 *	  -m MODE	single	one process, one file (default)
 *			multi	-p processes, one file each
 *			shared	-p processes on one file, each owning the
 *				stripes (of -w bytes, not page-aligned) whose
 *				index modulo -p is its own, and one more
 *				process calling sync() in a loop
 *	  -p PROCS	processes for multi and shared (default 2)
 *	  -z BYTES	largest file size (default 8 MiB)
 *	  -w BYTES	stripe width for shared (default 10007)
 *	  -k		keep the page cache at the end (for a local
 *			filesystem, to check the exerciser itself)
 *	  -v		print every operation
 *	  -r		try a call that timed out again, once a second for up
 *			to two minutes, as an application may: for runs with
 *			the fileserver stopped for longer than a call's
 *			timeout.  A call that times out fails with ETIME or
 *			ETIMEDOUT, or with ECONNRESET when rxrpc has heard
 *			from the server on the call's connection since the
 *			call's own last packet (it takes the server to have
 *			forgotten the call); stock 6.1 does the same.
 *			Every call tried again is idempotent or did nothing
 *			(a write that fails copied nothing), so the shadow
 *			holds either way.
 *	  -T		write every operation to the kernel's trace buffer
 *			(tracefs trace_marker), to read beside kAFS's
 *			tracepoints
 *
 * Each process keeps, for every byte of its file, the value it must read
 * back and the number of the operation that wrote it.  Operations: write and
 * pwrite (1 byte to 1 MiB, unaligned), extending and shrinking ftruncate,
 * read, mmap read, shared-writable mmap stores with or without msync,
 * fsync, sync_file_range over an unaligned range, and close and reopen.
 * Every read is checked against the shadow.
 * At the end each file is fsync'd and closed, the page cache dropped, and the
 * file read back from the server and checked again.
 *
 * On a mismatch it prints the seed, mode, process, operation number, the
 * first differing offset, what was expected and who wrote it, how many bytes
 * differ and in which pages, and the last operations; it exits 1.  Any
 * failing system call also exits 1, naming the call.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define HISTORY	16
#define PAGE	4096UL

enum op {
	OP_PWRITE, OP_APPEND, OP_TRUNC_UP, OP_TRUNC_DOWN, OP_READ,
	OP_MMAP_READ, OP_MMAP_WRITE, OP_FSYNC, OP_SYNC_RANGE, OP_REOPEN, NR_OPS
};

static const char *const op_names[NR_OPS] = {
	"pwrite", "append", "ftruncate-up", "ftruncate-down", "read",
	"mmap-read", "mmap-write", "fsync", "sync_file_range", "reopen",
};

/* How often each operation is picked, out of the sum. */
static const unsigned int op_weight[NR_OPS] = {
	[OP_PWRITE] = 30, [OP_APPEND] = 10, [OP_TRUNC_UP] = 4,
	[OP_TRUNC_DOWN] = 4, [OP_READ] = 20, [OP_MMAP_READ] = 8,
	[OP_MMAP_WRITE] = 12, [OP_FSYNC] = 6, [OP_SYNC_RANGE] = 4,
	[OP_REOPEN] = 6,
};

struct history {
	unsigned long	nr;
	enum op		op;
	size_t		off, len;
};

struct proc {
	const char	*mode;
	unsigned long	seed;
	int		index;		/* This process's number */
	int		nr_procs;	/* Owners of stripes (shared) */
	size_t		stripe;		/* Stripe width (shared) */
	bool		shared;		/* Stripes of a common file */
	char		path[4096];
	int		fd;
	uint64_t	rng;
	size_t		max_size;
	size_t		size;		/* The file's size, as we made it */
	unsigned char	*data;		/* What each byte must read back as */
	uint32_t	*writer;	/* Which operation wrote it (0: none) */
	unsigned char	*buf;
	unsigned long	nr;		/* The current operation */
	struct history	hist[HISTORY];
	unsigned long	bytes_written, bytes_checked;
	bool		verbose;
	bool		keep_caches;
	bool		retry;		/* -r */
	unsigned int	retries;	/* Calls tried again after a timeout */
	int		marker_fd;	/* trace_marker, or -1 */
};

static struct proc *me;

static void history_dump(void)
{
	unsigned long i, first = me->nr >= HISTORY ? me->nr - HISTORY + 1 : 1;

	fprintf(stderr, "last operations of process %d:\n", me->index);
	for (i = first; i <= me->nr; i++) {
		const struct history *h = &me->hist[i % HISTORY];

		if (h->nr == i)
			fprintf(stderr, "  op %lu: %s %zu+%zu\n",
				h->nr, op_names[h->op], h->off, h->len);
	}
}

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "afs-exercise: seed %lu mode %s process %d op %lu: ",
		me->seed, me->mode, me->index, me->nr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	history_dump();
	exit(1);
}

static void __attribute__((noreturn)) die_errno(const char *call)
{
	die("%s: %s", call, strerror(errno));
}

/* xorshift64*: small, fast, and the same everywhere. */
static uint64_t rnd(void)
{
	me->rng ^= me->rng >> 12;
	me->rng ^= me->rng << 25;
	me->rng ^= me->rng >> 27;
	return me->rng * 0x2545F4914F6CDD1DULL;
}

static size_t rnd_below(size_t n)
{
	return n ? rnd() % n : 0;
}

/* A length from 1 byte to 1 MiB, evenly spread over the orders of size. */
static size_t rnd_len(void)
{
	size_t order = rnd_below(21);

	return (1UL << order) + rnd_below(1UL << order);
}

static bool owned(size_t off)
{
	return !me->shared || (off / me->stripe) % me->nr_procs == (size_t)me->index;
}

/* Fill @len bytes at @off of the shadow (and @buf) with fresh values,
 * skipping bytes other processes own.
 */
static void fill(unsigned char *buf, size_t off, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++) {
		unsigned char c = rnd();

		if (!owned(off + i))
			continue;
		buf[i] = c;
		me->data[off + i] = c;
		me->writer[off + i] = me->nr;
	}
}

/* Compare @len bytes read at @off with the shadow; bytes other processes
 * own are not ours to check.
 */
static void compare(const unsigned char *got, size_t off, size_t len,
		    const char *how)
{
	size_t i, first = SIZE_MAX, nr_bad = 0;
	long last_page = -1;

	for (i = 0; i < len; i++) {
		if (!owned(off + i) || got[i] == me->data[off + i])
			continue;
		if (first == SIZE_MAX)
			first = i;
		nr_bad++;
	}
	me->bytes_checked += len;
	if (first == SIZE_MAX)
		return;

	fprintf(stderr, "afs-exercise: %s of %zu+%zu: %zu bytes differ, in pages:",
		how, off, len, nr_bad);
	for (i = first; i < len; i++) {
		if (!owned(off + i) || got[i] == me->data[off + i])
			continue;
		if ((long)((off + i) / PAGE) != last_page) {
			last_page = (off + i) / PAGE;
			fprintf(stderr, " %ld", last_page);
		}
	}
	fputc('\n', stderr);
	die("first difference at offset %zu (page %zu + %zu): read 0x%02x, expected 0x%02x written by op %u",
	    off + first, (off + first) / PAGE, (off + first) % PAGE,
	    got[first], me->data[off + first], me->writer[off + first]);
}

static void record(enum op op, size_t off, size_t len)
{
	struct history *h = &me->hist[me->nr % HISTORY];

	h->nr = me->nr;
	h->op = op;
	h->off = off;
	h->len = len;
	if (me->verbose)
		fprintf(stderr, "p%d op %lu: %s %zu+%zu (size %zu)\n",
			me->index, me->nr, op_names[op], off, len, me->size);
	if (me->marker_fd >= 0)
		dprintf(me->marker_fd, "afs-exercise p%d op %lu: %s %zx+%zx (size %zx)\n",
			me->index, me->nr, op_names[op], off, len, me->size);
}

static void do_open(void)
{
	me->fd = open(me->path, O_RDWR | O_CREAT, 0644);
	if (me->fd < 0)
		die_errno("open");
}

/* -r: whether to try a call that just failed again. */
static bool retry_timeout(void)
{
	if (!me->retry ||
	    (errno != ETIME && errno != ETIMEDOUT && errno != ECONNRESET) ||
	    me->retries >= 120)
		return false;
	me->retries++;
	sleep(1);
	return true;
}

static void pwrite_all(const unsigned char *buf, size_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pwrite(me->fd, buf + done, len - done, off + done);

		if (n < 0 && retry_timeout())
			continue;
		if (n < 0)
			die_errno("pwrite");
		if (n == 0)
			die("pwrite wrote nothing at %zu", off + done);
		done += n;
	}
}

static void pread_all(unsigned char *buf, size_t off, size_t len)
{
	size_t done = 0;

	while (done < len) {
		ssize_t n = pread(me->fd, buf + done, len - done, off + done);

		if (n < 0 && retry_timeout())
			continue;
		if (n < 0)
			die_errno("pread");
		if (n == 0)
			die("read ends early at %zu; expected size %zu", off + done, me->size);
		done += n;
	}
}

/* In shared mode, writes go through the stripes we own only: one pwrite per
 * owned run, so another process's bytes are never written by us.
 */
static void write_owned(size_t off, size_t len)
{
	size_t end = off + len;

	fill(me->buf, off, len);
	while (off < end) {
		size_t run = end - off;

		if (me->shared) {
			size_t stripe_end = (off / me->stripe + 1) * me->stripe;

			if (!owned(off)) {
				off = stripe_end;
				continue;
			}
			if (stripe_end < end)
				run = stripe_end - off;
		}
		pwrite_all(me->buf + (off - (end - len)), off, run);
		me->bytes_written += run;
		off += run;
	}
}

/* A new size: the bytes between the old and new end read as zeros. */
static void resize(size_t size)
{
	if (size > me->size) {
		memset(me->data + me->size, 0, size - me->size);
		memset(me->writer + me->size, 0, (size - me->size) * sizeof(uint32_t));
	}
	me->size = size;
}

static void op_write(enum op op)
{
	size_t len = rnd_len(), off;

	if (op == OP_APPEND)
		off = me->size;
	else
		off = rnd_below(me->size + PAGE);
	if (off >= me->max_size)
		off = rnd_below(me->max_size);
	if (off + len > me->max_size)
		len = me->max_size - off;
	if (!len)
		return;
	record(op, off, len);
	if (off + len > me->size)
		resize(off + len);
	write_owned(off, len);
}

static void op_truncate(enum op op)
{
	size_t size;

	if (op == OP_TRUNC_UP)
		size = me->size + rnd_below(me->max_size - me->size + 1);
	else
		size = rnd_below(me->size + 1);
	record(op, size, 0);
	while (ftruncate(me->fd, size) < 0)
		if (!retry_timeout())
			die_errno("ftruncate");
	if (size < me->size)
		me->size = size;
	else
		resize(size);
}

static void op_read(void)
{
	size_t off = rnd_below(me->size), len = rnd_len();

	if (!me->size)
		return;
	if (off + len > me->size)
		len = me->size - off;
	record(OP_READ, off, len);
	pread_all(me->buf, off, len);
	compare(me->buf, off, len, "read");
}

static void op_mmap(enum op op)
{
	size_t off, len, map_off, map_len, i;
	unsigned char *p;

	if (!me->size)
		return;
	off = rnd_below(me->size);
	len = rnd_len();
	if (off + len > me->size)
		len = me->size - off;
	record(op, off, len);

	map_off = off & ~(PAGE - 1);
	map_len = off + len - map_off;
	p = mmap(NULL, map_len, PROT_READ | (op == OP_MMAP_WRITE ? PROT_WRITE : 0),
		 MAP_SHARED, me->fd, map_off);
	if (p == MAP_FAILED)
		die_errno("mmap");

	if (op == OP_MMAP_READ) {
		compare(p + (off - map_off), off, len, "mmap read");
	} else {
		fill(me->buf, off, len);
		for (i = 0; i < len; i++)
			if (owned(off + i))
				p[off - map_off + i] = me->buf[i];
		me->bytes_written += len;
		switch (rnd_below(3)) {
		case 0:
			while (msync(p, map_len, MS_SYNC) < 0)
				if (!retry_timeout())
					die_errno("msync");
			break;
		case 1:
			if (msync(p, map_len, MS_ASYNC) < 0)
				die_errno("msync");
			break;
		default:
			break;	/* munmap alone: writeback picks it up */
		}
	}
	if (munmap(p, map_len) < 0)
		die_errno("munmap");
}

static void op_fsync(void)
{
	record(OP_FSYNC, 0, 0);
	while (fsync(me->fd) < 0)
		if (!retry_timeout())
			die_errno("fsync");
}

/* Write back an unaligned part of the file, and wait for it. */
static void op_sync_range(void)
{
	size_t off = rnd_below(me->size + 1), len = rnd_len();

	record(OP_SYNC_RANGE, off, len);
	while (sync_file_range(me->fd, off, len, SYNC_FILE_RANGE_WAIT_BEFORE |
			       SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) < 0)
		if (!retry_timeout())
			die_errno("sync_file_range");
}

static void op_reopen(void)
{
	record(OP_REOPEN, 0, 0);
	if (close(me->fd) < 0)
		die_errno("close");
	do_open();
}

static void check_size(const char *when)
{
	struct stat st;

	if (fstat(me->fd, &st) < 0)
		die_errno("fstat");
	if ((size_t)st.st_size != me->size)
		die("%s: size %lld, expected %zu", when, (long long)st.st_size, me->size);
}

static void drop_caches(void)
{
	int fd = open("/proc/sys/vm/drop_caches", O_WRONLY);

	sync();
	if (fd < 0 || write(fd, "3\n", 2) != 2)
		die_errno("drop_caches");
	close(fd);
}

/* The whole file, read back after the page cache was dropped: the server's
 * copy.
 */
static void final_check(void)
{
	size_t off;

	me->nr++;
	record(OP_FSYNC, 0, 0);
	while (fsync(me->fd) < 0)
		if (!retry_timeout())
			die_errno("final fsync");
	if (close(me->fd) < 0)
		die_errno("final close");
	if (!me->keep_caches)
		drop_caches();
	do_open();
	check_size("after dropping caches");
	for (off = 0; off < me->size; off += 1 << 20) {
		size_t len = me->size - off < (1 << 20) ? me->size - off : (1 << 20);

		pread_all(me->buf, off, len);
		compare(me->buf, off, len, "read after dropping caches");
	}
	close(me->fd);
}

static int run(unsigned long nr_ops)
{
	unsigned int total = 0, pick;
	int op;

	for (op = 0; op < NR_OPS; op++)
		total += op_weight[op];

	me->data = calloc(me->max_size, 1);
	me->writer = calloc(me->max_size, sizeof(uint32_t));
	me->buf = malloc(me->max_size > (2 << 20) ? me->max_size : (2 << 20));
	if (!me->data || !me->writer || !me->buf)
		die("out of memory");

	do_open();
	if (me->shared) {
		/* The file was made by the parent at its full size. */
		me->size = me->max_size;
	} else if (ftruncate(me->fd, 0) < 0) {
		die_errno("ftruncate");
	}

	for (me->nr = 1; me->nr <= nr_ops; me->nr++) {
		pick = rnd_below(total);
		for (op = 0; pick >= op_weight[op]; op++)
			pick -= op_weight[op];
		/* Stripes share one size: nobody changes it. */
		if (me->shared && (op == OP_APPEND || op == OP_TRUNC_UP ||
				   op == OP_TRUNC_DOWN))
			op = OP_PWRITE;

		switch (op) {
		case OP_PWRITE:
		case OP_APPEND:
			op_write(op);
			break;
		case OP_TRUNC_UP:
		case OP_TRUNC_DOWN:
			op_truncate(op);
			break;
		case OP_READ:
			op_read();
			break;
		case OP_MMAP_READ:
		case OP_MMAP_WRITE:
			op_mmap(op);
			break;
		case OP_FSYNC:
			op_fsync();
			break;
		case OP_SYNC_RANGE:
			op_sync_range();
			break;
		case OP_REOPEN:
			op_reopen();
			break;
		}
		if (!me->shared && rnd_below(16) == 0)
			check_size("during the run");
	}
	final_check();
	if (me->retries)
		printf("afs-exercise: process %d tried %u calls again after a timeout\n",
		       me->index, me->retries);
	return 0;
}

static pid_t spawn(struct proc *p, unsigned long nr_ops)
{
	pid_t pid = fork();

	if (pid < 0) {
		perror("afs-exercise: fork");
		exit(1);
	}
	if (pid == 0) {
		me = p;
		exit(run(nr_ops));
	}
	return pid;
}

int main(int argc, char **argv)
{
	struct proc base = { .mode = "single", .seed = 1, .nr_procs = 2,
			     .stripe = 10007, .max_size = 8 << 20,
			     .marker_fd = -1 };
	unsigned long nr_ops = 1000;
	int opt, i, nr, failed = 0, status;
	pid_t pids[64], syncer = 0;
	struct proc *procs;

	me = &base;
	while ((opt = getopt(argc, argv, "s:n:m:p:z:w:krvT")) != -1) {
		switch (opt) {
		case 's':
			base.seed = strtoul(optarg, NULL, 0);
			break;
		case 'n':
			nr_ops = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			base.mode = optarg;
			break;
		case 'p':
			base.nr_procs = atoi(optarg);
			break;
		case 'z':
			base.max_size = strtoul(optarg, NULL, 0);
			break;
		case 'w':
			base.stripe = strtoul(optarg, NULL, 0);
			break;
		case 'k':
			base.keep_caches = true;
			break;
		case 'r':
			base.retry = true;
			break;
		case 'v':
			base.verbose = true;
			break;
		case 'T':
			base.marker_fd = open("/sys/kernel/tracing/trace_marker", O_WRONLY);
			if (base.marker_fd < 0) {
				perror("afs-exercise: trace_marker");
				return 1;
			}
			break;
		default:
			fprintf(stderr, "usage: %s [-s seed] [-n ops] [-m single|multi|shared] [-p procs] [-z max size] [-w stripe] [-k] [-r] [-v] [-T] <dir>\n",
				argv[0]);
			return 2;
		}
	}
	if (optind != argc - 1 || base.nr_procs < 1 || base.nr_procs > 64 ||
	    !base.max_size || !base.stripe) {
		fprintf(stderr, "afs-exercise: bad arguments\n");
		return 2;
	}

	if (!strcmp(base.mode, "single"))
		nr = 1;
	else if (!strcmp(base.mode, "multi") || !strcmp(base.mode, "shared"))
		nr = base.nr_procs;
	else {
		fprintf(stderr, "afs-exercise: unknown mode %s\n", base.mode);
		return 2;
	}

	procs = calloc(nr, sizeof(*procs));
	if (!procs)
		return 1;
	for (i = 0; i < nr; i++) {
		procs[i] = base;
		procs[i].index = i;
		procs[i].shared = !strcmp(base.mode, "shared");
		procs[i].rng = (base.seed * 1000003ULL + i) | 1;
		snprintf(procs[i].path, sizeof(procs[i].path), "%s/ex-%lu-%s-%d",
			 argv[optind], base.seed, base.mode, procs[i].shared ? 0 : i);
	}

	if (procs[0].shared) {
		/* The common file, at its full size, filled with zeros. */
		int fd = open(procs[0].path, O_RDWR | O_CREAT | O_TRUNC, 0644);

		if (fd < 0 || ftruncate(fd, base.max_size) < 0 || fsync(fd) < 0 ||
		    close(fd) < 0) {
			perror("afs-exercise: creating the shared file");
			return 1;
		}
		syncer = fork();
		if (syncer == 0) {
			for (;;) {
				sync();
				usleep(20000);
			}
		}
	}

	for (i = 0; i < nr; i++)
		pids[i] = spawn(&procs[i], nr_ops);
	for (i = 0; i < nr; i++) {
		if (waitpid(pids[i], &status, 0) < 0 ||
		    !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			fprintf(stderr, "afs-exercise: process %d failed (status 0x%x)\n",
				i, status);
			failed = 1;
		}
	}
	if (syncer > 0) {
		kill(syncer, SIGKILL);
		waitpid(syncer, NULL, 0);
	}

	for (i = 0; i < nr && !failed; i++)
		unlink(procs[i].path);
	printf("afs-exercise: seed %lu mode %s: %d process%s x %lu operations: %s\n",
	       base.seed, base.mode, nr, nr > 1 ? "es" : "", nr_ops,
	       failed ? "FAILED" : "ok");
	return failed;
}
