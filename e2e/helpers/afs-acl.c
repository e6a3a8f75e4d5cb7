// SPDX-License-Identifier: GPL-2.0
/*
 * afs-acl: read or replace an AFS directory's access list through kAFS's
 * "afs.acl" extended attribute (FS.FetchACL, FS.StoreACL), which carries
 * the list in the fileserver's text form: the number of positive entries,
 * the number of negative ones, then one "<name>\t<rights>" line per entry,
 * rights as the sum of the bits in rights() below.
 *
 *	afs-acl <dir>				print the list
 *	afs-acl <dir> <name> <rights> ...	replace it with these positive
 *						entries, rights as letters
 *
 * Exits 0 on success, 3 if the call failed (the errno is printed), 2 on
 * bad usage.  (The guest has no setfattr, and OpenAFS's fs needs its own
 * cache manager.)
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

/*
 * An entry's rights from the letters fs(1) shows: r=1 w=2 i=4 l=8 d=16 k=32
 * a=64 (fs/afs/afs.h, AFS_ACE_*).
 */
static int rights(const char *letters)
{
	static const char order[] = "rwildka";
	int bits = 0;

	for (; *letters; letters++) {
		const char *p = strchr(order, *letters);

		if (!p)
			return -1;
		bits |= 1 << (p - order);
	}
	return bits;
}

int main(int argc, char **argv)
{
	char acl[1024];		/* AFSOPAQUEMAX: the most a fileserver takes */
	int i, len, n;

	if (argc < 2 || argc % 2 != 0) {
		fprintf(stderr, "usage: %s <dir> [<name> <rights>]...\n", argv[0]);
		return 2;
	}
	if (argc == 2) {
		n = getxattr(argv[1], "afs.acl", acl, sizeof(acl) - 1);
		if (n < 0) {
			printf("afs-acl: errno %d (%s)\n", errno, strerror(errno));
			return 3;
		}
		acl[n] = 0;
		fputs(acl, stdout);
		return 0;
	}

	len = snprintf(acl, sizeof(acl), "%d\n0\n", (argc - 2) / 2);
	for (i = 2; i < argc; i += 2) {
		int r = rights(argv[i + 1]);

		if (r < 0) {
			fprintf(stderr, "afs-acl: rights are letters of rwildka\n");
			return 2;
		}
		len += snprintf(acl + len, sizeof(acl) - len, "%s\t%d\n", argv[i], r);
		if (len >= (int)sizeof(acl) - 1) {
			fprintf(stderr, "afs-acl: list too long\n");
			return 2;
		}
	}
	/* With its NUL: the fileserver parses the list as a C string. */
	if (setxattr(argv[1], "afs.acl", acl, len + 1, 0) < 0) {
		printf("afs-acl: errno %d (%s)\n", errno, strerror(errno));
		return 3;
	}
	return 0;
}
