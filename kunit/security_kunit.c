// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for the permit cache: sharing, callback breaks, references.
 *
 * Included by security.c.  The inodes, volume and cell are bare records built
 * here: the permit cache touches only their locks, break counters, status
 * and permit pointer.  The keys are real keyrings.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/delay.h>
#include <linux/kthread.h>
#include <linux/prandom.h>
#include <linux/cred.h>
#include <linux/key.h>

#define AFS_TEST_NR_KEYS	64
#define AFS_TEST_NR_VNODES	8

struct afs_test_permits_fixture {
	struct afs_cell		*cell;
	struct afs_volume	*volume;
	struct afs_vnode	*vnodes[AFS_TEST_NR_VNODES];
	struct key		*keys[AFS_TEST_NR_KEYS];
	unsigned int		nr_keys;
};

static struct key *afs_test_make_key(const char *desc)
{
	return keyring_alloc(desc, GLOBAL_ROOT_UID, GLOBAL_ROOT_GID,
			     current_cred(), KEY_POS_ALL,
			     KEY_ALLOC_NOT_IN_QUOTA, NULL, NULL);
}

static struct afs_vnode *afs_test_make_vnode(struct kunit *test,
					     struct afs_volume *volume,
					     unsigned int n)
{
	struct afs_vnode *vnode = kunit_kzalloc(test, sizeof(*vnode), GFP_KERNEL);

	if (!vnode)
		return NULL;
	spin_lock_init(&vnode->lock);
	seqlock_init(&vnode->cb_lock);
	vnode->volume = volume;
	vnode->fid.vid = 0x20000001;
	vnode->fid.vnode = n + 1;
	return vnode;
}

/* How many sets are in the hash, live or dying. */
static unsigned int afs_test_nr_hashed(void)
{
	struct afs_permits *permits;
	unsigned int nr = 0;
	int bkt;

	spin_lock(&afs_permits_lock);
	hash_for_each(afs_permits_cache, bkt, permits, hash_node)
		nr++;
	spin_unlock(&afs_permits_lock);
	return nr;
}

static int afs_test_permits_init(struct kunit *test)
{
	struct afs_test_permits_fixture *f;
	char desc[32];
	int i;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;

	/* The cache is global: start from empty so that counts mean what
	 * they say.  Nothing else in a KUnit boot uses AFS.
	 */
	if (afs_test_nr_hashed() != 0)
		return -EBUSY;

	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	f->volume = kunit_kzalloc(test, sizeof(*f->volume), GFP_KERNEL);
	if (!f->cell || !f->volume)
		return -ENOMEM;
	f->volume->cell = f->cell;

	f->cell->anonymous_key = afs_test_make_key("afs@test.example");
	if (IS_ERR(f->cell->anonymous_key)) {
		int ret = PTR_ERR(f->cell->anonymous_key);

		f->cell->anonymous_key = NULL;
		return ret;
	}

	for (i = 0; i < AFS_TEST_NR_KEYS; i++) {
		snprintf(desc, sizeof(desc), "afs_test_key_%d", i);
		f->keys[i] = afs_test_make_key(desc);
		if (IS_ERR(f->keys[i])) {
			int ret = PTR_ERR(f->keys[i]);

			f->keys[i] = NULL;
			return ret;
		}
		f->nr_keys++;
	}

	for (i = 0; i < AFS_TEST_NR_VNODES; i++) {
		f->vnodes[i] = afs_test_make_vnode(test, f->volume, i);
		if (!f->vnodes[i])
			return -ENOMEM;
	}
	return 0;
}

/*
 * Drop every permit, wait for the sets to be freed, and check that the hash
 * is empty and that each key is back to the one reference the fixture holds.
 */
static void afs_test_permits_exit(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	unsigned int i;

	afs_kunit_failslab_end(test);

	if (!f)
		return;
	for (i = 0; i < AFS_TEST_NR_VNODES; i++)
		if (f->vnodes[i])
			afs_clear_permits(f->vnodes[i]);
	rcu_barrier();

	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 0);
	for (i = 0; i < f->nr_keys; i++) {
		KUNIT_EXPECT_EQ_MSG(test, refcount_read(&f->keys[i]->usage), 1,
				    "key %u", i);
		key_put(f->keys[i]);
	}
	if (f->cell && f->cell->anonymous_key)
		key_put(f->cell->anonymous_key);
}

