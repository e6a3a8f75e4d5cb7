// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for fileserver records: publishing, racing lookups, purging.
 *
 * Included by server.c.  Each case gets a namespace of its own, a bare
 * struct afs_net with only the fileserver fields set up, and two bare cells
 * in it.  Records are made with the real allocation and installation, so no
 * VL server is asked; afs_lookup_server() then finds them.  Every case ends
 * by purging the namespace the way its exit does, bounded by a timeout, and
 * checks that servers_outstanding came back to zero: a record or a count
 * leaked on any path shows there, where on a real namespace it would hang
 * the exit.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/kthread.h>

#define AFS_TEST_PURGE_TIMEOUT	(5 * HZ)
#define AFS_TEST_RACE_ROUNDS	100
#define AFS_TEST_CELL_REF	100	/* A fake cell's references but the records' */

struct afs_server_fixture {
	struct afs_net		*net;
	struct afs_cell		*cells[2];
	unsigned int		gc_delay;	/* afs_server_gc_delay, restored */
	bool			purged;
};

/* A namespace with what server.c uses of one, as afs_net_init() sets it. */
static struct afs_net *afs_test_alloc_net(void)
{
	struct afs_net *net = kzalloc(sizeof(*net), GFP_KERNEL);

	if (!net)
		return NULL;
	net->live = true;
	seqlock_init(&net->fs_lock);
	net->fs_servers = RB_ROOT;
	INIT_LIST_HEAD(&net->fs_probe_fast);
	INIT_LIST_HEAD(&net->fs_probe_slow);
	INIT_HLIST_HEAD(&net->fs_proc);
	INIT_HLIST_HEAD(&net->fs_addresses4);
	INIT_HLIST_HEAD(&net->fs_addresses6);
	seqlock_init(&net->fs_addr_lock);
	INIT_WORK(&net->fs_manager, afs_manage_servers);
	timer_setup(&net->fs_timer, afs_servers_timer, 0);
	atomic_set(&net->servers_outstanding, 1);
	return net;
}

static int afs_server_test_init(struct kunit *test)
{
	struct afs_server_fixture *f;
	int i;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;

	/* No record expires by itself during a case: the manager runs only
	 * when a case asks, so the counts below are exact.
	 */
	f->gc_delay = afs_server_gc_delay;
	afs_server_gc_delay = 3600;

	f->net = afs_test_alloc_net();
	if (!f->net)
		return -ENOMEM;
	/* The cells are freed with the namespace, after the records that
	 * hold them.  They start with many references, so that a count that
	 * goes wrong fails a check rather than destroying a cell.
	 */
	for (i = 0; i < ARRAY_SIZE(f->cells); i++) {
		f->cells[i] = kzalloc(sizeof(*f->cells[i]), GFP_KERNEL);
		if (!f->cells[i])
			return -ENOMEM;
		f->cells[i]->net = f->net;
		refcount_set(&f->cells[i]->ref, AFS_TEST_CELL_REF);
	}
	return 0;
}

struct afs_test_purger {
	struct afs_net		*net;
	struct completion	done;
};

static int afs_test_purger_fn(void *data)
{
	struct afs_test_purger *p = data;

	afs_purge_servers(p->net);
	complete(&p->done);
	return 0;
}

/* Start purging the namespace as its exit does, in a thread of its own, so
 * that a purge that hangs fails the case instead of hanging the run.
 */
static struct afs_test_purger *afs_test_start_purge(struct afs_server_fixture *f)
{
	struct afs_test_purger *p = kzalloc(sizeof(*p), GFP_KERNEL);

	if (!p)
		return NULL;
	p->net = f->net;
	init_completion(&p->done);
	f->net->live = false;
	if (IS_ERR(kthread_run(afs_test_purger_fn, p, "afs_purger"))) {
		kfree(p);
		return NULL;
	}
	f->purged = true;	/* The purger owns the purge now */
	return p;
}

/* Wait for a purge to finish; false if it did not within the timeout, in
 * which case the purger and the namespace it still uses are leaked.
 */
static bool afs_test_end_purge(struct afs_test_purger *p)
{
	if (!wait_for_completion_timeout(&p->done, AFS_TEST_PURGE_TIMEOUT))
		return false;
	kfree(p);
	return true;
}

static bool afs_test_purge(struct afs_server_fixture *f)
{
	struct afs_test_purger *p = afs_test_start_purge(f);

	return p && afs_test_end_purge(p);
}

