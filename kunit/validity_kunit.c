// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for callback validity: the decision table, then the checks
 * that carry it out on a bare vnode.
 *
 * Included by inode.c.  The table is the specification of
 * afs_decide_validity(): one row per situation a vnode's promise can be in.
 */

#include <kunit/test.h>
#include "failslab.h"

#define AFS_TEST_NOW	1000000

struct afs_validity_case {
	const char			*name;
	struct afs_validity		in;
	enum afs_cb_break_reason	want;
};

/* A promise held, nothing broken, a minute to run. */
#define AFS_TEST_HELD	.now = AFS_TEST_NOW, .expires_at = AFS_TEST_NOW + 60, .promised = true

static const struct afs_validity_case afs_validity_cases[] = {
	{ "promise held", { AFS_TEST_HELD }, afs_cb_break_no_break },
	{ "volume break", { AFS_TEST_HELD, .volume_broken = true },
	  afs_cb_break_for_v_break },
	{ "server no longer serves the volume", { AFS_TEST_HELD, .server_gone = true },
	  afs_cb_break_for_s_reinit },
	{ "server reinitialised its callbacks", { AFS_TEST_HELD, .server_reinit = true },
	  afs_cb_break_for_s_reinit },
	{ "data version jumped: data zapped", { AFS_TEST_HELD, .zap = true },
	  afs_cb_break_for_zap },
	{ "promise expired", { AFS_TEST_HELD, .expires_at = AFS_TEST_NOW - 1 },
	  afs_cb_break_for_lapsed },
	{ "promise ends within the margin", { AFS_TEST_HELD, .expires_at = AFS_TEST_NOW + 10 },
	  afs_cb_break_for_lapsed },
	{ "promise ends just beyond the margin",
	  { AFS_TEST_HELD, .expires_at = AFS_TEST_NOW + 11 }, afs_cb_break_no_break },
	{ "promise given by a server with no expiry yet (0)",
	  { AFS_TEST_HELD, .expires_at = 0 }, afs_cb_break_for_lapsed },
	{ "no promise", { .now = AFS_TEST_NOW }, afs_cb_break_no_promise },
	{ "no promise, expiry in the future", { .now = AFS_TEST_NOW,
	  .expires_at = AFS_TEST_NOW + 60 }, afs_cb_break_no_promise },
	{ "deleted, no promise: nothing to fetch", { .now = AFS_TEST_NOW, .deleted = true },
	  afs_cb_break_no_break },
	{ "deleted with a promise held", { AFS_TEST_HELD, .deleted = true },
	  afs_cb_break_no_break },
	{ "no promise: breaks are not looked at", { .now = AFS_TEST_NOW,
	  .volume_broken = true, .zap = true }, afs_cb_break_no_promise },
	{ "volume break before a server's", { AFS_TEST_HELD, .volume_broken = true,
	  .server_reinit = true }, afs_cb_break_for_v_break },
	{ "server's break before zapped data", { AFS_TEST_HELD, .server_gone = true,
	  .zap = true }, afs_cb_break_for_s_reinit },
	{ "zapped data before expiry", { AFS_TEST_HELD, .zap = true,
	  .expires_at = AFS_TEST_NOW - 100 }, afs_cb_break_for_zap },
	{ "boot clock at zero: a fresh promise holds", { .now = 0, .expires_at = 60,
	  .promised = true }, afs_cb_break_no_break },
};

static void afs_validity_case_desc(const struct afs_validity_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_validity, afs_validity_cases, afs_validity_case_desc);

static void afs_validity_decide(struct kunit *test)
{
	const struct afs_validity_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, afs_decide_validity(&c->in), c->want);
}

/* A bare vnode with a held promise from a server of a one-server volume. */
struct afs_validity_fixture {
	struct afs_cell		*cell;
	struct afs_volume	*volume;
	struct afs_server	*server;
	struct afs_server_list	*slist;
	struct afs_vnode	*vnode;
};

