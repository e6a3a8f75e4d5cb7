// SPDX-License-Identifier: GPL-2.0-or-later
/* Keys, the permit cache and permission checks.
 *
 * Copyright (C) 2007, 2017 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * Copyright (C) 2026 The kAFS overlay authors.
 *
 * A fileserver tells us, with each status it returns, what access the key
 * that made the call has to the file (CallerAccess).  We remember that per
 * inode, as a set of (key, access) permits, so that the path walk can decide
 * most permission checks, even in RCU mode, without asking the server.
 *
 * Sets are shared: inodes under one ACL tend to grant the same keys the same
 * access, so identical sets are found through a hash table and ten thousand
 * inodes cost one set.  A set is immutable once published; changing an
 * inode's permits publishes a new set and drops the old one, and readers
 * rely on RCU alone.  A set is sorted by key pointer, which makes it
 * canonical: the same permits give the same set whatever order the keys
 * were added in.
 */

#include <linux/init.h>
#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/ctype.h>
#include <linux/sched.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <keys/rxrpc-type.h>
#include "internal.h"

/*
 * A bound on the keys one inode's set may hold: each change copies the set,
 * so it must not grow without limit.  Beyond it, the extra keys are simply
 * not cached and their checks go to the fileserver.
 */
#define AFS_MAX_PERMITS		1024

static DEFINE_HASHTABLE(afs_permits_cache, 10);
static DEFINE_SPINLOCK(afs_permits_lock);

/*
 * Turn the result of a key search into the key to use: the cell's anonymous
 * key stands in when the user has none for the cell.
 */
static struct key *afs_key_or_anonymous(struct afs_cell *cell, struct key *key)
{
	if (IS_ERR(key)) {
		if (PTR_ERR(key) != -ENOKEY) {
			_leave(" = %ld", PTR_ERR(key));
			return key;
		}
		_leave(" = {%x} [anon]", key_serial(cell->anonymous_key));
		return key_get(cell->anonymous_key);
	}

	_leave(" = {%x} [auth]", key_serial(key));
	return key;
}

/**
 * afs_request_key - Get the calling user's key for a cell
 * @cell: The cell
 *
 * Return: A reference on the user's rxrpc key for @cell, on the cell's
 * anonymous key if the user has none, or an error from the key search.
 */
struct key *afs_request_key(struct afs_cell *cell)
{
	_enter("{%x}", key_serial(cell->anonymous_key));

	return afs_key_or_anonymous(cell,
				    request_key_net(&key_type_rxrpc,
						    cell->anonymous_key->description,
						    cell->net->net, NULL));
}

/**
 * afs_request_key_rcu - Get the calling user's key for a cell in RCU walk
 * @cell: The cell
 *
 * As afs_request_key(), but without sleeping.
 *
 * Return: A reference on a key, or an error.
 */
struct key *afs_request_key_rcu(struct afs_cell *cell)
{
	_enter("{%x}", key_serial(cell->anonymous_key));

	return afs_key_or_anonymous(cell,
				    request_key_net_rcu(&key_type_rxrpc,
							cell->anonymous_key->description,
							cell->net->net));
}

static void afs_permits_rcu(struct rcu_head *rcu)
{
	struct afs_permits *permits = container_of(rcu, struct afs_permits, rcu);
	unsigned int i;

	for (i = 0; i < permits->nr_permits; i++)
		key_put(permits->permits[i].key);
	kfree(permits);
}

/**
 * afs_put_permits - Drop a reference on a permit set
 * @permits: The set, or NULL
 *
 * The last reference takes the set out of the hash at once, so that it is no
 * longer shared, and frees it, with its key references, after an RCU grace
 * period.
 */
void afs_put_permits(struct afs_permits *permits)
{
	if (permits && refcount_dec_and_test(&permits->usage)) {
		spin_lock(&afs_permits_lock);
		hash_del_rcu(&permits->hash_node);
		spin_unlock(&afs_permits_lock);
		call_rcu(&permits->rcu, afs_permits_rcu);
	}
}

/**
 * afs_clear_permits - Forget an inode's permits
 * @vnode: The inode
 *
 * Called when a callback break means the ACL may have changed.
 */
void afs_clear_permits(struct afs_vnode *vnode)
{
	struct afs_permits *permits;

	spin_lock(&vnode->lock);
	permits = rcu_dereference_protected(vnode->permit_cache,
					    lockdep_is_held(&vnode->lock));
	RCU_INIT_POINTER(vnode->permit_cache, NULL);
	spin_unlock(&vnode->lock);

	afs_put_permits(permits);
}

