// SPDX-License-Identifier: GPL-2.0
/*
 * afs-acl: set an AFS directory's access control list through kAFS's
 * afs.acl extended attribute.
 *
 *	afs-acl <directory> <name>=<rights>...
 *
 * Rights are the fileserver's decimal mask (127 = rlidwka, 9 = rl).  The
 * attribute is "<npos>\n<nneg>\n<name>\t<rights>\n..." with a NUL at the
 * end, which the fileserver needs.
 */
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>

int main(int argc, char **argv)
{
	char acl[4096];
	int i, n;

	if (argc < 3) {
		fprintf(stderr, "usage: %s <directory> <name>=<rights>...\n", argv[0]);
		return 2;
	}
	n = snprintf(acl, sizeof(acl), "%d\n0\n", argc - 2);
	for (i = 2; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (!eq) {
			fprintf(stderr, "afs-acl: %s: not <name>=<rights>\n", argv[i]);
			return 2;
		}
		n += snprintf(acl + n, sizeof(acl) - n, "%.*s\t%s\n",
			      (int)(eq - argv[i]), argv[i], eq + 1);
		if (n >= (int)sizeof(acl)) {
			fprintf(stderr, "afs-acl: too long\n");
			return 2;
		}
	}
	if (setxattr(argv[1], "afs.acl", acl, n + 1, 0) < 0) {
		perror("afs-acl: setxattr afs.acl");
		return 1;
	}
	return 0;
}
