// SPDX-License-Identifier: GPL-2.0-or-later
/* Writing to regular files and storing them on the fileserver.
 *
 * Copyright (C) 2007 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * Rewritten for the kAFS overlay project: the dirty region and the fate of a
 * failed store are pure functions, writeback of a file is serialised, and no
 * store error loses data that could still be stored.
 *
 * The rules this file keeps:
 *
 * - A folio being written holds the byte range of it that the server does not
 *   have yet, [from, to), in its private data (afs_folio_dirty() in
 *   internal.h encodes it).  A write that neither overlaps nor touches that
 *   range makes the folio be stored first, unless the file's whole content is
 *   new (created or truncated to zero here), in which case the gap between is
 *   ours to store too.  A folio made writable through a shared mapping is
 *   dirty from end to end.
 *
 * - One store of a file's data at a time (vnode->store_lock), from gathering
 *   the folios to settling their fate: two writebacks of a file never
 *   interleave their stores, and a store's view of the file size is the one
 *   the previous store left.
 *
 * - Any key that wrote to the file may store its data (vnode->wb_keys, added
 *   at open for writing).  A store refused for want of permission is retried
 *   with the next key; when every key was refused, the data stays dirty.
 *
 * - What a failed store does to the data is afs_store_fate()'s table: the
 *   data is discarded only on evidence that the file can never take it (the
 *   server said it is gone, the volume is read-only, the data lies beyond the
 *   largest size), never on an errno alone.  Errors that pass (network, busy
 *   server, quota, memory, signals, every key refused) keep it for as long
 *   as it takes; others keep it for AFS_STORE_MAX_FAILURES stores in a row
 *   over at least AFS_STORE_GIVE_UP_SECS, then it is dropped with a log
 *   line.  Only discarded data's error is recorded on the mapping,
 *   for a later fsync() to report; kept data is stored again, and an fsync()
 *   whose own store of it fails returns that error.  An fsync() that only
 *   waited for another writeback's store learns that it failed from the
 *   vnode's kept_gen, and stores the range itself.  syncfs() is told of kept
 *   data's errors through the superblock, a signal's never.  close()
 *   reports nothing: AFS has no ->flush and ->release's answer is ignored.
 *
 * - Locks are taken in this order: vnode->store_lock, vnode->validate_lock
 *   (shared; a truncation takes it exclusive), a folio's lock, vnode->io_lock
 *   (taken by the operation that sends a store).  No one waits for the store
 *   lock holding a folio lock: afs_write_begin() unlocks its folio before
 *   writing back, and afs_writepage() only tries.  afs_launder_folio() stores
 *   its one locked folio without the store lock; no other store can hold that
 *   folio.
 */

#include <linux/backing-dev.h>
#include <linux/error-injection.h>
#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/pagemap.h>
#include <linux/writeback.h>
#include <linux/rmap.h>
#include <linux/pagevec.h>
#include <linux/netfs.h>
#include "internal.h"

/* The most one store sends: 256 MiB. */
#define AFS_STORE_MAX_BYTES	(256 * 1024 * 1024)

#ifdef CONFIG_AFS_FSCACHE
/**
 * afs_dirty_folio - Mark a folio dirty, pinning its cache object
 * @mapping: The file's mapping
 * @folio: The folio
 *
 * The cache object the folio will be written to stays pinned until then.
 *
 * Return: true if the folio was not dirty before.
 */
bool afs_dirty_folio(struct address_space *mapping, struct folio *folio)
{
	return fscache_dirty_folio(mapping, folio,
				   afs_vnode_cache(AFS_FS_I(mapping->host)));
}

static void afs_folio_start_fscache(bool caching, struct folio *folio)
{
	if (caching)
		folio_start_fscache(folio);
}

static void afs_folio_wait_fscache(struct folio *folio)
{
	folio_wait_fscache(folio);
}
#else
static void afs_folio_start_fscache(bool caching, struct folio *folio)
{
}

static void afs_folio_wait_fscache(struct folio *folio)
{
}
#endif

static void afs_write_to_cache_done(void *priv, ssize_t transferred_or_error,
				    bool was_async)
{
	struct afs_vnode *vnode = priv;

	if (IS_ERR_VALUE(transferred_or_error) &&
	    transferred_or_error != -ENOBUFS)
		afs_invalidate_cache(vnode, 0);
}

/*
 * The dirty region of a folio, decided without touching the folio.
 */
struct afs_dirty_region {
	size_t	from;		/* First dirty byte */
	size_t	to;		/* Byte after the last dirty one */
};

/**
 * afs_dirty_can_join - Whether a write may join a folio's dirty region
 * @cur: The folio's dirty region
 * @from: Where in the folio the write starts
 * @to: Where in the folio the write ends (exclusive)
 * @new_content: The file's whole content is new here
 * @writeback: The folio is being stored
 *
 * A folio being stored must not change until the store is settled: the
 * write waits.  Otherwise a write joins the region when it overlaps or
 * touches it.  When the content is new, the gap between them is joined too:
 * it holds the folio's content, which is ours to store.  Otherwise the gap
 * may hold a third party's data that we never read, so the region must be
 * stored first.
 *
 * Return: true if the write may join the region, false if the folio must be
 * stored (or its store finish) first.
 */
static bool afs_dirty_can_join(const struct afs_dirty_region *cur,
			       size_t from, size_t to, bool new_content,
			       bool writeback)
{
	if (writeback)
		return false;
	return new_content || (to >= cur->from && from <= cur->to);
}

/* The region after a write of [@from, @to) joined @cur. */
static struct afs_dirty_region afs_dirty_join(const struct afs_dirty_region *cur,
					      size_t from, size_t to)
{
	return (struct afs_dirty_region){ .from = min(cur->from, from),
					  .to = max(cur->to, to) };
}

/**
 * afs_dirty_continues - Whether a store may carry on into the next folio
 * @prev: The dirty region of the folio the store has reached
 * @prev_size: That folio's size
 * @next: The dirty region of the folio after it
 * @new_content: The file's whole content is new here
 *
 * One store sends one contiguous run of bytes.  It may go on from one folio
 * into the next if the first is dirty to its end and the next from its start;
 * when the content is new, the clean bytes between are ours and go too.
 *
 * Return: true if the next folio's region belongs in the same store.
 */
static bool afs_dirty_continues(const struct afs_dirty_region *prev,
				size_t prev_size,
				const struct afs_dirty_region *next,
				bool new_content)
{
	return new_content || (prev->to == prev_size && next->from == 0);
}

/**
 * afs_dirty_trim - Cut an invalidated range out of a folio's dirty region
 * @from: The region's first byte in the folio; updated
 * @to: The byte after the region's last; updated
 * @start: The invalidated range's first byte in the folio
 * @end: The byte after the invalidated range's last
 *
 * Called when part of a folio is invalidated (a truncation ending in it).
 * A range that misses the region leaves it alone.  One that covers it
 * leaves nothing to store.  One that covers its head or its tail cuts that
 * off.  One strictly inside it cannot be cut out of a single range, so the
 * region stays whole and the invalidated bytes are stored as the folio now
 * holds them (zeroed by the truncation).
 *
 * Return: %AFS_DIRTY_UNCHANGED, %AFS_DIRTY_TRIMMED with @from and @to
 * updated, or %AFS_DIRTY_CLEAN when nothing of the region is left.
 */