static void afs_server_test_exit(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	int i;

	afs_kunit_failslab_end(test);

	if (!f)
		return;
	if (f->gc_delay)
		afs_server_gc_delay = f->gc_delay;
	if (!f->net)
		return;
	if (!f->purged && !afs_test_purge(f)) {
		/* Something still holds the namespace: leak it rather than
		 * free memory a timer or work item may yet touch.
		 */
		KUNIT_FAIL(test, "purge did not finish: servers_outstanding %d",
			   atomic_read(&f->net->servers_outstanding));
		return;
	}
	KUNIT_EXPECT_EQ(test, atomic_read(&f->net->servers_outstanding), 0);
	KUNIT_EXPECT_TRUE(test, RB_EMPTY_ROOT(&f->net->fs_servers));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&f->net->fs_proc));
	KUNIT_EXPECT_TRUE(test, hlist_empty(&f->net->fs_addresses4));
	/* The manager may still be returning, and the records go through
	 * RCU: wait for both before freeing the namespace.
	 */
	flush_work(&f->net->fs_manager);
	rcu_barrier();
	for (i = 0; i < ARRAY_SIZE(f->cells); i++)
		kfree(f->cells[i]);
	kfree(f->net);
}

static void afs_test_uuid(uuid_t *uuid, unsigned int n)
{
	memset(uuid, 0, sizeof(*uuid));
	uuid->b[0] = 0x5e;
	uuid->b[14] = n >> 8;
	uuid->b[15] = n;
}

/* A fresh record of (@n's UUID, @cell) at 10.0.<n>.1, not yet installed. */
static struct afs_server *afs_test_alloc_server(struct afs_cell *cell, unsigned int n)
{
	struct afs_addr_list *alist;
	struct afs_server *server;
	uuid_t uuid;

	alist = afs_alloc_addrlist(1, FS_SERVICE, AFS_FS_PORT);
	if (!alist)
		return NULL;
	afs_merge_fs_addr4(alist, htonl(0x0a000001 | (n & 0xff) << 8), AFS_FS_PORT);
	afs_test_uuid(&uuid, n);
	server = afs_alloc_server(cell, &uuid, alist);
	if (!server)
		afs_put_addrlist(alist);
	return server;
}

/* Allocate and install (@n's UUID, @cell). */
static struct afs_server *afs_test_install(struct kunit *test,
					   struct afs_cell *cell, unsigned int n)
{
	struct afs_server *cand = afs_test_alloc_server(cell, n);

	KUNIT_ASSERT_NOT_NULL(test, cand);
	return afs_install_server(cell, cand);
}

/* Records currently counted: servers_outstanding less the namespace's own
 * count and a pending manager timer's.
 */
static int afs_test_nr_records(struct afs_net *net)
{
	return atomic_read(&net->servers_outstanding) - 1 -
		(timer_pending(&net->fs_timer) ? 1 : 0) -
		(work_pending(&net->fs_manager) ? 1 : 0);
}

static unsigned int afs_test_nr_proc(struct afs_net *net)
{
	struct afs_server *server;
	unsigned int nr = 0;

	read_seqlock_excl(&net->fs_lock);
	hlist_for_each_entry(server, &net->fs_proc, proc_link)
		nr++;
	read_sequnlock_excl(&net->fs_lock);
	return nr;
}

/* The first installation publishes the record: tree, procfs, addresses. */
static void afs_server_lookup_install_publishes(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	struct afs_server *cand, *server, *found;
	struct sockaddr_rxrpc srx = {};
	uuid_t uuid;

	cand = afs_test_alloc_server(f->cells[0], 1);
	KUNIT_ASSERT_NOT_NULL(test, cand);
	server = afs_install_server(f->cells[0], cand);
	KUNIT_ASSERT_PTR_EQ(test, server, cand);
	KUNIT_EXPECT_EQ(test, refcount_read(&server->ref), 2);	/* Tree and use */
	KUNIT_EXPECT_EQ(test, atomic_read(&server->active), 1);
	KUNIT_EXPECT_EQ(test, afs_test_nr_records(f->net), 1);
	KUNIT_EXPECT_EQ(test, afs_test_nr_proc(f->net), 1);

	afs_test_uuid(&uuid, 1);
	found = afs_find_server_in_cell(f->cells[0], &uuid);
	KUNIT_EXPECT_PTR_EQ(test, found, server);
	afs_unuse_server(f->net, found, afs_server_trace_put_slist);
	KUNIT_EXPECT_NULL(test, afs_find_server_in_cell(f->cells[1], &uuid));

	srx.transport.family = AF_INET;
	srx.transport.sin.sin_family = AF_INET;
	srx.transport.sin.sin_port = htons(AFS_FS_PORT);
	srx.transport.sin.sin_addr.s_addr = htonl(0x0a000101);
	found = afs_find_server(f->net, &srx);
	KUNIT_EXPECT_PTR_EQ(test, found, server);
	afs_unuse_server_notime(f->net, found, afs_server_trace_put_find_rsq);
	srx.transport.sin.sin_port = htons(AFS_FS_PORT + 1);
	KUNIT_EXPECT_NULL(test, afs_find_server(f->net, &srx));

	afs_unuse_server(f->net, server, afs_server_trace_put_slist);
	KUNIT_EXPECT_EQ(test, atomic_read(&server->active), 0);
}