/* Cache @access for key @k on vnode @v, as a fileserver reply would. */
static void afs_test_cache(struct afs_test_permits_fixture *f, unsigned int v,
			   unsigned int k, afs_access_t access)
{
	struct afs_vnode *vnode = f->vnodes[v];
	struct afs_status_cb scb = { .status.caller_access = access };

	afs_cache_permit(vnode, f->keys[k], afs_calc_vnode_cb_break(vnode), &scb);
}

static struct afs_permits *afs_test_permits(struct afs_test_permits_fixture *f,
					    unsigned int v)
{
	return rcu_access_pointer(f->vnodes[v]->permit_cache);
}

static void afs_permits_share_identical(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_permits *p;

	afs_test_cache(f, 0, 1, AFS_ACE_READ | AFS_ACE_LOOKUP);
	afs_test_cache(f, 1, 1, AFS_ACE_READ | AFS_ACE_LOOKUP);

	p = afs_test_permits(f, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 1), p);
	KUNIT_EXPECT_EQ(test, refcount_read(&p->usage), 2);
	KUNIT_EXPECT_EQ(test, p->nr_permits, 1);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 1);
	/* The set holds one reference on its key. */
	KUNIT_EXPECT_EQ(test, refcount_read(&f->keys[1]->usage), 2);
}

static void afs_permits_share_any_order(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 0, 2, AFS_ACE_LOOKUP);
	afs_test_cache(f, 0, 3, AFS_ACE_WRITE);
	afs_test_cache(f, 1, 3, AFS_ACE_WRITE);
	afs_test_cache(f, 1, 1, AFS_ACE_READ);
	afs_test_cache(f, 1, 2, AFS_ACE_LOOKUP);

	KUNIT_ASSERT_NOT_NULL(test, afs_test_permits(f, 0));
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 1), afs_test_permits(f, 0));
	KUNIT_EXPECT_EQ(test, afs_test_permits(f, 0)->nr_permits, 3);
	KUNIT_EXPECT_EQ(test, refcount_read(&afs_test_permits(f, 0)->usage), 2);
}

static void afs_permits_different_access(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_permits *p0;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 1, 1, AFS_ACE_READ);
	p0 = afs_test_permits(f, 0);

	/* The ACL on vnode 1 changed: it gets a set of its own. */
	afs_test_cache(f, 1, 1, AFS_ACE_READ | AFS_ACE_WRITE);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 0), p0);
	KUNIT_EXPECT_PTR_NE(test, afs_test_permits(f, 1), p0);
	KUNIT_EXPECT_EQ(test, refcount_read(&p0->usage), 1);
	KUNIT_EXPECT_EQ(test, p0->permits[0].access, AFS_ACE_READ);
	KUNIT_EXPECT_EQ(test, afs_test_permits(f, 1)->permits[0].access,
			AFS_ACE_READ | AFS_ACE_WRITE);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 2);
}

/* A changed ACL invalidates the other keys' permits on that inode too. */
static void afs_permits_access_change_drops_others(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 0, 2, AFS_ACE_READ);
	afs_test_cache(f, 0, 1, AFS_ACE_LOOKUP);
	KUNIT_ASSERT_NOT_NULL(test, afs_test_permits(f, 0));
	KUNIT_EXPECT_EQ(test, afs_test_permits(f, 0)->nr_permits, 1);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 0)->permits[0].key,
			    f->keys[1]);
}

/*
 * The fileserver contradicts the access cached for a key, and the set that
 * should replace the contradicted one cannot be allocated (a real failure,
 * from failslab, in this task only): the contradicted set must not stay on
 * the inode for afs_check_permit() to read.  Vnode 1 shares the set, so that
 * dropping vnode 0's reference frees nothing while failslab is armed.
 */