enum afs_dirty_trim afs_dirty_trim(size_t *from, size_t *to,
				   size_t start, size_t end)
{
	if (*to <= start || *from >= end)
		return AFS_DIRTY_UNCHANGED;
	if (*from >= start && *to <= end)
		return AFS_DIRTY_CLEAN;
	if (*from < start && *to > end)
		return AFS_DIRTY_UNCHANGED;
	if (*from < start)
		*to = start;
	else
		*from = end;
	return AFS_DIRTY_TRIMMED;
}

static struct afs_dirty_region afs_folio_region(struct folio *folio)
{
	unsigned long priv = (unsigned long)folio_get_private(folio);

	if (!folio_test_private(folio))
		return (struct afs_dirty_region){ .from = 0, .to = folio_size(folio) };
	return (struct afs_dirty_region){ .from = afs_folio_dirty_from(folio, priv),
					  .to = afs_folio_dirty_to(folio, priv) };
}

static void afs_folio_set_region(struct afs_vnode *vnode, struct folio *folio,
				 const struct afs_dirty_region *r,
				 bool mmapped, const char *why)
{
	unsigned long priv = afs_folio_dirty(folio, r->from, r->to);

	if (mmapped)
		priv = afs_folio_dirty_mmapped(priv);
	if (folio_test_private(folio))
		folio_change_private(folio, (void *)priv);
	else
		folio_attach_private(folio, (void *)priv);
	trace_afs_folio_dirty(vnode, why, folio);
}

/**
 * afs_eof_span - What of a folio a growing file brings inside itself
 * @folio_pos: The folio's position in the file
 * @folio_size: Its size
 * @old_size: The file's size before it grows
 * @new_size: Its size after
 * @from: Where the part starts in the folio
 * @to: Where it ends
 *
 * Only the folio that holds the old end, and only if the end lies inside
 * one of its pages, has such a part: a mapping cannot fault in a page
 * wholly past the end (SIGBUS), so no stale bytes lie beyond that page,
 * unless the file was cut from under a mapping made before (another
 * client shrank it), which this does not cover.
 *
 * Return: true, with [*@from, *@to), if there is a part.
 */
static bool afs_eof_span(loff_t folio_pos, size_t folio_size, loff_t old_size,
			 loff_t new_size, size_t *from, size_t *to)
{
	loff_t end = folio_pos + folio_size;

	if (new_size <= old_size || old_size <= folio_pos || old_size >= end ||
	    !offset_in_page(old_size))
		return false;
	*from = old_size - folio_pos;
	*to = min(new_size, end) - folio_pos;
	return true;
}

/*
 * Clear the part of @folio, locked, that a file growing from @old_size to
 * @new_size brings inside itself.  It is write-protected first, so that a
 * mapping's next write to it faults and waits for the folio lock.
 */
static void afs_zero_eof_locked(struct afs_vnode *vnode, struct folio *folio,
				loff_t old_size, loff_t new_size)
{
	size_t from, to;

	if (!afs_eof_span(folio_pos(folio), folio_size(folio), old_size,
			  new_size, &from, &to))
		return;
	if (folio_mkclean(folio))
		folio_mark_dirty(folio);
	folio_zero_segment(folio, from, to);
	trace_afs_folio_dirty(vnode, tracepoint_string("eofzero"), folio);
}

/**
 * afs_zero_eof_folio - Clear the bytes a file brings inside as it grows
 * @vnode: The file
 * @old_size: Its size before it grows
 * @new_size: Its size after
 *
 * POSIX has the part of a file's last page past its end read as zeros
 * through a mapping and never written to the file; but a shared writable
 * mapping may write there, and the bytes stay in the page cache.  Once the
 * file has grown over them they would be read as the file's, and stored,
 * where the server has zeros: clear them, up to @new_size or the folio's
 * end.  The folio is write-protected first, so that the mapping's next
 * write to it faults.  Called before a write past the end takes its folio,
 * and after the server has grown the file for a truncation (with the
 * validate lock held, so that no store of the folio is under way).
 *
 * Context: The caller holds the inode lock, and no folio lock.
 * Return: 0, or -EINTR if a fatal signal came while waiting for the folio
 * (a page fault may hold its lock across the wait for a store).
 */
int afs_zero_eof_folio(struct afs_vnode *vnode, loff_t old_size, loff_t new_size)
{
	struct address_space *mapping = vnode->netfs.inode.i_mapping;
	struct folio *folio;

	if (new_size <= old_size || !offset_in_page(old_size))
		return 0;
	folio = __filemap_get_folio(mapping, old_size >> PAGE_SHIFT, 0, 0);
	if (!folio)
		return 0;
	if (folio_lock_killable(folio) < 0) {
		folio_put(folio);
		return -EINTR;
	}
	/* Truncated meanwhile: nothing of it is in the file. */
	if (folio->mapping == mapping)
		afs_zero_eof_locked(vnode, folio, old_size, new_size);
	folio_unlock(folio);
	folio_put(folio);
	return 0;
}

/**
 * afs_write_begin - Prepare a write to part of a folio
 * @file: The file written to
 * @mapping: Its mapping
 * @pos: Where the write starts in the file
 * @len: How many bytes of the folio it writes
 * @_page: Where to put the locked page written to
 * @fsdata: Passed to netfs_write_begin()
 *
 * Bring the folio up to date as far as the write needs, and make sure its
 * dirty region can take the write: a folio whose region cannot be joined by
 * the write is stored first (its lock dropped meanwhile).
 *
 * Return: 0 with the folio locked and referenced, or a negative error.
 */
int afs_write_begin(struct file *file, struct address_space *mapping,
		    loff_t pos, unsigned int len,
		    struct page **_page, void **fsdata)
{
	struct afs_vnode *vnode = AFS_FS_I(file_inode(file));
	struct afs_dirty_region cur;
	struct folio *folio;
	size_t from, to;
	loff_t start, end;
	int ret;

	_enter("{%llx:%llu},%llx,%x",
	       vnode->fid.vid, vnode->fid.vnode, pos, len);

	/* A write past the end grows the file over what a mapping may have
	 * written past the old end: clear that while no folio is locked, as
	 * it may be in this folio or an earlier one.  afs_write_end() clears
	 * this folio's part again, under its lock.
	 */
	ret = afs_zero_eof_folio(vnode, i_size_read(&vnode->netfs.inode), pos);
	if (ret < 0)
		return ret;

