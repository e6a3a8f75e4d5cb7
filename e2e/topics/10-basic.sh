# SPDX-License-Identifier: GPL-2.0
#
# Basic use: the namespace operations and small files a person makes,
# through kAFS on the volume e2e, and all of it still there after a remount.

check "mount %$CELL:e2e" afs-mount %$CELL:e2e $AFS
# The cell is listed from boot (kafs.rootcell); its volume only once the
# mount has looked it up in the VLDB.
check "/proc/net/afs lists the cell and the mounted volume in it" sh -c "
	grep -q '$CELL' /proc/net/afs/cells && cat /proc/net/afs/$CELL/volumes &&
	grep -q ' RW e2e\$' /proc/net/afs/$CELL/volumes"
check "mkdir" mkdir $AFS/dir
check "create and write a file" sh -c "printf 'hello, afs\n' > $AFS/dir/hello"
check "read it back byte for byte" sh -c "printf 'hello, afs\n' | cmp - $AFS/dir/hello"
check "append" sh -c "printf 'more\n' >> $AFS/dir/hello &&
	printf 'hello, afs\nmore\n' | cmp - $AFS/dir/hello"
check "truncate" sh -c "truncate -s 5 $AFS/dir/hello &&
	[ \$(stat -c %s $AFS/dir/hello) = 5 ] && printf hello | cmp - $AFS/dir/hello"
check "rename within a directory" sh -c "mv $AFS/dir/hello $AFS/dir/hi &&
	[ ! -e $AFS/dir/hello ] && printf hello | cmp - $AFS/dir/hi"
check "rename across directories" sh -c "mkdir $AFS/other && mv $AFS/dir/hi $AFS/other/hi &&
	[ ! -e $AFS/dir/hi ] && printf hello | cmp - $AFS/other/hi"
# A name renamed over, held open: its link count through the descriptor
# is 0 (xfstests generic/035).  The directory is the case that a later
# fetch of its status from the server set back to 1: after the callback
# break of the rename, and again by F_GETLK, which always asks the server.
check "a directory renamed over while open: nlink 0 through it" sh -c "
	mkdir -p $AFS/over/a $AFS/over/b && exec 3< $AFS/over/b && mv -T $AFS/over/a $AFS/over/b &&
	n=\$(stat -L -c %h /proc/self/fd/3) && echo \"nlink \$n\" && [ \$n = 0 ] &&
	[ -d $AFS/over/b ] && [ ! -e $AFS/over/a ] &&
	fd-getlk 3 && n=\$(stat -L -c %h /proc/self/fd/3) &&
	echo \"nlink after its status is fetched again: \$n\" && [ \$n = 0 ]"
check "a file renamed over while open: nlink 0 through it" sh -c "
	echo a > $AFS/over/fa && echo b > $AFS/over/fb && exec 3< $AFS/over/fb &&
	mv -T $AFS/over/fa $AFS/over/fb && n=\$(stat -L -c %h /proc/self/fd/3) &&
	echo \"nlink \$n\" && [ \$n = 0 ] && [ \$(cat $AFS/over/fb) = a ] && [ \$(cat <&3) = b ]"
check "hard link in a directory" sh -c "ln $AFS/other/hi $AFS/other/hi2 &&
	[ \$(stat -c %h $AFS/other/hi) = 2 ] && printf hello | cmp - $AFS/other/hi2"
check "symlink and readlink" sh -c "ln -s hi $AFS/other/sym &&
	[ \$(readlink $AFS/other/sym) = hi ] && printf hello | cmp - $AFS/other/sym"
check "unlink" sh -c "rm $AFS/other/hi2 $AFS/other/sym && [ ! -e $AFS/other/hi2 ] &&
	[ ! -L $AFS/other/sym ] && [ \$(stat -c %h $AFS/other/hi) = 1 ]"
# After an unlink the server gives no status for the file, so kAFS counts
# the link gone itself.  A stat() in parallel can bring the server's count,
# the unlink already in it, first: counted twice, a file that still has a
# name had a link count of 0 and was taken for deleted, and ln failed with
# ENOENT (or, when the last name went next, drop_nlink() warned: xfstests
# generic/084).  Two processes link and unlink while two others stat.
basic_link_unlink() {	# <name> <times>: how many of them failed, and why
	i=0 bad=0
	: > /tmp/links-$1.err
	while [ $i -lt $2 ]; do
		{ ln $AFS/links/f $AFS/links/$1.$i && rm $AFS/links/$1.$i; } \
			2>> /tmp/links-$1.err || bad=$((bad + 1))
		i=$((i + 1))
	done
	echo "$1: $bad of $2 ln+rm failed"
	head -n 2 /tmp/links-$1.err
	[ $bad = 0 ]
}
basic_links_while_stat() {
	mkdir $AFS/links && echo x > $AFS/links/f || return 1
	for s in 1 2; do
		( while [ ! -e $AFS/links/done ]; do stat $AFS/links/f > /dev/null; done ) &
	done
	basic_link_unlink a 600 & a=$!
	basic_link_unlink b 600; b=$?
	wait $a; a=$?
	touch $AFS/links/done; wait
	n=$(stat -c %h $AFS/links/f)
	echo "link count $n"
	[ $a = 0 ] && [ $b = 0 ] && [ "$n" = 1 ] && rm -r $AFS/links
}
check "hard links made and removed by two processes while two others stat" \
	basic_links_while_stat
check "rmdir" sh -c "rmdir $AFS/dir && [ ! -e $AFS/dir ]"
check "a directory of 1000 entries, listed completely" sh -c "mkdir $AFS/many &&
	i=0; while [ \$i -lt 1000 ]; do : > $AFS/many/f\$i || exit 1; i=\$((i + 1)); done;
	echo 3 > /proc/sys/vm/drop_caches; [ \$(ls $AFS/many | wc -l) = 1000 ]"
check "fsync" dd if=/dev/zero of=$AFS/fsynced bs=4k count=4 conv=fsync
check "shared writable mmap, msync, munmap, seen by read()" sh -c "
	i=0; while [ \$i -lt 256 ]; do printf 0123456789abcdef; i=\$((i + 1)); done > /tmp/map &&
	cp /tmp/map $AFS/map && mmap-write $AFS/map 100 MAPPED &&
	printf MAPPED | dd of=/tmp/map bs=1 seek=100 conv=notrunc 2>/dev/null &&
	cmp /tmp/map $AFS/map"
basic_start=$(date +%s)
check "stat: sizes and mtimes sane" sh -c "
	[ \$(stat -c %s $AFS/fsynced) = 16384 ] && [ \$(stat -c %s $AFS/map) = 4096 ] &&
	m=\$(stat -c %Y $AFS/map) && now=\$(date +%s) &&
	[ \$m -ge \$(($basic_start - 120)) ] && [ \$m -le \$((now + 120)) ]"
check "umount" umount $AFS
check "mount again" afs-mount %$CELL:e2e $AFS
check "every file intact after remounting" sh -c "
	printf hello | cmp - $AFS/other/hi && cmp /tmp/map $AFS/map &&
	[ \$(ls $AFS/many | wc -l) = 1000 ] &&
	[ \$(stat -c %s $AFS/fsynced) = 16384 ] && [ ! -e $AFS/dir ]"
check "umount at the end" umount $AFS