static void afs_permits_contradicted_set_dropped_on_alloc_failure(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	struct afs_status_cb scb = { .status.caller_access = AFS_ACE_LOOKUP };
	struct afs_test_failslab fs;
	struct afs_permits *shared;
	afs_access_t access;
	int injected;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 1, 1, AFS_ACE_READ);
	shared = afs_test_permits(f, 0);
	KUNIT_ASSERT_NOT_NULL(test, shared);
	KUNIT_ASSERT_PTR_EQ(test, afs_test_permits(f, 1), shared);

	if (!afs_test_failslab_arm(&fs, 1, 1, 1))
		kunit_skip(test, "needs CONFIG_FAILSLAB and CONFIG_FAULT_INJECTION_DEBUG_FS");
	afs_cache_permit(vnode, f->keys[1], afs_calc_vnode_cb_break(vnode), &scb);
	injected = afs_test_failslab_disarm(&fs);

	KUNIT_ASSERT_EQ_MSG(test, injected, 1,
			    "failslab did not fail the new set's allocation");
	KUNIT_EXPECT_NULL(test, afs_test_permits(f, 0));
	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, afs_check_permit_cached(vnode, f->keys[1], &access));
	rcu_read_unlock();
	/* Vnode 1 was not contradicted: it keeps the set. */
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 1), shared);
	KUNIT_EXPECT_EQ(test, refcount_read(&shared->usage), 1);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 1);
}

/*
 * The fileserver contradicts the access cached for a key, and a volume-wide
 * callback break landed while the call was in flight, so nothing new may be
 * cached: the contradicted set (and the other key's permit, read under the
 * old ACL) must still go.
 */
static void afs_permits_contradicted_set_dropped_on_break(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	struct afs_status_cb scb = { .status.caller_access = AFS_ACE_LOOKUP };
	unsigned int cb_break;
	afs_access_t access;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 0, 2, AFS_ACE_READ);
	KUNIT_ASSERT_NOT_NULL(test, afs_test_permits(f, 0));

	cb_break = afs_calc_vnode_cb_break(vnode);
	f->volume->cb_v_break++;
	afs_cache_permit(vnode, f->keys[1], cb_break, &scb);

	KUNIT_EXPECT_NULL(test, afs_test_permits(f, 0));
	rcu_read_lock();
	KUNIT_EXPECT_FALSE(test, afs_check_permit_cached(vnode, f->keys[1], &access));
	KUNIT_EXPECT_FALSE(test, afs_check_permit_cached(vnode, f->keys[2], &access));
	rcu_read_unlock();
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 0);
}

static void afs_permits_add_key_unshares(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_permits *shared;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 1, 1, AFS_ACE_READ);
	shared = afs_test_permits(f, 0);

	afs_test_cache(f, 1, 2, AFS_ACE_LOOKUP);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 0), shared);
	KUNIT_EXPECT_EQ(test, shared->nr_permits, 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&shared->usage), 1);
	KUNIT_ASSERT_NOT_NULL(test, afs_test_permits(f, 1));
	KUNIT_EXPECT_EQ(test, afs_test_permits(f, 1)->nr_permits, 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&afs_test_permits(f, 1)->usage), 1);
}

/* The same permit again changes nothing, not even a reference. */
static void afs_permits_recache_is_noop(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_permits *p;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	p = afs_test_permits(f, 0);
	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_permits(f, 0), p);
	KUNIT_EXPECT_EQ(test, refcount_read(&p->usage), 1);
}

static void afs_permits_vnode_break_not_cached(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	struct afs_status_cb scb = { .status.caller_access = AFS_ACE_READ };
	unsigned int cb_break = afs_calc_vnode_cb_break(vnode);

	vnode->cb_break++;	/* The break lands while the call is in flight. */
	afs_cache_permit(vnode, f->keys[1], cb_break, &scb);
	KUNIT_EXPECT_NULL(test, afs_test_permits(f, 0));
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 0);
}

static void afs_permits_volume_break_not_cached(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	struct afs_status_cb scb = { .status.caller_access = AFS_ACE_READ };
	unsigned int cb_break = afs_calc_vnode_cb_break(vnode);

	f->volume->cb_v_break++;
	afs_cache_permit(vnode, f->keys[1], cb_break, &scb);
	KUNIT_EXPECT_NULL(test, afs_test_permits(f, 0));
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 0);
}