	for (;;) {
		/* Reads the folio first unless the write covers what the file
		 * holds of it.
		 */
		ret = netfs_write_begin(&vnode->netfs, file, mapping, pos, len,
					&folio, fsdata);
		if (ret < 0)
			return ret;

		from = offset_in_folio(folio, pos);
		to = from + len;
		if (!folio_test_private(folio))
			break;

		cur = afs_folio_region(folio);
		if (afs_dirty_can_join(&cur, from, to,
				       test_bit(AFS_VNODE_NEW_CONTENT, &vnode->flags),
				       folio_test_writeback(folio)))
			break;

		/* Store the folio (or let the store under way finish), then
		 * look again.  The folio lock is dropped first: the store
		 * takes the file's store lock, whose holder may be waiting
		 * for this folio.
		 */
		trace_afs_folio_dirty(vnode, tracepoint_string("flush"), folio);
		start = folio_pos(folio);
		end = start + folio_size(folio) - 1;
		folio_unlock(folio);
		folio_put(folio);
		/* If the store failed, the folio is still in the way. */
		ret = filemap_write_and_wait_range(mapping, start, end);
		if (ret < 0)
			return ret;
		if (fatal_signal_pending(current))
			return -EINTR;
	}

	*_page = folio_file_page(folio, pos / PAGE_SIZE);
	_leave(" = 0");
	return 0;
}

/**
 * afs_write_end - Finish a write to part of a folio
 * @file: The file written to
 * @mapping: Its mapping
 * @pos: Where the write started in the file
 * @len: How many bytes were to be written
 * @copied: How many were copied
 * @subpage: The page afs_write_begin() gave
 * @fsdata: Unused
 *
 * Extend the file and the folio's dirty region to cover what was copied.
 * The folio is unlocked and released.
 *
 * Return: The number of bytes taken (0 on a short copy into a folio that
 * was not up to date: the caller tries again).
 */
int afs_write_end(struct file *file, struct address_space *mapping,
		  loff_t pos, unsigned int len, unsigned int copied,
		  struct page *subpage, void *fsdata)
{
	struct folio *folio = page_folio(subpage);
	struct afs_vnode *vnode = AFS_FS_I(file_inode(file));
	struct afs_dirty_region r;
	size_t from = offset_in_folio(folio, pos);
	loff_t end = pos + copied, old_size;

	_enter("{%llx:%llu},{%lx}",
	       vnode->fid.vid, vnode->fid.vnode, folio_index(folio));

	if (!folio_test_uptodate(folio)) {
		/* Only the written bytes are valid: a short copy leaves the
		 * folio as it was and the caller tries again.
		 */
		if (copied < len) {
			copied = 0;
			goto out;
		}
		folio_mark_uptodate(folio);
	}
	if (copied == 0)
		goto out;

	old_size = i_size_read(&vnode->netfs.inode);
	if (end > old_size) {
		/* What a mapping wrote past the old end in this folio since
		 * afs_write_begin() cleared it is cleared again before the
		 * size is raised: a store takes the folio under its lock and
		 * sends up to the size it then reads.
		 */
		afs_zero_eof_locked(vnode, folio, old_size, pos);
		write_seqlock(&vnode->cb_lock);
		if (end > i_size_read(&vnode->netfs.inode))
			afs_set_i_size(vnode, end);
		write_sequnlock(&vnode->cb_lock);
		fscache_update_cookie(afs_vnode_cache(vnode), NULL, &end);
	}

	if (folio_test_private(folio)) {
		unsigned long priv = (unsigned long)folio_get_private(folio);

		r = afs_folio_region(folio);
		r = afs_dirty_join(&r, from, from + copied);
		afs_folio_set_region(vnode, folio, &r,
				     afs_is_folio_dirty_mmapped(priv),
				     tracepoint_string("dirty+"));
	} else {
		r = (struct afs_dirty_region){ .from = from, .to = from + copied };
		afs_folio_set_region(vnode, folio, &r, false,
				     tracepoint_string("dirty"));
	}
	folio_mark_dirty(folio);

out:
	folio_unlock(folio);
	folio_put(folio);
	return copied;
}

/*
 * What a store's error does to the data it carried.
 */
enum afs_store_fate {
	AFS_STORE_DONE,		/* Stored */
	AFS_STORE_NEXT_KEY,	/* Refused to this key: try the next one */
	AFS_STORE_KEEP,		/* A passing trouble: keep the data dirty */
	AFS_STORE_KEEP_LIMITED,	/* Kept, but only for so many failures */
	AFS_STORE_DISCARD,	/* The file can never take it: drop it */
};

/* An error that may never pass (AFS_STORE_KEEP_LIMITED) drops a file's data
 * once its stores have failed with one this many times in a row, and for at
 * least this long: a program that fsync()s in a loop reaches the count in
 * moments, a volume being moved or a server being re-registered needs time.
 */
#define AFS_STORE_MAX_FAILURES	10
#define AFS_STORE_GIVE_UP_SECS	60

/* Passes of writeback an fsync() makes while other stores fail under it. */
#define AFS_FSYNC_PASSES	3

/**
 * afs_store_fate - Decide what becomes of the data of a failed store
 * @error: The store's result
 * @deleted: The server said the file is gone (VNOVNODE: AFS_VNODE_DELETED)
 *
 * Data is discarded only on evidence that the file can never take it: the
 * server said the file is gone (-ENOENT with @deleted), the volume is
 * read-only (-EROFS, VREADONLY) or the data lies beyond what the server can
 * hold (-EFBIG).  An errno alone is no such evidence: -ENOENT, -ENOMEDIUM
 * and -ENXIO also come from a VL server that does not know a volume or a
 * server yet, from a VMOVED whose move the VLDB has not caught up with, or
 * from a cell whose DNS lookup failed once.
 *
 * Permission errors move on to the next key.  Errors that pass by
 * themselves or by the user's doing (timeouts, lost connections, a busy or
 * restarting server, a full disk, a quota, memory, a signal, a record
 * mid-update) keep the data for as long as it takes.  Any other error (an
 * unknown abort, a reply we cannot decode, the errnos above without
 * evidence) keeps it only for so long (afs_settle_fate()).
 *
 * Return: The fate of the data.
 */
static enum afs_store_fate afs_store_fate(int error, bool deleted)
{
	switch (error) {
	case 0:
		return AFS_STORE_DONE;
	case -EACCES:
	case -EPERM:
	case -ENOKEY:
	case -EKEYEXPIRED:
	case -EKEYREJECTED:
	case -EKEYREVOKED:
		return AFS_STORE_NEXT_KEY;
	case -EROFS:
	case -EFBIG:
		return AFS_STORE_DISCARD;
	case -ENOENT:
		return deleted ? AFS_STORE_DISCARD : AFS_STORE_KEEP_LIMITED;
	case -ETIMEDOUT:
	case -ETIME:
	case -ECONNRESET:
	case -ECONNREFUSED:
	case -ENETRESET:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EHOSTDOWN:
	case -EADDRNOTAVAIL:
	case -EDESTADDRREQ:
	case -ERFKILL:
	case -EBUSY:
	case -EAGAIN:
	case -ENOBUFS:
	case -ENOMEM:
	case -EINTR:
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
	case -ESTALE:
	case -ENOSPC:
	case -EDQUOT:
		return AFS_STORE_KEEP;
	default:
		return AFS_STORE_KEEP_LIMITED;
	}
}