/*
 * Find a key's permit in a set by binary search on the key pointer.
 */
static const struct afs_permit *afs_find_permit(const struct afs_permits *permits,
						const struct key *key)
{
	unsigned int lo = 0, hi = permits->nr_permits;

	while (lo < hi) {
		unsigned int mid = lo + (hi - lo) / 2;
		unsigned long k = (unsigned long)permits->permits[mid].key;

		if (k == (unsigned long)key)
			return &permits->permits[mid];
		if (k < (unsigned long)key)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static u32 afs_hash_permits(const struct afs_permits *permits)
{
	u32 h = permits->nr_permits;
	unsigned int i;

	for (i = 0; i < permits->nr_permits; i++)
		h = jhash_3words((unsigned long)permits->permits[i].key,
				 (u64)(unsigned long)permits->permits[i].key >> 32,
				 permits->permits[i].access, h);
	return h;
}

static bool afs_permits_equal(const struct afs_permits *a,
			      const struct afs_permits *b)
{
	unsigned int i;

	if (a->h != b->h || a->nr_permits != b->nr_permits)
		return false;
	for (i = 0; i < a->nr_permits; i++)
		if (a->permits[i].key != b->permits[i].key ||
		    a->permits[i].access != b->permits[i].access)
			return false;
	return true;
}

/*
 * Make the set that @base becomes when @key is given @access: @key's permit
 * is inserted in key order, or replaced.  No key references are taken yet.
 */
static struct afs_permits *afs_alloc_permits(const struct afs_permits *base,
					     struct key *key,
					     afs_access_t access)
{
	struct afs_permits *new;
	unsigned int nr = base ? base->nr_permits : 0, i, j = 0;
	bool placed = false;

	if (base && afs_find_permit(base, key))
		nr--;
	if (nr >= AFS_MAX_PERMITS)
		return NULL;

	new = kzalloc(struct_size(new, permits, nr + 1), GFP_NOFS);
	if (!new)
		return NULL;

	refcount_set(&new->usage, 1);
	for (i = 0; base && i < base->nr_permits; i++) {
		struct key *k = base->permits[i].key;

		if (k == key)
			continue;
		if (!placed && (unsigned long)k > (unsigned long)key) {
			new->permits[j].key = key;
			new->permits[j++].access = access;
			placed = true;
		}
		new->permits[j++] = base->permits[i];
	}
	if (!placed) {
		new->permits[j].key = key;
		new->permits[j++].access = access;
	}
	new->nr_permits = j;
	new->h = afs_hash_permits(new);
	return new;
}

/*
 * Publish @new, or find the identical set that is already published and
 * share it instead.  Either way, return a set with a reference for the
 * caller; @new is consumed.
 */
static struct afs_permits *afs_publish_permits(struct afs_permits *new)
{
	struct afs_permits *xpermits;
	unsigned int i;

	spin_lock(&afs_permits_lock);

	hash_for_each_possible(afs_permits_cache, xpermits, hash_node, new->h) {
		/* A set on its way out may still be hashed; an identical
		 * live one may follow it.
		 */
		if (afs_permits_equal(xpermits, new) &&
		    refcount_inc_not_zero(&xpermits->usage)) {
			spin_unlock(&afs_permits_lock);
			kfree(new);
			return xpermits;
		}
	}

	for (i = 0; i < new->nr_permits; i++)
		key_get(new->permits[i].key);
	hash_add_rcu(afs_permits_cache, &new->hash_node, new->h);
	spin_unlock(&afs_permits_lock);
	return new;
}

/*
 * Take the inode's set off it if that set gives @key an access other than
 * @access: the fileserver has just contradicted it.  The set's other permits
 * go with it, as the ACL they were read under has changed.  The inode's
 * reference pins its set while vnode->lock is held, so the set can be read
 * here without RCU.
 */
static void afs_drop_contradicted_permits(struct afs_vnode *vnode,
					  struct key *key, afs_access_t access)
{
	struct afs_permits *permits;
	const struct afs_permit *permit;

	spin_lock(&vnode->lock);
	permits = rcu_dereference_protected(vnode->permit_cache,
					    lockdep_is_held(&vnode->lock));
	if (permits) {
		permit = afs_find_permit(permits, key);
		if (permit && permit->access != access)
			RCU_INIT_POINTER(vnode->permit_cache, NULL);
		else
			permits = NULL;
	}
	spin_unlock(&vnode->lock);

	afs_put_permits(permits);
}

/*
 * Has a callback break happened since @cb_break was taken?  @cb_break is
 * afs_calc_vnode_cb_break() as the operation began; a break on the vnode
 * moves its cb_break, and a volume-wide break moves the volume's cb_v_break
 * away from the vnode's copy of it until the vnode is revalidated.  Both
 * sides are computed the same way, so an unbroken vnode always compares
 * equal.
 */
static bool afs_permit_cb_broken(struct afs_vnode *vnode, unsigned int cb_break)
{
	return cb_break != afs_calc_vnode_cb_break(vnode) ||
	       READ_ONCE(vnode->cb_v_break) != READ_ONCE(vnode->volume->cb_v_break);
}

/**
 * afs_cache_permit - Remember the access a key was given to an inode
 * @vnode: The inode
 * @key: The key the operation was made with
 * @cb_break: afs_calc_vnode_cb_break() of @vnode as the operation began
 * @scb: The status the fileserver returned, with its CallerAccess
 *
 * If the key's access changed, the ACL did: the inode's set is taken off it
 * at once, before anything that can fail, so that neither an allocation
 * failure nor a callback break can leave the contradicted access installed
 * for afs_check_permit() to read; the other keys' permits go with it.  If a
 * callback break happened while the operation was in flight, the ACL may
 * have changed under it and nothing new is cached.
 */
void afs_cache_permit(struct afs_vnode *vnode, struct key *key,
		      unsigned int cb_break, struct afs_status_cb *scb)
{
	struct afs_permits *permits, *new, *replacement, *zap;
	afs_access_t access = scb->status.caller_access;
	const struct afs_permit *permit;
	bool acl_changed = false;

	_enter("{%llx:%llu},%x,%x",
	       vnode->fid.vid, vnode->fid.vnode, key_serial(key), access);

	rcu_read_lock();
	permits = rcu_dereference(vnode->permit_cache);
	if (permits) {
		permit = afs_find_permit(permits, key);
		if (permit && permit->access == access) {
			rcu_read_unlock();
			_leave(" [cached]");
			return;
		}
		acl_changed = permit;
	}
	/* The new set is built from the old one, unless the old one is
	 * contradicted.  A set whose last reference is going is being
	 * replaced by someone else: leave it to them.
	 */
	if (acl_changed) {
		permits = NULL;
	} else if (permits && !refcount_inc_not_zero(&permits->usage)) {
		rcu_read_unlock();
		_leave(" [busy]");
		return;
	}
	rcu_read_unlock();

	if (acl_changed)
		afs_drop_contradicted_permits(vnode, key, access);

	if (afs_permit_cb_broken(vnode, cb_break))
		goto out;

	new = afs_alloc_permits(permits, key, access);
	if (!new)
		goto out;
	replacement = afs_publish_permits(new);

	/* Install only if nothing changed the inode's set (or, after a
	 * contradiction, gave it one) or broke the callback while we were
	 * building ours; our reference on the old set keeps its address from
	 * being reused meanwhile.
	 */
	spin_lock(&vnode->lock);
	zap = rcu_dereference_protected(vnode->permit_cache,
					lockdep_is_held(&vnode->lock));
	if (zap == permits && !afs_permit_cb_broken(vnode, cb_break))
		rcu_assign_pointer(vnode->permit_cache, replacement);
	else
		zap = replacement;
	spin_unlock(&vnode->lock);
	afs_put_permits(zap);
out:
	afs_put_permits(permits);
	_leave("");
}

/*
 * Look up the access a key has been given to an inode, without sleeping.
 * The caller holds the RCU read lock.
 */
static bool afs_check_permit_cached(struct afs_vnode *vnode, struct key *key,
				    afs_access_t *_access)
{
	const struct afs_permits *permits;
	const struct afs_permit *permit;

	if (key == vnode->volume->cell->anonymous_key) {
		*_access = vnode->status.anon_access;
		return true;
	}

	permits = rcu_dereference(vnode->permit_cache);
	if (!permits)
		return false;
	permit = afs_find_permit(permits, key);
	if (!permit)
		return false;
	*_access = permit->access;
	return true;
}

/**
 * afs_check_permit - Find out what access a key has to an inode
 * @vnode: The inode
 * @key: The key
 * @_access: Where to put the access
 *
 * The permit cache answers if it can; otherwise the inode's status is fetched
 * from the fileserver, which caches the answer on the way back.
 *
 * Return: 0 with *@_access set, or an error from the fileserver (with
 * *@_access cleared).
 */
int afs_check_permit(struct afs_vnode *vnode, struct key *key,
		     afs_access_t *_access)
{
	bool cached;
	int ret;

	_enter("{%llx:%llu},%x",
	       vnode->fid.vid, vnode->fid.vnode, key_serial(key));

	rcu_read_lock();
	cached = afs_check_permit_cached(vnode, key, _access);
	rcu_read_unlock();

	if (!cached) {
		ret = afs_fetch_status(vnode, key, false, _access);
		if (ret < 0) {
			*_access = 0;
			_leave(" = %d", ret);
			return ret;
		}
	}

	_leave(" = 0 [access %x]", *_access);
	return 0;
}

/*
 * The RCU-walk half of a permission check: anything that would need to
 * sleep, to validate the inode or to ask the server, sends the walk back to
 * ref-walk with -ECHILD.
 */
static int afs_check_permit_rcu(struct afs_vnode *vnode, struct key *key,
				afs_access_t *_access)
{
	if (!afs_check_validity(vnode) ||
	    !afs_check_permit_cached(vnode, key, _access))
		return -ECHILD;
	return 0;
}

/* The owner's mode bits, which AFS applies to every user of a file. */
#define AFS_OWNER_R	0400
#define AFS_OWNER_W	0200
#define AFS_OWNER_X	0100

/*
 * Decide a permission check from the access the ACL gives.  Directories are
 * governed by their ACL alone; files also by their owner mode bits, which
 * AFS uses as a mask for everybody.
 */
static int afs_access_permits(umode_t mode, afs_access_t access, int mask)
{
	if (S_ISDIR(mode)) {
		if ((mask & (MAY_EXEC | MAY_READ | MAY_CHDIR)) &&
		    !(access & AFS_ACE_LOOKUP))
			return -EACCES;
		/* rmdir, unlink and rename-from need DELETE; create, mkdir,
		 * symlink and rename-to need INSERT.
		 */
		if ((mask & MAY_WRITE) &&
		    !(access & (AFS_ACE_DELETE | AFS_ACE_INSERT)))
			return -EACCES;
		return 0;
	}

	if (!(access & AFS_ACE_LOOKUP))
		return -EACCES;
	if ((mask & MAY_EXEC) && !(mode & AFS_OWNER_X))
		return -EACCES;
	if (mask & (MAY_EXEC | MAY_READ)) {
		if (!(access & AFS_ACE_READ) || !(mode & AFS_OWNER_R))
			return -EACCES;
	} else if (mask & MAY_WRITE) {
		if (!(access & AFS_ACE_WRITE) || !(mode & AFS_OWNER_W))
			return -EACCES;
	}
	return 0;
}

/**
 * afs_permission - Check access to an AFS inode
 * @mnt_userns: The idmapping of the mount (unused: AFS has its own ACLs)
 * @inode: The inode
 * @mask: The MAY_* access wanted, with MAY_NOT_BLOCK in RCU walk
 *
 * Return: 0 if allowed, -EACCES if not, -ECHILD if RCU walk must drop to
 * ref-walk, or an error from the key search or the fileserver.
 */
int afs_permission(struct user_namespace *mnt_userns, struct inode *inode,
		   int mask)
{
	struct afs_vnode *vnode = AFS_FS_I(inode);
	afs_access_t access;
	struct key *key;
	int ret;

	_enter("{{%llx:%llu},%lx},%x,",
	       vnode->fid.vid, vnode->fid.vnode, vnode->flags, mask);

	if (mask & MAY_NOT_BLOCK) {
		key = afs_request_key_rcu(vnode->volume->cell);
		if (IS_ERR(key))
			return -ECHILD;
		ret = afs_check_permit_rcu(vnode, key, &access);
	} else {
		key = afs_request_key(vnode->volume->cell);
		if (IS_ERR(key)) {
			_leave(" = %ld [key]", PTR_ERR(key));
			return PTR_ERR(key);
		}
		ret = afs_validate(vnode, key);
		if (ret == 0)
			ret = afs_check_permit(vnode, key, &access);
	}

	if (ret == 0)
		ret = afs_access_permits(inode->i_mode, access, mask);
	key_put(key);
	_leave(" = %d", ret);
	return ret;
}

/**
 * afs_clean_up_permit_cache - Check that no permit set outlived its inodes
 *
 * Called as kafs is unloaded, after every inode has gone.
 */
void __exit afs_clean_up_permit_cache(void)
{
	int i;

	for (i = 0; i < HASH_SIZE(afs_permits_cache); i++)
		WARN_ON_ONCE(!hlist_empty(&afs_permits_cache[i]));
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/security_kunit.c"
#endif