/* A break that lands after an earlier permit still blocks the new one. */
static void afs_permits_break_keeps_old_set(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	struct afs_status_cb scb = { .status.caller_access = AFS_ACE_READ };
	unsigned int cb_break;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	cb_break = afs_calc_vnode_cb_break(vnode);
	vnode->cb_break++;
	afs_cache_permit(vnode, f->keys[2], cb_break, &scb);
	KUNIT_ASSERT_NOT_NULL(test, afs_test_permits(f, 0));
	KUNIT_EXPECT_EQ(test, afs_test_permits(f, 0)->nr_permits, 1);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 1);
}

/*
 * A vnode whose copy of the volume break counter is current caches at once,
 * whatever that counter's value.  (That the callers pass the right counter is
 * the afs_dir suite's business: create, mkdir and symlink.)
 */
static void afs_permits_current_volume_break_caches(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;

	f->volume->cb_v_break = 5;
	f->vnodes[0]->cb_v_break = 5;
	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	KUNIT_EXPECT_NOT_NULL(test, afs_test_permits(f, 0));
}

static void afs_permits_clear_releases(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_permits *p;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);
	afs_test_cache(f, 0, 2, AFS_ACE_READ);
	afs_test_cache(f, 1, 1, AFS_ACE_READ);
	afs_test_cache(f, 1, 2, AFS_ACE_READ);
	p = afs_test_permits(f, 0);
	KUNIT_ASSERT_NOT_NULL(test, p);
	KUNIT_EXPECT_EQ(test, refcount_read(&p->usage), 2);

	afs_clear_permits(f->vnodes[0]);
	KUNIT_EXPECT_NULL(test, afs_test_permits(f, 0));
	KUNIT_EXPECT_EQ(test, refcount_read(&p->usage), 1);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 1);

	afs_clear_permits(f->vnodes[1]);
	/* Unhashed at once, freed with its key references after RCU. */
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 0);
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, refcount_read(&f->keys[1]->usage), 1);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->keys[2]->usage), 1);
}

/* Ten thousand files under one ACL cost one set; here, a thousand. */
static void afs_permits_one_set_for_many(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_status_cb scb = { .status.caller_access = AFS_ACE_READ };
	struct afs_vnode **many;
	struct afs_permits *p;
	int i;

	many = kunit_kcalloc(test, 1000, sizeof(*many), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, many);
	for (i = 0; i < 1000; i++) {
		many[i] = afs_test_make_vnode(test, f->volume, 100 + i);
		KUNIT_ASSERT_NOT_NULL(test, many[i]);
		afs_cache_permit(many[i], f->keys[1], 0, &scb);
		afs_cache_permit(many[i], f->keys[2], 0, &scb);
	}

	p = rcu_access_pointer(many[0]->permit_cache);
	KUNIT_ASSERT_NOT_NULL(test, p);
	for (i = 1; i < 1000; i++)
		KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(many[i]->permit_cache), p);
	KUNIT_EXPECT_EQ(test, refcount_read(&p->usage), 1000);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 1);

	for (i = 0; i < 1000; i++)
		afs_clear_permits(many[i]);
	KUNIT_EXPECT_EQ(test, afs_test_nr_hashed(), 0);
}

static void afs_permits_check_hit_and_miss(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	afs_access_t access = 0;

	afs_test_cache(f, 0, 1, AFS_ACE_READ | AFS_ACE_LOOKUP);
	afs_test_cache(f, 0, 3, AFS_ACE_LOOKUP);

	rcu_read_lock();
	KUNIT_EXPECT_TRUE(test, afs_check_permit_cached(vnode, f->keys[1], &access));
	KUNIT_EXPECT_EQ(test, access, AFS_ACE_READ | AFS_ACE_LOOKUP);
	KUNIT_EXPECT_TRUE(test, afs_check_permit_cached(vnode, f->keys[3], &access));
	KUNIT_EXPECT_EQ(test, access, AFS_ACE_LOOKUP);
	KUNIT_EXPECT_FALSE(test, afs_check_permit_cached(vnode, f->keys[2], &access));
	KUNIT_EXPECT_FALSE(test, afs_check_permit_cached(f->vnodes[1], f->keys[1], &access));
	rcu_read_unlock();

	/* A hit never goes to the fileserver. */
	access = 0;
	KUNIT_EXPECT_EQ(test, afs_check_permit(vnode, f->keys[1], &access), 0);
	KUNIT_EXPECT_EQ(test, access, AFS_ACE_READ | AFS_ACE_LOOKUP);
}