/* A second candidate for the same server of the same cell is freed, and its
 * count given back; the caller gets a use of the published record.
 */
static void afs_server_lookup_same_cell_candidate_discarded(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	struct afs_server *first, *cand, *server;

	first = afs_test_install(test, f->cells[0], 2);
	cand = afs_test_alloc_server(f->cells[0], 2);
	KUNIT_ASSERT_NOT_NULL(test, cand);
	KUNIT_EXPECT_EQ(test, afs_test_nr_records(f->net), 2);

	server = afs_install_server(f->cells[0], cand);
	KUNIT_EXPECT_PTR_EQ(test, server, first);
	KUNIT_EXPECT_EQ(test, afs_test_nr_records(f->net), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&first->active), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&first->ref), 3);
	KUNIT_EXPECT_EQ(test, afs_test_nr_proc(f->net), 1);

	afs_unuse_server(f->net, server, afs_server_trace_put_slist);
	afs_unuse_server(f->net, first, afs_server_trace_put_slist);
	KUNIT_EXPECT_EQ(test, atomic_read(&first->active), 0);
}

/* The same UUID in another cell is another server: both are kept, each
 * found through its own cell, and collecting the one in the tree leaves the
 * other findable.
 */
static void afs_server_lookup_other_cell_chained(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	struct afs_server *a, *b, *found;
	uuid_t uuid;

	afs_test_uuid(&uuid, 3);
	a = afs_test_install(test, f->cells[0], 3);
	b = afs_test_install(test, f->cells[1], 3);
	KUNIT_EXPECT_PTR_NE(test, a, b);
	KUNIT_EXPECT_EQ(test, afs_test_nr_records(f->net), 2);
	KUNIT_EXPECT_EQ(test, afs_test_nr_proc(f->net), 2);

	found = afs_find_server_in_cell(f->cells[1], &uuid);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	afs_unuse_server(f->net, found, afs_server_trace_put_slist);
	found = afs_find_server_in_cell(f->cells[0], &uuid);
	KUNIT_EXPECT_PTR_EQ(test, found, a);
	afs_unuse_server(f->net, found, afs_server_trace_put_slist);

	/* By UUID alone, the head of the chain, from which b is reached. */
	rcu_read_lock();
	found = afs_find_server_by_uuid(f->net, &uuid);
	rcu_read_unlock();
	KUNIT_EXPECT_PTR_EQ(test, found, a);
	KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(found->uuid_next), b);
	afs_unuse_server(f->net, found, afs_server_trace_put_uuid_rsq);

	/* Let a expire and have the manager collect it. */
	afs_unuse_server(f->net, a, afs_server_trace_put_slist);
	a->unuse_time = ktime_get_boottime_seconds() - 2 * afs_server_gc_delay;
	afs_schedule_server_manager(f->net, 0);
	flush_work(&f->net->fs_manager);

	KUNIT_EXPECT_EQ(test, afs_test_nr_records(f->net), 1);
	KUNIT_EXPECT_NULL(test, afs_find_server_in_cell(f->cells[0], &uuid));
	found = afs_find_server_in_cell(f->cells[1], &uuid);
	KUNIT_EXPECT_PTR_EQ(test, found, b);
	afs_unuse_server(f->net, found, afs_server_trace_put_slist);
	KUNIT_EXPECT_PTR_EQ(test, rb_entry(f->net->fs_servers.rb_node,
					   struct afs_server, uuid_rb), b);
	KUNIT_EXPECT_NULL(test, b->uuid_prev);

	afs_unuse_server(f->net, b, afs_server_trace_put_slist);
}

struct afs_test_racer {
	struct afs_cell		*cell;
	unsigned int		n;
	struct completion	*go;
	struct afs_server	*candidate;	/* Compared, never dereferenced */
	struct afs_server	*result;
	struct completion	done;
};