/**
 * afs_settle_fate - Decide the fate of data whose store is over
 * @error: The store's result, every key having been tried
 * @deleted: The server said the file is gone
 * @failures: The file's stores that failed in a row before this one with
 *	%AFS_STORE_KEEP_LIMITED (a store of the file that succeeds starts the
 *	count again)
 * @failing_for: Seconds since the first of them
 *
 * Every key refused keeps the data for as long as it takes, as a full disk
 * does: the user's remedy (a new token, and the file opened with it) is
 * beyond what the count can tell.  An error that may never pass discards
 * the data at the AFS_STORE_MAX_FAILURES-th failure in a row, if the first
 * was at least AFS_STORE_GIVE_UP_SECS ago.
 *
 * Return: The fate of the data.
 */
static enum afs_store_fate afs_settle_fate(int error, bool deleted,
					   unsigned int failures,
					   time64_t failing_for)
{
	enum afs_store_fate fate = afs_store_fate(error, deleted);

	if (fate == AFS_STORE_NEXT_KEY)
		fate = AFS_STORE_KEEP;
	if (fate == AFS_STORE_KEEP_LIMITED &&
	    failures + 1 >= AFS_STORE_MAX_FAILURES &&
	    failing_for >= AFS_STORE_GIVE_UP_SECS)
		fate = AFS_STORE_DISCARD;
	return fate;
}

/**
 * afs_store_error_to_report - The error a failed store leaves for syncfs()
 * @error: The store's error
 *
 * A store interrupted by a signal reports nothing: it is not the error of
 * the data, which stays dirty for the next writeback, and the errno of a
 * restart (512) would reach a later, unrelated syncfs() from the
 * superblock's error sequence.  Neither is -ENOMEM an errno syncfs() or
 * fsync() may return: the data was not stored, which is -EIO.
 *
 * Return: The error to record, or 0 for none.
 */
static int afs_store_error_to_report(int error)
{
	switch (error) {
	case -EINTR:
	case -ERESTARTSYS:
	case -ERESTARTNOINTR:
	case -ERESTARTNOHAND:
	case -ERESTART_RESTARTBLOCK:
		return 0;
	case -ENOMEM:
		return -EIO;
	default:
		return error;
	}
}

/*
 * Take the next key after @prev (or the first if NULL) in the file's list of
 * keys that wrote to it and are still valid, dropping @prev.  NULL when none
 * is left.
 */
static struct afs_wb_key *afs_next_wb_key(struct afs_vnode *vnode,
					  struct afs_wb_key *prev)
{
	struct afs_wb_key *wbk = NULL, *p;

	spin_lock(&vnode->wb_lock);
	p = prev ? list_next_entry(prev, vnode_link) :
		list_first_entry(&vnode->wb_keys, struct afs_wb_key, vnode_link);
	list_for_each_entry_from(p, &vnode->wb_keys, vnode_link) {
		if (key_validate(p->key) == 0) {
			refcount_inc(&p->usage);
			wbk = p;
			break;
		}
	}
	spin_unlock(&vnode->wb_lock);

	afs_put_wb_key(prev);
	return wbk;
}

static void afs_store_data_success(struct afs_operation *op)
{
	struct afs_vnode *vnode = op->file[0].vnode;

	op->ctime = op->file[0].scb.status.mtime_client;
	afs_vnode_commit_status(op, &op->file[0]);
	if (op->error == 0) {
		afs_stat_v(vnode, n_stores);
		atomic_long_add(op->store.size, &afs_v2net(vnode)->n_store_bytes);
	}
}

/*
 * Point the store's iterator at its data in the page cache.  Each call sends
 * the data afresh: rotation may issue the call again, to another address or
 * server or after a busy server's sleep, and the iterator the last call sent
 * from is used up.
 */
static void afs_store_rewind(struct afs_operation *op)
{
	struct afs_vnode *vnode = op->file[0].vnode;

	iov_iter_xarray(op->store.write_iter, ITER_SOURCE,
			&vnode->netfs.inode.i_mapping->i_pages,
			op->store.pos, op->store.size);
}

/**
 * afs_store_in_doubt - Count a failed store the server may have applied
 * @op: An operation that stores to its first vnode: data, or a size change
 *
 * Called before each attempt of @op and when @op fails, to count the attempt
 * before, if one was made.  A store attempt that failed may have been applied
 * all the same: an OpenAFS fileserver writes the part of a StoreData it
 * received before the call failed, and moves the file's data version for
 * it; a size change is a StoreData of no data and moves it the same way.
 * Count it, so that afs_apply_status() takes that move for the file's own
 * and does not drop the file's cache as changed by another client; but not
 * once the callback was broken during the operation, as another client's
 * change would break it, and that move could be theirs.
 *
 * The rotation counts a pass for each call it issues, and the pass that
 * gives up too, so a call was made before if the count is past 1 (a pass
 * that could make no call is counted too, which only widens the doubt).
 *
 * Context: Process context; takes the vnode's cb_lock.
 */
void afs_store_in_doubt(struct afs_operation *op)
{
	struct afs_vnode *vnode = op->file[0].vnode;

	if (op->nr_iterations <= 1 || !op->file[0].dv_delta)
		return;
	write_seqlock(&vnode->cb_lock);
	if (!afs_cb_is_broken(op->file[0].cb_break_before, vnode))
		vnode->stores_in_doubt++;
	write_sequnlock(&vnode->cb_lock);
}

static void afs_store_attempt(struct afs_operation *op)
{
	afs_store_in_doubt(op);
	afs_store_rewind(op);
}

static void afs_issue_store_afs(struct afs_operation *op)
{
	afs_store_attempt(op);
	afs_fs_store_data(op);
}

static void afs_issue_store_yfs(struct afs_operation *op)
{
	afs_store_attempt(op);
	yfs_fs_store_data(op);
}

static const struct afs_operation_ops afs_store_data_operation = {
	.issue_afs_rpc	= afs_issue_store_afs,
	.issue_yfs_rpc	= afs_issue_store_yfs,
	.success	= afs_store_data_success,
	/* VNOVNODE marks the file deleted: the evidence afs_store_fate()
	 * needs to drop its data.
	 */
	.aborted	= afs_check_for_remote_deletion,
	.failed		= afs_store_in_doubt,
};

/*
 * Store @len bytes at @pos from the page cache, with one key.  Open to
 * fail_function, so that tests can make a store fail as a server would.
 */