static int afs_validity_test_init(struct kunit *test)
{
	struct afs_validity_fixture *f;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;
	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	f->volume = kunit_kzalloc(test, sizeof(*f->volume), GFP_KERNEL);
	f->server = kunit_kzalloc(test, sizeof(*f->server), GFP_KERNEL);
	f->slist = kunit_kzalloc(test, struct_size(f->slist, servers, 1), GFP_KERNEL);
	f->vnode = kunit_kzalloc(test, sizeof(*f->vnode), GFP_KERNEL);
	if (!f->cell || !f->volume || !f->server || !f->slist || !f->vnode)
		return -ENOMEM;

	f->slist->nr_servers = 1;
	f->slist->servers[0].server = f->server;
	f->volume->cell = f->cell;
	RCU_INIT_POINTER(f->volume->servers, f->slist);

	spin_lock_init(&f->vnode->lock);
	seqlock_init(&f->vnode->cb_lock);
	f->vnode->volume = f->volume;
	f->vnode->fid.vid = 0x20000001;
	f->vnode->fid.vnode = 1;
	f->vnode->cb_server = f->server;
	f->vnode->cb_expires_at = ktime_get_boottime_seconds() + 3600;
	set_bit(AFS_VNODE_CB_PROMISED, &f->vnode->flags);
	return 0;
}

/* Nothing broken: the vnode keeps its promise. */
static void afs_validity_check_held(struct kunit *test)
{
	struct afs_validity_fixture *f = test->priv;

	KUNIT_EXPECT_TRUE(test, afs_check_validity(f->vnode));
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VNODE_CB_PROMISED, &f->vnode->flags));
	KUNIT_EXPECT_EQ(test, f->vnode->cb_break, 0);
}

/* A volume-wide break: the promise is broken and the break counted. */
static void afs_validity_check_volume_break(struct kunit *test)
{
	struct afs_validity_fixture *f = test->priv;

	f->volume->cb_v_break++;
	KUNIT_EXPECT_FALSE(test, afs_check_validity(f->vnode));
	KUNIT_EXPECT_FALSE(test, test_bit(AFS_VNODE_CB_PROMISED, &f->vnode->flags));
	KUNIT_EXPECT_EQ(test, f->vnode->cb_break, 1);
	KUNIT_EXPECT_EQ(test, f->vnode->cb_v_break, f->volume->cb_v_break);
}

/* The server reset its callback state (CB.InitCallBackState): the promise
 * it made is broken; a promise from before the reset by a server not seen
 * to reset is not.
 */
static void afs_validity_check_server_reinit(struct kunit *test)
{
	struct afs_validity_fixture *f = test->priv;

	atomic_inc(&f->cell->fs_s_break);
	KUNIT_EXPECT_TRUE(test, afs_check_validity(f->vnode));

	f->server->cb_s_break++;
	KUNIT_EXPECT_FALSE(test, afs_check_validity(f->vnode));
	KUNIT_EXPECT_FALSE(test, test_bit(AFS_VNODE_CB_PROMISED, &f->vnode->flags));
	KUNIT_EXPECT_EQ(test, f->vnode->cb_break, 1);
}

/* The promising server left the volume's list. */
static void afs_validity_check_server_gone(struct kunit *test)
{
	struct afs_validity_fixture *f = test->priv;

	atomic_inc(&f->cell->fs_s_break);
	f->slist->nr_servers = 0;
	KUNIT_EXPECT_FALSE(test, afs_check_validity(f->vnode));
	KUNIT_EXPECT_EQ(test, f->vnode->cb_break, 1);
}

/* With no promise, nothing is broken, but the volume counter is caught up. */
static void afs_validity_check_no_promise(struct kunit *test)
{
	struct afs_validity_fixture *f = test->priv;

	clear_bit(AFS_VNODE_CB_PROMISED, &f->vnode->flags);
	f->volume->cb_v_break = 5;
	KUNIT_EXPECT_FALSE(test, afs_check_validity(f->vnode));
	KUNIT_EXPECT_EQ(test, f->vnode->cb_break, 0);
	KUNIT_EXPECT_EQ(test, f->vnode->cb_v_break, 5);
}

static struct kunit_case afs_validity_test_cases[] = {
	KUNIT_CASE_PARAM(afs_validity_decide, afs_validity_gen_params),
	KUNIT_CASE(afs_validity_check_held),
	KUNIT_CASE(afs_validity_check_volume_break),
	KUNIT_CASE(afs_validity_check_server_reinit),
	KUNIT_CASE(afs_validity_check_server_gone),
	KUNIT_CASE(afs_validity_check_no_promise),
	{}
};

static struct kunit_suite afs_validity_suite = {
	.name = "afs_validity",
	.init = afs_validity_test_init,
	.test_cases = afs_validity_test_cases,
};

kunit_test_suite(afs_validity_suite);