static int afs_test_racer_fn(void *data)
{
	struct afs_test_racer *r = data;
	struct afs_server *cand = afs_test_alloc_server(r->cell, r->n);

	r->candidate = cand;
	wait_for_completion(r->go);
	r->result = cand ? afs_install_server(r->cell, cand) : NULL;
	complete(&r->done);
	return 0;
}

/* Two lookups of one server race to install it, round after round: each
 * round one candidate is published, both callers get it with a use each,
 * and the other candidate is freed with its count given back.
 */
static void afs_server_lookup_racing_installs(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	struct afs_test_racer r[2];
	struct task_struct *t;
	struct completion go;
	unsigned int round, i, winners, bad = 0;

	for (round = 0; round < AFS_TEST_RACE_ROUNDS; round++) {
		init_completion(&go);
		for (i = 0; i < 2; i++) {
			r[i] = (struct afs_test_racer){
				.cell = f->cells[0], .n = 100 + round, .go = &go,
			};
			init_completion(&r[i].done);
			t = kthread_run(afs_test_racer_fn, &r[i], "afs_racer%u", i);
			KUNIT_ASSERT_FALSE(test, IS_ERR(t));
		}
		/* Both have allocated by the time they wait on go. */
		usleep_range(1000, 2000);
		complete_all(&go);
		for (i = 0; i < 2; i++)
			wait_for_completion(&r[i].done);

		KUNIT_ASSERT_NOT_NULL(test, r[0].result);
		KUNIT_ASSERT_PTR_EQ(test, r[0].result, r[1].result);
		winners = (r[0].result == r[0].candidate) +
			  (r[1].result == r[1].candidate);
		if (winners != 1 ||
		    atomic_read(&r[0].result->active) != 2 ||
		    afs_test_nr_records(f->net) != round + 1)
			bad++;
		KUNIT_EXPECT_EQ_MSG(test, winners, 1, "round %u", round);
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&r[0].result->active), 2,
				    "round %u", round);
		KUNIT_EXPECT_EQ_MSG(test, afs_test_nr_records(f->net), round + 1,
				    "round %u: a record leaked or was lost", round);
		afs_unuse_server(f->net, r[0].result, afs_server_trace_put_slist);
		afs_unuse_server(f->net, r[1].result, afs_server_trace_put_slist);
		if (bad)
			break;
	}
}

/* A record still in use when the purge starts (a call from the server, say)
 * is collected as soon as its last use goes, and the purge finishes.
 */
static void afs_server_lookup_purge_waits_for_last_use(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	struct afs_test_purger *p;
	struct afs_server *server;
	bool finished;

	server = afs_test_install(test, f->cells[0], 4);
	p = afs_test_start_purge(f);
	KUNIT_ASSERT_NOT_NULL(test, p);

	msleep(100);
	KUNIT_EXPECT_FALSE(test, completion_done(&p->done));
	afs_unuse_server_notime(f->net, server, afs_server_trace_put_call);

	finished = afs_test_end_purge(p);
	KUNIT_EXPECT_TRUE_MSG(test, finished,
			      "the purge hung: servers_outstanding %d",
			      atomic_read(&f->net->servers_outstanding));
	if (!finished)
		f->net = NULL;	/* Leaked on purpose: see the exit */
}

/* A volume's server list built from a VLDB entry, from published records:
 * servers of the volume's type only, each once, sorted, one use each.
 */