static noinline int afs_store_from_cache(struct afs_vnode *vnode,
					 struct key *key, loff_t pos, loff_t len,
					 bool laundering)
{
	struct afs_operation *op;
	struct iov_iter iter;

	op = afs_alloc_operation(key, vnode->volume);
	if (IS_ERR(op))
		return PTR_ERR(op);

	afs_op_set_vnode(op, 0, vnode);
	op->file[0].dv_delta = 1;
	op->file[0].modification = true;
	op->store.write_iter = &iter;
	op->store.pos = pos;
	op->store.size = len;
	op->store.laundering = laundering;
	op->flags |= AFS_OPERATION_UNINTR;
	op->ops = &afs_store_data_operation;

	afs_begin_vnode_operation(op);
	/* Under the vnode's I/O lock: the size the last store left. */
	op->store.i_size = max(pos + len, vnode->netfs.remote_i_size);
	op->mtime = vnode->netfs.inode.i_mtime;
	afs_wait_for_operation(op);
	return afs_put_operation(op);
}

ALLOW_ERROR_INJECTION(afs_store_from_cache, ERRNO);

/*
 * The key to try after @wbk's attempt ended with @error: the next valid
 * writer's key if the server refused @wbk's (afs_store_fate() says
 * %AFS_STORE_NEXT_KEY), else none.  @wbk's reference is dropped either way.
 */
static struct afs_wb_key *afs_store_next_key(struct afs_vnode *vnode,
					     struct afs_wb_key *wbk, int error)
{
	if (afs_store_fate(error, false) == AFS_STORE_NEXT_KEY)
		return afs_next_wb_key(vnode, wbk);
	afs_put_wb_key(wbk);
	return NULL;
}

/*
 * Store data with the first writer's key that works: any key that opened the
 * file for writing may store its data, tried in the order they were added.
 *
 * Return: 0 once a key stored the data; the error of the last attempt
 * otherwise, or -ENOKEY if no valid key was left to try.
 */
static int afs_store_with_keys(struct afs_vnode *vnode, loff_t pos, loff_t len,
			       bool laundering)
{
	struct afs_wb_key *wbk;
	int ret = -ENOKEY;

	for (wbk = afs_next_wb_key(vnode, NULL); wbk;
	     wbk = afs_store_next_key(vnode, wbk, ret))
		ret = afs_store_from_cache(vnode, wbk->key, pos, len, laundering);
	return ret;
}

/*
 * Store @len bytes at @pos from the page cache of @vnode.
 */
static int afs_store_data(struct afs_vnode *vnode, loff_t pos, loff_t len,
			  bool laundering)
{
	int ret;

	_enter("%s{%llx:%llu.%u},%llx,%llx",
	       vnode->volume->name, vnode->fid.vid, vnode->fid.vnode,
	       vnode->fid.unique, len, pos);

	trace_afs_store(vnode, pos, len, false, 0);
	ret = afs_store_with_keys(vnode, pos, len, laundering);
	trace_afs_store(vnode, pos, len, true, ret);
	_leave(" = %d", ret);
	return ret;
}

/*
 * Settle the folios from @first to @last that a store of [@pos, @pos + @len)
 * had under writeback: clean them, keep them dirty, or drop them, as the
 * store's result says.
 */
static void afs_store_settle(struct afs_vnode *vnode,
			     struct writeback_control *wbc,
			     pgoff_t first, pgoff_t last,
			     loff_t pos, loff_t len, int error)
{
	struct address_space *mapping = vnode->netfs.inode.i_mapping;
	bool deleted = test_bit(AFS_VNODE_DELETED, &vnode->flags);
	time64_t now = ktime_get_boottime_seconds();
	enum afs_store_fate fate;
	struct folio *folio;
	pgoff_t index;
	int report;

	/* Under the store lock: the count of failures is the file's own. */
	fate = afs_settle_fate(error, deleted, vnode->store_failures,
			       now - vnode->store_failing_since);
	report = afs_store_error_to_report(error);
	switch (fate) {
	case AFS_STORE_DONE:
		if (len)	/* Not a run truncated away: a store */
			vnode->store_failures = 0;
		break;
	case AFS_STORE_KEEP_LIMITED:
		if (vnode->store_failures++ == 0)
			vnode->store_failing_since = now;
		fallthrough;
	case AFS_STORE_KEEP:
		pr_notice_ratelimited("kAFS: Store of %llx+%llx to {%llx:%llu} failed: %d, data kept for another attempt\n",
				      pos, len, vnode->fid.vid, vnode->fid.vnode,
				      error);
		/* Not on the mapping: the data is stored again, and a
		 * data-integrity writeback whose own store of it fails
		 * returns that error itself; recorded there, a background
		 * store's timeout would fail the fsync() that then stores
		 * the data.  syncfs() cannot see writepages' result, so it
		 * learns of it from the superblock; an fsync() that only
		 * waited for this store learns of it from kept_gen, below.
		 */
		if (report)
			errseq_set(&mapping->host->i_sb->s_wb_err, report);
		WRITE_ONCE(vnode->kept_error, error);
		break;
	case AFS_STORE_DISCARD:
	default:
		pr_warn_ratelimited("kAFS: Data of {%llx:%llu} at %llx+%llx dropped: %s (%d)\n",
				    vnode->fid.vid, vnode->fid.vnode, pos, len,
				    deleted && error == -ENOENT ? "file deleted" :
				    error == -EROFS ? "volume read-only" :
				    error == -EFBIG ? "beyond the largest file" :
				    "stores failed too long", error);
		vnode->store_failures = 0;
		/* Lost data is an error for fsync() to find later. */
		trace_afs_file_error(vnode, error, afs_file_error_writeback_fail);
		mapping_set_error(mapping, report);
		break;
	}

	if (fate == AFS_STORE_KEEP || fate == AFS_STORE_KEEP_LIMITED) {
		/* Dirty again before the writeback ends, and before the count
		 * moves: an fsync() that sees the writeback over and the count
		 * unchanged must find the data dirty if it is not stored.
		 * Pairs with the barriers in afs_fsync().
		 */
		for (index = first; index <= last; ) {
			folio = filemap_get_folio(mapping, index);
			if (!folio) {
				index++;
				continue;
			}
			index = folio_next_index(folio);
			trace_afs_folio_dirty(vnode, tracepoint_string("redirty"), folio);
			folio_redirty_for_writepage(wbc, folio);
			folio_put(folio);
		}
		/* After the redirty, before the writeback ends (afs_fsync()). */
		smp_store_release(&vnode->kept_gen, vnode->kept_gen + 1);
	}

	for (index = first; index <= last; ) {
		folio = filemap_get_folio(mapping, index);
		if (!folio) {
			index++;
			continue;
		}
		index = folio_next_index(folio);

		switch (fate) {
		case AFS_STORE_DONE:
			trace_afs_folio_dirty(vnode, tracepoint_string("clear"), folio);
			folio_detach_private(folio);
			folio_end_writeback(folio);
			break;
		case AFS_STORE_KEEP:
		case AFS_STORE_KEEP_LIMITED:
			folio_end_writeback(folio);
			break;
		case AFS_STORE_DISCARD:
		default:
			folio_end_writeback(folio);
			folio_lock(folio);
			if (folio->mapping == mapping) {
				trace_afs_folio_dirty(vnode, tracepoint_string("discard"), folio);
				folio_clear_uptodate(folio);
				generic_error_remove_page(mapping, &folio->page);
			}
			folio_unlock(folio);
			break;
		}
		folio_put(folio);
	}

	afs_prune_wb_keys(vnode);
}