static void afs_permits_check_anonymous(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	afs_access_t access = 0;

	vnode->status.anon_access = AFS_ACE_LOOKUP;
	KUNIT_EXPECT_EQ(test, afs_check_permit(vnode, f->cell->anonymous_key, &access), 0);
	KUNIT_EXPECT_EQ(test, access, AFS_ACE_LOOKUP);
}

/*
 * RCU walk: only a valid inode with a cached permit can be decided; anything
 * else sends the walk back with -ECHILD.  A deleted inode needs no callback
 * promise to be valid, which lets the test avoid a fileserver record.
 */
static void afs_permits_check_rcu_walk(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_vnode *vnode = f->vnodes[0];
	afs_access_t access = 0;

	afs_test_cache(f, 0, 1, AFS_ACE_READ);

	rcu_read_lock();
	/* No callback promise: not valid, even with the permit cached. */
	KUNIT_EXPECT_EQ(test, afs_check_permit_rcu(vnode, f->keys[1], &access), -ECHILD);

	set_bit(AFS_VNODE_DELETED, &vnode->flags);
	KUNIT_EXPECT_EQ(test, afs_check_permit_rcu(vnode, f->keys[1], &access), 0);
	KUNIT_EXPECT_EQ(test, access, AFS_ACE_READ);
	KUNIT_EXPECT_EQ(test, afs_check_permit_rcu(vnode, f->keys[2], &access), -ECHILD);
	rcu_read_unlock();
}

static void afs_permits_access_rules(struct kunit *test)
{
	const afs_access_t rl = AFS_ACE_READ | AFS_ACE_LOOKUP;

	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFDIR | 0755, AFS_ACE_LOOKUP, MAY_EXEC), 0);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFDIR | 0755, AFS_ACE_READ, MAY_READ), -EACCES);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFDIR | 0755, AFS_ACE_INSERT, MAY_WRITE), 0);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFDIR | 0755, rl, MAY_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFREG | 0644, rl, MAY_READ), 0);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFREG | 0244, rl, MAY_READ), -EACCES);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFREG | 0644, rl, MAY_EXEC), -EACCES);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFREG | 0644, rl, MAY_WRITE), -EACCES);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFREG | 0644, rl | AFS_ACE_WRITE, MAY_WRITE), 0);
	KUNIT_EXPECT_EQ(test, afs_access_permits(S_IFREG | 0644, AFS_ACE_READ, MAY_READ), -EACCES);
}

/*
 * Several threads cache and clear permits on shared inodes at once; at the
 * end, the exit handler checks that every reference balances.
 */
#define AFS_TEST_THREADS	4
#define AFS_TEST_THREAD_OPS	5000

struct afs_test_permits_thread {
	struct afs_test_permits_fixture *f;
	struct completion	done;
	u32			seed;
};

static int afs_test_permits_thread_fn(void *data)
{
	struct afs_test_permits_thread *t = data;
	struct rnd_state rnd;
	int i;

	prandom_seed_state(&rnd, t->seed);
	for (i = 0; i < AFS_TEST_THREAD_OPS; i++) {
		u32 r = prandom_u32_state(&rnd);
		unsigned int v = r % 4, k = (r >> 8) % 6;

		if ((r >> 16) % 8 == 0)
			afs_clear_permits(t->f->vnodes[v]);
		else
			afs_test_cache(t->f, v, k, (r >> 20) & 1 ?
				       AFS_ACE_READ : AFS_ACE_LOOKUP);
		if (i % 64 == 0)
			cond_resched();
	}
	complete(&t->done);
	return 0;
}