static void afs_server_lookup_volume_list_from_vldb(struct kunit *test)
{
	static const unsigned int ids[] = { 9, 7, 8, 7, 6 };
	static const u8 masks[] = {
		AFS_VOL_VTM_RW, AFS_VOL_VTM_RW | AFS_VOL_VTM_RO, AFS_VOL_VTM_RO,
		AFS_VOL_VTM_RW, AFS_VOL_VTM_BAK,
	};
	struct afs_server_fixture *f = test->priv;
	struct afs_server *servers[10] = {};
	struct afs_server_list *slist;
	struct afs_vldb_entry *vldb;
	struct afs_volume *volume;
	unsigned int i;

	vldb = kunit_kzalloc(test, sizeof(*vldb), GFP_KERNEL);
	volume = kunit_kzalloc(test, sizeof(*volume), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, vldb);
	KUNIT_ASSERT_NOT_NULL(test, volume);
	volume->cell = f->cells[0];
	volume->type = AFSVL_RWVOL;

	for (i = 6; i <= 9; i++)
		servers[i] = afs_test_install(test, f->cells[0], i);
	vldb->nr_servers = ARRAY_SIZE(ids);
	for (i = 0; i < ARRAY_SIZE(ids); i++) {
		afs_test_uuid(&vldb->fs_server[i], ids[i]);
		vldb->fs_mask[i] = masks[i];
		vldb->addr_version[i] = servers[ids[i]]->addr_version;
	}

	slist = afs_alloc_server_list(volume, NULL, vldb);
	KUNIT_ASSERT_FALSE(test, IS_ERR(slist));
	KUNIT_EXPECT_EQ(test, slist->nr_servers, 2);	/* 7 and 9; 7 once */
	KUNIT_EXPECT_PTR_EQ(test, slist->servers[0].server, servers[7]);
	KUNIT_EXPECT_PTR_EQ(test, slist->servers[1].server, servers[9]);
	KUNIT_EXPECT_PTR_EQ(test, slist->servers[0].volume, volume);
	KUNIT_EXPECT_EQ(test, atomic_read(&servers[7]->active), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&servers[9]->active), 2);
	KUNIT_EXPECT_EQ(test, atomic_read(&servers[8]->active), 1);
	KUNIT_EXPECT_EQ(test, atomic_read(&servers[6]->active), 1);

	afs_put_serverlist(f->net, slist);
	for (i = 6; i <= 9; i++) {
		KUNIT_EXPECT_EQ_MSG(test, atomic_read(&servers[i]->active), 1,
				    "server %u", i);
		afs_unuse_server(f->net, servers[i], afs_server_trace_put_slist);
	}
}

/* Every record, a candidate too, holds a reference on its cell until its
 * memory goes: a record can outlive its cell's last user (a cell found
 * through DNS expires first) and is still found by address or UUID then.
 */
static void afs_server_lookup_records_hold_their_cell(struct kunit *test)
{
	struct afs_server_fixture *f = test->priv;
	struct afs_server *a, *b, *c, *cand, *server;

	a = afs_test_install(test, f->cells[0], 5);
	b = afs_test_install(test, f->cells[0], 6);
	c = afs_test_install(test, f->cells[1], 5);
	cand = afs_test_alloc_server(f->cells[0], 5);
	KUNIT_ASSERT_NOT_NULL(test, cand);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->cells[0]->ref), AFS_TEST_CELL_REF + 3);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->cells[1]->ref), AFS_TEST_CELL_REF + 1);

	/* The candidate loses to a, and is freed at once. */
	server = afs_install_server(f->cells[0], cand);
	KUNIT_EXPECT_PTR_EQ(test, server, a);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->cells[0]->ref), AFS_TEST_CELL_REF + 2);

	afs_unuse_server(f->net, server, afs_server_trace_put_slist);
	afs_unuse_server(f->net, a, afs_server_trace_put_slist);
	afs_unuse_server(f->net, b, afs_server_trace_put_slist);
	afs_unuse_server(f->net, c, afs_server_trace_put_slist);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->cells[0]->ref), AFS_TEST_CELL_REF + 2);

	/* Collected, the records give their references back as RCU frees
	 * them.
	 */
	if (!afs_test_purge(f)) {
		KUNIT_FAIL(test, "the purge did not start or did not finish");
		f->net = NULL;	/* Leaked on purpose: see the exit */
		return;
	}
	rcu_barrier();
	KUNIT_EXPECT_EQ(test, refcount_read(&f->cells[0]->ref), AFS_TEST_CELL_REF);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->cells[1]->ref), AFS_TEST_CELL_REF);
}

static struct kunit_case afs_server_lookup_cases[] = {
	KUNIT_CASE(afs_server_lookup_install_publishes),
	KUNIT_CASE(afs_server_lookup_same_cell_candidate_discarded),
	KUNIT_CASE(afs_server_lookup_other_cell_chained),
	KUNIT_CASE(afs_server_lookup_racing_installs),
	KUNIT_CASE(afs_server_lookup_purge_waits_for_last_use),
	KUNIT_CASE(afs_server_lookup_volume_list_from_vldb),
	KUNIT_CASE(afs_server_lookup_records_hold_their_cell),
	{}
};

static struct kunit_suite afs_server_lookup_suite = {
	.name = "afs_server_lookup",
	.init = afs_server_test_init,
	.exit = afs_server_test_exit,
	.test_cases = afs_server_lookup_cases,
};

kunit_test_suite(afs_server_lookup_suite);