/* Put a locked folio, its dirty mark already cleared for I/O, under
 * writeback for a store and unlock it.
 */
static void afs_folio_start_store(struct afs_vnode *vnode, struct folio *folio,
				  bool caching, const char *why)
{
	folio_start_writeback(folio);
	afs_folio_start_fscache(caching, folio);
	trace_afs_folio_dirty(vnode, why, folio);
	folio_unlock(folio);
}

/*
 * Take the folio at @index into the store being gathered if it carries on
 * from where the store has reached: it must be dirty, not under writeback,
 * lockable without waiting, and its region must continue the run.  Returns
 * it locked, or NULL.
 */
static struct folio *afs_gather_next(struct address_space *mapping,
				     pgoff_t index,
				     const struct afs_dirty_region *prev,
				     size_t prev_size, bool new_content)
{
	struct afs_dirty_region next;
	struct folio *folio;

	folio = filemap_get_folio(mapping, index);
	if (!folio)
		return NULL;
	if (!folio_trylock(folio))
		goto put;
	if (folio->mapping != mapping || !folio_test_dirty(folio) ||
	    folio_test_writeback(folio) || folio_test_fscache(folio))
		goto unlock;
	next = afs_folio_region(folio);
	if (!afs_dirty_continues(prev, prev_size, &next, new_content))
		goto unlock;
	return folio;

unlock:
	folio_unlock(folio);
put:
	folio_put(folio);
	return NULL;
}

/*
 * Store the dirty region of the locked @folio, whose dirty mark the caller
 * cleared for I/O, and of the folios after it that continue it, taking
 * folios that start at or before @end.  A folio
 * taken is stored whole (its whole dirty region), whatever @end says: a
 * folio cannot be half clean.  Only the end of the file cuts a region short,
 * as what lies beyond it is not the file's.  The folio is unlocked on return.
 *
 * Return: The number of bytes of the file the folios taken cover, from the
 * start of @folio, or a negative error.
 */
static ssize_t afs_store_folios(struct afs_vnode *vnode,
				struct writeback_control *wbc,
				struct folio *folio, loff_t end)
{
	struct address_space *mapping = vnode->netfs.inode.i_mapping;
	bool new_content = test_bit(AFS_VNODE_NEW_CONTENT, &vnode->flags);
	bool caching = fscache_cookie_enabled(afs_vnode_cache(vnode));
	struct afs_dirty_region r = afs_folio_region(folio);
	pgoff_t first = folio_index(folio), last;
	loff_t start = folio_pos(folio) + r.from;
	loff_t stop;			/* End of the data to store */
	loff_t limit = start + AFS_STORE_MAX_BYTES;
	long count = wbc->nr_to_write;
	struct folio *next, *held = NULL;
	size_t size;
	loff_t i_size;
	int ret;

	afs_folio_start_store(vnode, folio, caching, tracepoint_string("store"));
	count -= folio_nr_pages(folio);
	stop = folio_pos(folio) + r.to;
	size = folio_size(folio);
	last = folio_next_index(folio) - 1;

	/* Carry on into the following folios while they continue the run.
	 * The file's size is read afresh each time, and once more after the
	 * last folio is taken: a writer may extend the file and finish a
	 * folio while we gather, and a size read before that folio was
	 * written would cut its new bytes from the store, which still marks
	 * the whole folio clean (the server's file would get a hole of zeros
	 * there).  A truncation cannot shrink it meanwhile: it waits for the
	 * validate lock that writeback holds.
	 */
	while (stop < i_size_read(&vnode->netfs.inode) && stop < limit &&
	       count > 0 && folio_pos(folio) + size <= end) {
		next = afs_gather_next(mapping, last + 1, &r, size, new_content);
		if (!next)
			break;
		if (held)
			folio_put(held);
		held = next;
		folio = next;
		r = afs_folio_region(folio);
		if (!folio_clear_dirty_for_io(folio))
			WARN_ON_ONCE(1);
		afs_folio_start_store(vnode, folio, caching,
				      tracepoint_string("store+"));
		count -= folio_nr_pages(folio);
		stop = folio_pos(folio) + r.to;
		size = folio_size(folio);
		last = folio_next_index(folio) - 1;
	}

	if (held)
		folio_put(held);
	i_size = i_size_read(&vnode->netfs.inode);
	if (stop > i_size)
		stop = i_size;

	if (stop <= start) {
		/* Truncated away: nothing of it is the file's any more. */
		fscache_clear_page_bits(mapping, (loff_t)first * PAGE_SIZE,
					(last + 1 - first) * PAGE_SIZE, caching);
		afs_store_settle(vnode, wbc, first, last, start, 0, 0);
		ret = 0;
	} else {
		fscache_write_to_cache(afs_vnode_cache(vnode), mapping, start,
				       stop - start, i_size,
				       afs_write_to_cache_done, vnode, caching);
		ret = afs_store_data(vnode, start, stop - start, false);
		afs_store_settle(vnode, wbc, first, last, start, stop - start, ret);
	}

	wbc->nr_to_write = count;
	return ret < 0 ? ret : (loff_t)(last + 1 - first) * PAGE_SIZE;
}

/*
 * Store the dirty folios in [@start, @end] under the file's store lock, and
 * set *@_next to the index of the folio to look at next.  Once the search has
 * gone past @end that index is one past @end / PAGE_SIZE: for @end ==
 * LLONG_MAX, beyond what a byte position can hold, so it is never turned
 * back into one (afs_writeback_resume() says where a cyclic pass resumes).
 */
static int afs_writepages_region(struct address_space *mapping,
				 struct writeback_control *wbc,
				 loff_t start, loff_t end, pgoff_t *_next)
{
	struct afs_vnode *vnode = AFS_FS_I(mapping->host);
	struct folio_batch fbatch;
	struct folio *folio;
	pgoff_t index = start / PAGE_SIZE;
	ssize_t ret = 0;
	unsigned int i, n;

	_enter("%llx,%llx,", start, end);

	folio_batch_init(&fbatch);
	while (wbc->nr_to_write > 0) {
		n = filemap_get_folios_tag(mapping, &index, end / PAGE_SIZE,
					   PAGECACHE_TAG_DIRTY, &fbatch);
		if (!n)
			break;

		for (i = 0; i < n && wbc->nr_to_write > 0; i++) {
			folio = fbatch.folios[i];
			start = folio_pos(folio);

			if (wbc->sync_mode != WB_SYNC_NONE) {
				ret = folio_lock_killable(folio);
				if (ret < 0)
					goto out;
			} else if (!folio_trylock(folio)) {
				continue;
			}

			if (folio->mapping != mapping ||
			    !folio_test_dirty(folio)) {
				folio_unlock(folio);
				continue;
			}
			if (folio_test_writeback(folio) ||
			    folio_test_fscache(folio)) {
				folio_unlock(folio);
				if (wbc->sync_mode == WB_SYNC_NONE)
					continue;
				folio_wait_writeback(folio);
				afs_folio_wait_fscache(folio);
				/* Look at it again in the next batch. */
				index = folio_index(folio);
				break;
			}

			if (!folio_clear_dirty_for_io(folio))
				WARN_ON_ONCE(1);
			ret = afs_store_folios(vnode, wbc, folio, end);
			if (ret < 0)
				goto out;
			start += ret;
			index = start / PAGE_SIZE;
			/* The batch's later folios may have been stored. */
			break;
		}
		folio_batch_release(&fbatch);
		cond_resched();
	}
	ret = 0;
out:
	folio_batch_release(&fbatch);
	*_next = index;
	_leave(" = %zd", ret);
	return ret;
}