static void afs_permits_concurrent(struct kunit *test)
{
	struct afs_test_permits_fixture *f = test->priv;
	struct afs_test_permits_thread *t;
	int i;

	t = kunit_kcalloc(test, AFS_TEST_THREADS, sizeof(*t), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, t);
	for (i = 0; i < AFS_TEST_THREADS; i++) {
		struct task_struct *task;

		t[i].f = f;
		t[i].seed = 0x5eed + i;
		init_completion(&t[i].done);
		task = kthread_run(afs_test_permits_thread_fn, &t[i], "afs_permits/%d", i);
		KUNIT_ASSERT_FALSE(test, IS_ERR(task));
	}
	for (i = 0; i < AFS_TEST_THREADS; i++)
		wait_for_completion(&t[i].done);

	/* Whatever is left must still be a sane, canonical set. */
	for (i = 0; i < 4; i++) {
		struct afs_permits *p = afs_test_permits(f, i);
		unsigned int j;

		if (!p)
			continue;
		KUNIT_EXPECT_GE(test, refcount_read(&p->usage), 1);
		for (j = 1; j < p->nr_permits; j++)
			KUNIT_EXPECT_LT(test, (unsigned long)p->permits[j - 1].key,
					(unsigned long)p->permits[j].key);
	}
}

/*
 * Not a test: the cost of an afs_check_permit() hit, for sets of 1, 8 and 64
 * keys.  It has a suite of its own, afs_permits_bench, whose name ends in
 * _bench: scripts/kunit-count.py reports such a suite as a benchmark with
 * the figures its cases log, never as passed cases.
 */
static void afs_permits_bench_check_hit(struct kunit *test)
{
	static const unsigned int sizes[] = { 1, 8, 64 };
	struct afs_test_permits_fixture *f = test->priv;
	unsigned int s, k, i, loops = 100000;

	for (s = 0; s < ARRAY_SIZE(sizes); s++) {
		struct afs_vnode *vnode = f->vnodes[s];
		afs_access_t access;
		u64 start, ns;

		for (k = 0; k < sizes[s]; k++)
			afs_test_cache(f, s, k, AFS_ACE_READ);
		KUNIT_ASSERT_EQ(test, afs_test_permits(f, s)->nr_permits, sizes[s]);

		start = ktime_get_ns();
		for (i = 0; i < loops; i++)
			afs_check_permit(vnode, f->keys[i % sizes[s]], &access);
		ns = ktime_get_ns() - start;
		kunit_info(test, "afs_check_permit hit, %2u keys: %llu ns\n",
			   sizes[s], div_u64(ns, loops));
	}
}

static struct kunit_case afs_permits_cases[] = {
	KUNIT_CASE(afs_permits_share_identical),
	KUNIT_CASE(afs_permits_share_any_order),
	KUNIT_CASE(afs_permits_different_access),
	KUNIT_CASE(afs_permits_access_change_drops_others),
	KUNIT_CASE(afs_permits_contradicted_set_dropped_on_alloc_failure),
	KUNIT_CASE(afs_permits_contradicted_set_dropped_on_break),
	KUNIT_CASE(afs_permits_add_key_unshares),
	KUNIT_CASE(afs_permits_recache_is_noop),
	KUNIT_CASE(afs_permits_vnode_break_not_cached),
	KUNIT_CASE(afs_permits_volume_break_not_cached),
	KUNIT_CASE(afs_permits_break_keeps_old_set),
	KUNIT_CASE(afs_permits_current_volume_break_caches),
	KUNIT_CASE(afs_permits_clear_releases),
	KUNIT_CASE(afs_permits_one_set_for_many),
	KUNIT_CASE(afs_permits_check_hit_and_miss),
	KUNIT_CASE(afs_permits_check_anonymous),
	KUNIT_CASE(afs_permits_check_rcu_walk),
	KUNIT_CASE(afs_permits_access_rules),
	KUNIT_CASE(afs_permits_concurrent),
	{}
};

static struct kunit_suite afs_permits_suite = {
	.name = "afs_permits",
	.init = afs_test_permits_init,
	.exit = afs_test_permits_exit,
	.test_cases = afs_permits_cases,
};

static struct kunit_case afs_permits_bench_cases[] = {
	KUNIT_CASE(afs_permits_bench_check_hit),
	{}
};

static struct kunit_suite afs_permits_bench_suite = {
	.name = "afs_permits_bench",
	.init = afs_test_permits_init,
	.exit = afs_test_permits_exit,
	.test_cases = afs_permits_bench_cases,
};

kunit_test_suites(&afs_permits_suite, &afs_permits_bench_suite);