/*
 * Where the next cyclic writeback of the file starts, given the index a
 * search of the page cache up to LLONG_MAX stopped at.  A search that found
 * nothing more leaves the index one past LLONG_MAX / PAGE_SIZE, or at
 * (pgoff_t)-1 where pgoff_t cannot go past it; the next pass then starts
 * again from the beginning.
 */
static pgoff_t afs_writeback_resume(pgoff_t next)
{
	if (next == (pgoff_t)-1 || next > (pgoff_t)(LLONG_MAX >> PAGE_SHIFT))
		return 0;
	return next;
}

/**
 * afs_writepages - Store some of the file's dirty data
 * @mapping: The file's mapping
 * @wbc: What to store, and how
 *
 * One store of the file at a time: background writeback leaves a file to the
 * writeback already under way; data-integrity writeback waits for it.
 *
 * Return: 0, or the first store's error that stopped the pass.
 */
int afs_writepages(struct address_space *mapping,
		   struct writeback_control *wbc)
{
	struct afs_vnode *vnode = AFS_FS_I(mapping->host);
	pgoff_t first, next;
	int ret;

	_enter("");

	/* One store of the file at a time.  Background writeback leaves the
	 * file to the writeback already under way.
	 */
	if (wbc->sync_mode == WB_SYNC_NONE) {
		if (!mutex_trylock(&vnode->store_lock))
			return 0;
	} else {
		mutex_lock(&vnode->store_lock);
	}

	/* A truncation must not shrink the file under a store being gathered;
	 * afs_setattr() takes this for writing.
	 */
	if (wbc->sync_mode == WB_SYNC_ALL) {
		down_read(&vnode->validate_lock);
	} else if (!down_read_trylock(&vnode->validate_lock)) {
		mutex_unlock(&vnode->store_lock);
		return 0;
	}

	if (wbc->range_cyclic) {
		/* From where the last pass stopped to the end, then from the
		 * start up to there.
		 */
		first = afs_writeback_resume(mapping->writeback_index);
		ret = afs_writepages_region(mapping, wbc,
					    (loff_t)first * PAGE_SIZE,
					    LLONG_MAX, &next);
		if (ret == 0) {
			mapping->writeback_index = afs_writeback_resume(next);
			if (first > 0 && wbc->nr_to_write > 0) {
				ret = afs_writepages_region(mapping, wbc, 0,
							    (loff_t)first * PAGE_SIZE - 1,
							    &next);
				if (ret == 0)
					mapping->writeback_index = next;
			}
		}
	} else if (wbc->range_start == 0 && wbc->range_end == LLONG_MAX) {
		ret = afs_writepages_region(mapping, wbc, 0, LLONG_MAX, &next);
		if (wbc->nr_to_write > 0 && ret == 0)
			mapping->writeback_index = afs_writeback_resume(next);
	} else {
		ret = afs_writepages_region(mapping, wbc, wbc->range_start,
					    wbc->range_end, &next);
	}

	up_read(&vnode->validate_lock);
	mutex_unlock(&vnode->store_lock);
	_leave(" = %d", ret);
	return ret;
}

/**
 * afs_writepage - Store one locked folio, for reclaim
 * @subpage: A page of the folio
 * @wbc: How to store it
 *
 * Never waits for the store lock while holding the folio's lock, as the
 * holder may be waiting for the folio: a folio that cannot be stored now is
 * redirtied.
 *
 * Return: 0: a failed store is settled here (afs_store_settle()), and an
 * error returned would be recorded on the mapping by reclaim even for data
 * kept for another attempt.
 */
int afs_writepage(struct page *subpage, struct writeback_control *wbc)
{
	struct folio *folio = page_folio(subpage);
	struct afs_vnode *vnode = AFS_FS_I(folio_inode(folio));

	_enter("{%lx},", folio_index(folio));

	if (!mutex_trylock(&vnode->store_lock))
		goto redirty;
	/* As in afs_writepages(): not while a truncation is under way. */
	if (!down_read_trylock(&vnode->validate_lock)) {
		mutex_unlock(&vnode->store_lock);
		goto redirty;
	}
	afs_folio_wait_fscache(folio);
	afs_store_folios(vnode, wbc, folio, LLONG_MAX);
	up_read(&vnode->validate_lock);
	mutex_unlock(&vnode->store_lock);
	return 0;

redirty:
	folio_redirty_for_writepage(wbc, folio);
	folio_unlock(folio);
	return 0;
}

/**
 * afs_file_write - Write to a file
 * @iocb: The write's control block
 * @from: The data
 *
 * Checks first that what we hold of the file is current.
 *
 * Return: The number of bytes written, or a negative error.
 */
ssize_t afs_file_write(struct kiocb *iocb, struct iov_iter *from)
{
	struct afs_vnode *vnode = AFS_FS_I(file_inode(iocb->ki_filp));
	struct afs_file *af = iocb->ki_filp->private_data;
	ssize_t ret;

	_enter("{%llx:%llu},{%zu},",
	       vnode->fid.vid, vnode->fid.vnode, iov_iter_count(from));

	if (IS_SWAPFILE(&vnode->netfs.inode)) {
		pr_info("AFS: Attempt to write to active swap file!\n");
		return -EBUSY;
	}
	if (!iov_iter_count(from))
		return 0;

	ret = afs_validate(vnode, af->key);
	if (ret < 0)
		return ret;

	ret = generic_file_write_iter(iocb, from);
	_leave(" = %zd", ret);
	return ret;
}

/**
 * afs_fsync - Store a file's dirty data
 * @file: The file
 * @start: The first byte to store
 * @end: The last byte to store
 * @datasync: Unused: a store always carries the file's length
 *
 * A pass of writeback does not store the folios of the range that another
 * writeback has under way: it waits for them.  If that store fails, its data
 * is kept dirty (afs_store_settle()) and nothing in the pass says so, and a
 * third writeback may take the data up again before our next look.  Such a
 * store bumps the file's kept_gen: while one did during a pass and the range
 * still holds data to store, make another pass, and after the last report
 * the kept error rather than claim the data stored.
 *
 * Return: 0 once the range's data that was dirty on entry is on the server;
 * otherwise an error a store of the file met since this file last asked.
 */
int afs_fsync(struct file *file, loff_t start, loff_t end, int datasync)
{
	struct afs_vnode *vnode = AFS_FS_I(file_inode(file));
	struct afs_file *af = file->private_data;
	unsigned int gen, pass;
	int ret;

	_enter("{%llx:%llu},{n=%pD},%d",
	       vnode->fid.vid, vnode->fid.vnode, file, datasync);

	ret = afs_validate(vnode, af->key);
	if (ret < 0)
		return ret;

	for (pass = 0; pass < AFS_FSYNC_PASSES; pass++) {
		/* Before the pass looks at the folios.  Pairs with
		 * afs_store_settle(), which redirties a failed store's folios,
		 * then moves the count, then ends their writeback.
		 */
		gen = smp_load_acquire(&vnode->kept_gen);
		ret = file_write_and_wait_range(file, start, end);
		if (ret < 0)
			return ret;
		/* The writeback we waited for is over: read the count after
		 * that, as afs_store_settle() moved it before ending it.
		 */
		smp_rmb();
		if (READ_ONCE(vnode->kept_gen) == gen ||
		    !filemap_range_needs_writeback(file->f_mapping, start, end))
			return 0;
	}
	return afs_store_error_to_report(READ_ONCE(vnode->kept_error)) ?: -EIO;
}

/*
 * A page fault's answer to an error from afs_validate().  Whatever the
 * trouble (the server unreachable, a token expired, memory short, a record
 * mid-update, even the file found deleted), the mapping may write to what
 * the page cache holds, as stock kAFS always let it: the store that follows
 * meets the trouble and keeps or drops the data on its evidence
 * (afs_store_fate()), where a SIGBUS would kill the program for a network
 * blip.  A signal lets itself be delivered, and the fault be taken again.
 */
static vm_fault_t afs_validate_fault(int error)
{
	switch (error) {
	case -EINTR:
	case -ERESTARTSYS:
		return VM_FAULT_NOPAGE;
	default:
		return 0;
	}
}

/**
 * afs_page_mkwrite - Let a shared-writable mapping write to a folio
 * @vmf: The fault
 *
 * The mapping is about to write to a folio it has only read: mark all of it
 * dirty, once any store of it has finished.
 *
 * A fatal signal during a wait answers VM_FAULT_NOPAGE, never VM_FAULT_RETRY:
 * the fault code would take VM_FAULT_RETRY without the folio lock as leave to
 * lock the folio itself, uninterruptibly, and make the mapping writable with
 * no dirty region recorded.
 *
 * Return: VM_FAULT_LOCKED with the folio locked, or why not.
 */
vm_fault_t afs_page_mkwrite(struct vm_fault *vmf)
{
	struct folio *folio = page_folio(vmf->page);
	struct file *file = vmf->vma->vm_file;
	struct inode *inode = file_inode(file);
	struct afs_vnode *vnode = AFS_FS_I(inode);
	struct afs_file *af = file->private_data;
	struct afs_dirty_region r = { .from = 0, .to = folio_size(folio) };
	vm_fault_t ret;

	_enter("{{%llx:%llu}},{%lx}",
	       vnode->fid.vid, vnode->fid.vnode, folio_index(folio));

	ret = afs_validate_fault(afs_validate(vnode, af->key));
	if (ret)
		return ret;

	sb_start_pagefault(inode->i_sb);
	ret = VM_FAULT_NOPAGE;

#ifdef CONFIG_AFS_FSCACHE
	if (folio_test_fscache(folio) &&
	    folio_wait_fscache_killable(folio) < 0)
		goto out;
#endif
	if (folio_lock_killable(folio) < 0)
		goto out;

	/* Truncated or invalidated while we waited: let the fault be
	 * retried on whatever is there now.
	 */
	if (folio->mapping != inode->i_mapping) {
		folio_unlock(folio);
		goto out;
	}

	/* The region being stored must not change under the store. */
	if (folio_wait_writeback_killable(folio) < 0) {
		folio_unlock(folio);
		goto out;
	}

	afs_folio_set_region(vnode, folio, &r, true,
			     tracepoint_string("mkwrite"));
	/* Dirty it here, not only once the fault has made the page writable:
	 * a fault that finds the PTE changed gives up without dirtying, and a
	 * folio with a dirty region but no dirty mark would never be stored
	 * (and afs_write_begin() would wait on it for ever).
	 */
	folio_mark_dirty(folio);
	file_update_time(file);
	ret = VM_FAULT_LOCKED;
out:
	sb_end_pagefault(inode->i_sb);
	return ret;
}

/**
 * afs_prune_wb_keys - Drop the keys of writers whose data is all stored
 * @vnode: The file
 *
 * Keys are dropped only while the file has no dirty or writeback folios and
 * no store holds a reference to them: afs_next_wb_key() walks the list from
 * an entry it holds.
 */
void afs_prune_wb_keys(struct afs_vnode *vnode)
{
	LIST_HEAD(graveyard);
	struct afs_wb_key *wbk, *tmp;

	spin_lock(&vnode->wb_lock);
	if (!mapping_tagged(&vnode->netfs.inode.i_data, PAGECACHE_TAG_WRITEBACK) &&
	    !mapping_tagged(&vnode->netfs.inode.i_data, PAGECACHE_TAG_DIRTY)) {
		list_for_each_entry_safe(wbk, tmp, &vnode->wb_keys, vnode_link) {
			if (refcount_read(&wbk->usage) == 1)
				list_move(&wbk->vnode_link, &graveyard);
		}
	}
	spin_unlock(&vnode->wb_lock);

	list_for_each_entry_safe(wbk, tmp, &graveyard, vnode_link) {
		list_del(&wbk->vnode_link);
		afs_put_wb_key(wbk);
	}
}

/**
 * afs_launder_folio - Store a dirty folio before it is invalidated
 * @folio: The folio, locked and not under writeback
 *
 * It is stored from the page cache like any other.  A folio that fails to
 * store stays dirty, and so stays in the page cache.
 *
 * Return: 0, or the store's error.
 */
int afs_launder_folio(struct folio *folio)
{
	struct afs_vnode *vnode = AFS_FS_I(folio_inode(folio));
	struct afs_dirty_region r;
	int ret = 0;

	_enter("{%lx}", folio->index);

	if (folio_clear_dirty_for_io(folio)) {
		r = afs_folio_region(folio);
		trace_afs_folio_dirty(vnode, tracepoint_string("launder"), folio);
		ret = afs_store_data(vnode, folio_pos(folio) + r.from,
				     r.to - r.from, true);
		if (ret < 0) {
			/* Keep the data: a folio that fails to launder stays
			 * in the page cache, and it must stay dirty there.
			 */
			folio_mark_dirty(folio);
			trace_afs_folio_dirty(vnode,
					      tracepoint_string("launder-fail"),
					      folio);
			return ret;
		}
	}

	trace_afs_folio_dirty(vnode, tracepoint_string("laundered"), folio);
	folio_detach_private(folio);
	afs_folio_wait_fscache(folio);
	return ret;
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/write_kunit.c"
#endif
