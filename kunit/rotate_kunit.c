// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suites for fileserver rotation: the decision table and scenarios.
 *
 * Included by rotate.c.  afs_rotate_decide() is pure, so every transition is
 * a row: the state before, what happened, and what must follow.
 */

#include <kunit/test.h>
#include <linux/sched/signal.h>

#define ABORT(code)	{ .event = AFS_ROTATE_CALL_DONE, .error = -ECONNABORTED, \
			  .abort_code = (code), .volume_rw = true }
#define ABORT_RO(code)	{ .event = AFS_ROTATE_CALL_DONE, .error = -ECONNABORTED, \
			  .abort_code = (code) }
#define LOCAL(err)	{ .event = AFS_ROTATE_CALL_DONE, .error = (err) }
#define EVENT(ev, err)	{ .event = (ev), .error = (err) }
#define UPDATED(code, err, changed, deleted) \
			{ .event = AFS_ROTATE_VLDB_UPDATED, .abort_code = (code), \
			  .error = (err), .servers_changed = (changed), \
			  .volume_deleted = (deleted) }

#define F_CUR_ONLY	AFS_OPERATION_CUR_ONLY
#define F_NO_VSLEEP	AFS_OPERATION_NO_VSLEEP
#define F_BUSY		AFS_OPERATION_VBUSY
#define F_MOVED	AFS_OPERATION_VMOVED
#define F_NOVOL	AFS_OPERATION_VNOVOL
#define F_RETRY	AFS_OPERATION_RETRY_SERVER
#define F_STOP		AFS_OPERATION_STOP
#define MAX_ROUNDS	AFS_ROTATE_MAX_BUSY_ROUNDS

struct afs_rotate_case {
	const char			*name;
	unsigned int			flags;		/* State before */
	unsigned int			rounds;
	int				prior;
	struct afs_rotate_outcome	in;
	enum afs_rotate_action		action;		/* Expected */
	int				error;		/* Reported or remembered */
	enum afs_rotate_note		note;
	unsigned int			set;		/* Flags set after */
	unsigned int			clear;		/* Flags clear after */
	unsigned int			rounds_after;
};

#define N(x)	AFS_ROTATE_NOTE_##x
#define A(x)	AFS_ROTATE_##x

static const struct afs_rotate_case afs_rotate_cases[] = {
	{ "begin", .in = EVENT(A(BEGIN), 0), .action = A(START) },
	{ "success", .in = LOCAL(0), .action = A(SUCCEED), .set = F_STOP },
	{ "success forgets earlier errors", .prior = -ETIMEDOUT, .in = LOCAL(0),
	  .action = A(SUCCEED), .error = 0 },

	/* VNOVOL: check the VLDB once, then move on. */
	{ "VNOVOL first time", .in = ABORT(VNOVOL),
	  .action = A(UPDATE_VLDB), .note = N(NO_VOLUME), .clear = F_STOP },
	{ "VNOVOL second time", .flags = F_NOVOL, .in = ABORT(VNOVOL),
	  .action = A(NEXT_SERVER), .error = -EREMOTEIO },
	{ "VNOVOL updated, new server list", .in = UPDATED(VNOVOL, 0, true, false),
	  .action = A(RETRY), .set = F_NOVOL },
	{ "VNOVOL updated, same server list", .in = UPDATED(VNOVOL, 0, false, false),
	  .action = A(NEXT_SERVER), .error = -EREMOTEIO },
	{ "VNOVOL updated, volume deleted", .in = UPDATED(VNOVOL, 0, true, true),
	  .action = A(FAIL), .error = -ENOMEDIUM, .set = F_STOP },
	{ "VNOVOL update failed", .in = UPDATED(VNOVOL, -ENOMEM, false, false),
	  .action = A(FAIL), .error = -ENOMEM },

	{ "VVOLEXISTS", .in = ABORT(VVOLEXISTS), .action = A(NEXT_SERVER), .error = -EREMOTEIO },
	{ "VONLINE", .in = ABORT(VONLINE), .action = A(NEXT_SERVER), .error = -EREMOTEIO },
	{ "VNOSERVICE", .in = ABORT(VNOSERVICE), .action = A(NEXT_SERVER), .error = -ETIMEDOUT },
	{ "RX_CALL_TIMEOUT", .in = ABORT(RX_CALL_TIMEOUT),
	  .action = A(NEXT_SERVER), .error = -ETIMEDOUT },

	/* Offline and busy: try the others, come back after the round. */
	{ "VOFFLINE", .in = ABORT(VOFFLINE), .action = A(NEXT_SERVER),
	  .error = -EBUSY, .note = N(OFFLINE), .set = F_BUSY },
	{ "VSALVAGE", .in = ABORT(VSALVAGE), .action = A(NEXT_SERVER),
	  .error = -EBUSY, .note = N(OFFLINE), .set = F_BUSY },
	{ "VSALVAGING", .in = ABORT(VSALVAGING), .action = A(NEXT_SERVER),
	  .error = -EBUSY, .note = N(OFFLINE), .set = F_BUSY },
	{ "VBUSY", .in = ABORT(VBUSY), .action = A(NEXT_SERVER),
	  .error = -EBUSY, .note = N(BUSY), .set = F_BUSY },
	{ "VRESTARTING", .in = ABORT(VRESTARTING), .action = A(NEXT_SERVER),
	  .error = -EBUSY, .note = N(BUSY), .set = F_BUSY },
	{ "VBUSY with a file lock", .flags = F_CUR_ONLY, .in = ABORT(VBUSY),
	  .action = A(SLEEP_RETRY), .note = N(BUSY), .rounds_after = 1 },
	{ "VOFFLINE with a file lock", .flags = F_CUR_ONLY, .in = ABORT(VOFFLINE),
	  .action = A(SLEEP_RETRY), .note = N(OFFLINE), .rounds_after = 1 },
	{ "VBUSY with a file lock, rounds used up", .flags = F_CUR_ONLY,
	  .rounds = MAX_ROUNDS, .in = ABORT(VBUSY), .action = A(FAIL),
	  .error = -EBUSY, .note = N(BUSY), .rounds_after = MAX_ROUNDS },
	{ "VBUSY when sleeping is forbidden", .flags = F_NO_VSLEEP, .in = ABORT(VBUSY),
	  .action = A(FAIL), .error = -EBUSY, .note = N(BUSY) },
	{ "VOFFLINE when sleeping is forbidden", .flags = F_NO_VSLEEP,
	  .in = ABORT(VOFFLINE), .action = A(FAIL), .error = -EBUSY, .note = N(OFFLINE) },

	/* VMOVED: follow one move. */
	{ "VMOVED first time", .in = ABORT(VMOVED), .action = A(UPDATE_VLDB),
	  .note = N(MOVED), .set = F_MOVED },
	{ "VMOVED second time", .flags = F_MOVED, .in = ABORT(VMOVED),
	  .action = A(FAIL), .error = -EREMOTEIO },
	{ "VMOVED updated, new server list", .flags = F_MOVED,
	  .in = UPDATED(VMOVED, 0, true, false), .action = A(START) },
	{ "VMOVED updated, same server list", .flags = F_MOVED,
	  .in = UPDATED(VMOVED, 0, false, false), .action = A(FAIL), .error = -ENOMEDIUM },
	{ "VMOVED updated, volume deleted", .flags = F_MOVED,
	  .in = UPDATED(VMOVED, 0, true, true), .action = A(FAIL), .error = -ENOMEDIUM },
	{ "VMOVED update failed", .flags = F_MOVED,
	  .in = UPDATED(VMOVED, -ENOENT, true, false), .action = A(FAIL), .error = -ENOENT },

	/* I/O errors: a read-only replica elsewhere may be sound. */
	{ "VIO on a RW volume", .in = ABORT(VIO), .action = A(FAIL), .error = -EREMOTEIO },
	{ "VIO on a RO volume", .in = ABORT_RO(VIO), .action = A(NEXT_SERVER),
	  .error = -EREMOTEIO },
	{ "UAEIO on a RW volume", .in = ABORT(UAEIO), .action = A(FAIL), .error = -EREMOTEIO },
	{ "UAEIO on a RO volume", .in = ABORT_RO(UAEIO), .action = A(NEXT_SERVER),
	  .error = -EREMOTEIO },

	/* Answers that hold wherever we ask. */
	{ "VDISKFULL", .in = ABORT(VDISKFULL), .action = A(FAIL), .error = -ENOSPC },
	{ "UAENOSPC", .in = ABORT(UAENOSPC), .action = A(FAIL), .error = -ENOSPC },
	{ "VOVERQUOTA", .in = ABORT(VOVERQUOTA), .action = A(FAIL), .error = -EDQUOT },
	{ "UAEDQUOT", .in = ABORT(UAEDQUOT), .action = A(FAIL), .error = -EDQUOT },
	{ "VNOVNODE", .in = ABORT(VNOVNODE), .action = A(FAIL), .error = -ENOENT,
	  .note = N(ONLINE) },
	{ "unknown abort", .in = ABORT(12345), .action = A(FAIL), .error = -EREMOTEIO,
	  .note = N(ONLINE) },

	/* Local results. */
	{ "ETIMEDOUT", .in = LOCAL(-ETIMEDOUT), .action = A(NEXT_ADDRESS), .error = -ETIMEDOUT },
	{ "ETIME", .in = LOCAL(-ETIME), .action = A(NEXT_ADDRESS), .error = -ETIME },
	{ "ERFKILL", .in = LOCAL(-ERFKILL), .action = A(NEXT_ADDRESS), .error = -ERFKILL },
	{ "EADDRNOTAVAIL", .in = LOCAL(-EADDRNOTAVAIL), .action = A(NEXT_ADDRESS),
	  .error = -EADDRNOTAVAIL },
	{ "ENETUNREACH", .in = LOCAL(-ENETUNREACH), .action = A(NEXT_ADDRESS),
	  .error = -ENETUNREACH },
	{ "EHOSTUNREACH", .in = LOCAL(-EHOSTUNREACH), .action = A(NEXT_ADDRESS),
	  .error = -EHOSTUNREACH },
	{ "EHOSTDOWN", .in = LOCAL(-EHOSTDOWN), .action = A(NEXT_ADDRESS), .error = -EHOSTDOWN },
	{ "ECONNREFUSED", .in = LOCAL(-ECONNREFUSED), .action = A(NEXT_ADDRESS),
	  .error = -ECONNREFUSED },
	{ "ENETRESET", .in = LOCAL(-ENETRESET), .action = A(FAIL), .error = -ENETRESET },
	{ "ECONNRESET", .in = LOCAL(-ECONNRESET), .action = A(FAIL), .error = -ECONNRESET },
	{ "ENOMEM", .in = LOCAL(-ENOMEM), .action = A(FAIL), .error = -ENOMEM },
	{ "EINTR", .in = LOCAL(-EINTR), .action = A(FAIL), .error = -EINTR },
	{ "a timeout does not hide a server's answer", .prior = -EREMOTEIO,
	  .in = LOCAL(-ETIMEDOUT), .action = A(NEXT_ADDRESS), .error = -EREMOTEIO },
	{ "a refusal does not hide a timeout", .prior = -ETIMEDOUT,
	  .in = LOCAL(-ECONNREFUSED), .action = A(NEXT_ADDRESS), .error = -ETIMEDOUT },
	{ "a refusal replaces an unreachable host", .prior = -EHOSTUNREACH,
	  .in = LOCAL(-ECONNREFUSED), .action = A(NEXT_ADDRESS), .error = -ECONNREFUSED },

	/* A server out of addresses is re-probed once. */
	{ "no addresses, first time", .flags = F_RETRY,
	  .in = EVENT(A(NO_ADDRESSES), 0), .action = A(PROBE), .clear = F_RETRY },
	{ "no addresses, after the re-probe", .in = EVENT(A(NO_ADDRESSES), 0),
	  .action = A(NEXT_SERVER) },
	{ "re-probe answered", .in = EVENT(A(PROBED), 0), .action = A(RETRY_SERVER) },
	{ "re-probe timed out", .in = EVENT(A(PROBED), -ETIME), .action = A(NEXT_SERVER) },
	{ "re-probe found no address", .in = EVENT(A(PROBED), -EDESTADDRREQ),
	  .action = A(NEXT_SERVER) },
	{ "re-probe interrupted", .in = EVENT(A(PROBED), -ERESTARTSYS),
	  .action = A(FAIL), .error = -ERESTARTSYS },

	/* Out of servers. */
	{ "no servers, some busy", .flags = F_BUSY, .prior = -EBUSY,
	  .in = EVENT(A(NO_SERVERS), 0), .action = A(SLEEP_START),
	  .clear = F_BUSY, .rounds_after = 1, .error = -EBUSY },
	{ "no servers, some busy, rounds used up", .flags = F_BUSY,
	  .rounds = MAX_ROUNDS, .in = EVENT(A(NO_SERVERS), 0), .action = A(FAIL),
	  .error = -EBUSY, .rounds_after = MAX_ROUNDS },
	{ "no servers, a server's answer beats the probes", .prior = -EREMOTEIO,
	  .in = EVENT(A(NO_SERVERS), -ECONNREFUSED), .action = A(FAIL), .error = -EREMOTEIO },
	{ "no servers, the probes beat a worse local error", .prior = -ENETUNREACH,
	  .in = EVENT(A(NO_SERVERS), -ETIMEDOUT), .action = A(FAIL), .error = -ETIMEDOUT },
	{ "no servers, only the probes", .in = EVENT(A(NO_SERVERS), -EHOSTUNREACH),
	  .action = A(FAIL), .error = -EHOSTUNREACH },
	{ "no servers, nothing known", .in = EVENT(A(NO_SERVERS), 0),
	  .action = A(FAIL), .error = -EDESTADDRREQ },

	{ "driver step failed", .in = EVENT(A(STEP_FAILED), -ESTALE),
	  .action = A(FAIL), .error = -ESTALE, .set = F_STOP },
	{ "signal during a sleep", .in = EVENT(A(INTERRUPTED), 0),
	  .action = A(FAIL), .error = -ERESTARTSYS, .set = F_STOP },
};

static void afs_rotate_case_desc(const struct afs_rotate_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_rotate, afs_rotate_cases, afs_rotate_case_desc);

static void afs_rotate_decide_table(struct kunit *test)
{
	const struct afs_rotate_case *c = test->param_value;
	struct afs_rotate_state state = {
		.flags		= c->flags,
		.error		= c->prior,
		.busy_rounds	= c->rounds,
	};
	struct afs_rotate_decision d = afs_rotate_decide(&state, &c->in);

	KUNIT_EXPECT_EQ(test, d.action, c->action);
	KUNIT_EXPECT_EQ(test, d.note, c->note);
	KUNIT_EXPECT_EQ(test, state.error, c->error);
	if (d.action == A(FAIL)) {
		KUNIT_EXPECT_EQ(test, d.error, c->error);
		KUNIT_EXPECT_TRUE(test, state.flags & F_STOP);
	} else if (d.action != A(SUCCEED)) {
		KUNIT_EXPECT_FALSE(test, state.flags & F_STOP);
	}
	KUNIT_EXPECT_EQ(test, state.flags & c->set, c->set);
	KUNIT_EXPECT_EQ(test, state.flags & c->clear, 0);
	KUNIT_EXPECT_EQ(test, state.busy_rounds,
			c->rounds_after ?: c->rounds);
}

/*
 * Scenarios: a rotation driven through the decision step by step.  Each step
 * is what happened and what must be done about it; .sets stands for the
 * driver's own changes to the flags before the step (it sets RETRY_SERVER
 * whenever it picks a server).
 */
struct afs_rotate_step {
	struct afs_rotate_outcome	in;
	enum afs_rotate_action		action;
	int				error;
	unsigned int			sets;
};

#define STEP(i, a, ...)	{ .in = i, .action = A(a), __VA_ARGS__ }
#define END		{ .in = { .event = NR__AFS_ROTATE_EVENTS } }

static void afs_rotate_run(struct kunit *test, unsigned int flags,
			   const struct afs_rotate_step *steps)
{
	struct afs_rotate_state state = { .flags = flags };
	int i;

	for (i = 0; steps[i].in.event != NR__AFS_ROTATE_EVENTS; i++) {
		struct afs_rotate_decision d;

		state.flags |= steps[i].sets;
		d = afs_rotate_decide(&state, &steps[i].in);
		KUNIT_ASSERT_EQ_MSG(test, d.action, steps[i].action, "step %d", i);
		if (d.action == A(FAIL))
			KUNIT_ASSERT_EQ_MSG(test, d.error, steps[i].error, "step %d", i);
	}
}

static void afs_rotate_offline_then_other_server(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VOFFLINE), NEXT_SERVER),
		STEP(LOCAL(0), SUCCEED),
		END
	};

	afs_rotate_run(test, 0, steps);
}

static void afs_rotate_busy_rounds_then_success(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VBUSY), NEXT_SERVER),
		STEP(ABORT(VRESTARTING), NEXT_SERVER),
		STEP(EVENT(A(NO_SERVERS), 0), SLEEP_START),
		STEP(ABORT(VBUSY), NEXT_SERVER),
		STEP(ABORT(VBUSY), NEXT_SERVER),
		STEP(EVENT(A(NO_SERVERS), 0), SLEEP_START),
		STEP(ABORT(VBUSY), NEXT_SERVER),
		STEP(LOCAL(0), SUCCEED),
		END
	};

	afs_rotate_run(test, 0, steps);
}

/* Busy for ever: a bounded number of sleeps, then -EBUSY, never a spin. */
static void afs_rotate_busy_forever(struct kunit *test)
{
	struct afs_rotate_state state = {};
	struct afs_rotate_outcome busy = ABORT(VBUSY);
	struct afs_rotate_outcome none = EVENT(A(NO_SERVERS), -ECONNREFUSED);
	struct afs_rotate_decision d;
	int sleeps = 0, i;

	d = afs_rotate_decide(&state, &(struct afs_rotate_outcome)EVENT(A(BEGIN), 0));
	KUNIT_ASSERT_EQ(test, d.action, A(START));
	for (i = 0; i < 10 * MAX_ROUNDS; i++) {
		KUNIT_ASSERT_EQ(test, afs_rotate_decide(&state, &busy).action, A(NEXT_SERVER));
		KUNIT_ASSERT_EQ(test, afs_rotate_decide(&state, &busy).action, A(NEXT_SERVER));
		d = afs_rotate_decide(&state, &none);
		if (d.action != A(SLEEP_START))
			break;
		sleeps++;
	}
	KUNIT_EXPECT_EQ(test, d.action, A(FAIL));
	KUNIT_EXPECT_EQ(test, d.error, -EBUSY);
	KUNIT_EXPECT_EQ(test, sleeps, MAX_ROUNDS);
}

static void afs_rotate_moved_then_success(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VMOVED), UPDATE_VLDB),
		STEP(UPDATED(VMOVED, 0, true, false), START),
		STEP(LOCAL(0), SUCCEED),
		END
	};

	afs_rotate_run(test, 0, steps);
}

static void afs_rotate_moved_twice(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VMOVED), UPDATE_VLDB),
		STEP(UPDATED(VMOVED, 0, true, false), START),
		STEP(ABORT(VMOVED), FAIL, .error = -EREMOTEIO),
		END
	};

	afs_rotate_run(test, 0, steps);
}

/* VNOVOL everywhere must still say EREMOTEIO, not EDESTADDRREQ (6.12). */
static void afs_rotate_no_volume_anywhere(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VNOVOL), UPDATE_VLDB),
		STEP(UPDATED(VNOVOL, 0, true, false), RETRY),
		STEP(ABORT(VNOVOL), NEXT_SERVER),
		STEP(ABORT(VNOVOL), NEXT_SERVER),
		STEP(EVENT(A(NO_SERVERS), -ECONNREFUSED), FAIL, .error = -EREMOTEIO),
		END
	};

	afs_rotate_run(test, 0, steps);
}

/* A full volume says ENOSPC, not EDESTADDRREQ (6.1). */
static void afs_rotate_full_volume(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(LOCAL(-ETIMEDOUT), NEXT_ADDRESS),
		STEP(ABORT(VDISKFULL), FAIL, .error = -ENOSPC),
		END
	};

	afs_rotate_run(test, 0, steps);
}

static void afs_rotate_all_unreachable(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(LOCAL(-EHOSTUNREACH), NEXT_ADDRESS, .sets = F_RETRY),
		STEP(LOCAL(-ENETUNREACH), NEXT_ADDRESS),
		STEP(EVENT(A(NO_ADDRESSES), 0), PROBE),
		STEP(EVENT(A(PROBED), -ETIME), NEXT_SERVER),
		STEP(LOCAL(-ECONNREFUSED), NEXT_ADDRESS, .sets = F_RETRY),
		STEP(EVENT(A(NO_ADDRESSES), 0), PROBE),
		STEP(EVENT(A(PROBED), 0), RETRY_SERVER),
		STEP(LOCAL(-ECONNREFUSED), NEXT_ADDRESS),
		STEP(EVENT(A(NO_ADDRESSES), 0), NEXT_SERVER),
		STEP(EVENT(A(NO_SERVERS), -EHOSTUNREACH), FAIL, .error = -ECONNREFUSED),
		END
	};

	afs_rotate_run(test, 0, steps);
}

static void afs_rotate_locked_file_sleeps(struct kunit *test)
{
	static const struct afs_rotate_step steps[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VBUSY), SLEEP_RETRY),
		STEP(ABORT(VBUSY), SLEEP_RETRY),
		STEP(ABORT(VOFFLINE), SLEEP_RETRY),
		STEP(LOCAL(0), SUCCEED),
		END
	};

	afs_rotate_run(test, F_CUR_ONLY, steps);
}

static void afs_rotate_signal_during_sleep(struct kunit *test)
{
	static const struct afs_rotate_step locked[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VBUSY), SLEEP_RETRY),
		STEP(EVENT(A(INTERRUPTED), 0), FAIL, .error = -ERESTARTSYS),
		END
	};
	static const struct afs_rotate_step round[] = {
		STEP(EVENT(A(BEGIN), 0), START),
		STEP(ABORT(VBUSY), NEXT_SERVER),
		STEP(EVENT(A(NO_SERVERS), 0), SLEEP_START),
		STEP(EVENT(A(INTERRUPTED), 0), FAIL, .error = -ERESTARTSYS),
		END
	};

	afs_rotate_run(test, F_CUR_ONLY, locked);
	afs_rotate_run(test, 0, round);
}

/* The table covers every event, and every action some row leads to. */
static void afs_rotate_table_coverage(struct kunit *test)
{
	unsigned long events = 0, actions = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(afs_rotate_cases); i++) {
		events |= BIT(afs_rotate_cases[i].in.event);
		actions |= BIT(afs_rotate_cases[i].action);
	}
	KUNIT_EXPECT_EQ(test, events, BIT(NR__AFS_ROTATE_EVENTS) - 1);
	KUNIT_EXPECT_EQ(test, actions, BIT(NR__AFS_ROTATE_ACTIONS) - 1);
	kunit_info(test, "%zu transitions in the table\n", ARRAY_SIZE(afs_rotate_cases));
}

/*
 * Driver cases: afs_select_fileserver() on a volume served by two fake
 * servers of two addresses each, all of them answering probes, so that no
 * real probe or VLDB lookup is made.  Each call's outcome is set by hand,
 * as afs_wait_for_operation() would after a real call.  At the end every
 * reference on the server list and the address lists must be back where
 * it started.
 */
#define AFS_TEST_SERVERS	2

struct afs_rotate_fixture {
	struct afs_cell		*cell;
	struct afs_volume	*volume;
	struct afs_vnode	*vnode;
	struct afs_server_list	*slist;
	struct afs_server	*servers[AFS_TEST_SERVERS];
	struct afs_addr_list	*alists[AFS_TEST_SERVERS];
	struct afs_operation	*op;
};

static int afs_rotate_driver_init(struct kunit *test)
{
	struct afs_rotate_fixture *f;
	int i;

	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	test->priv = f;

	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	f->volume = kunit_kzalloc(test, sizeof(*f->volume), GFP_KERNEL);
	f->vnode = kunit_kzalloc(test, sizeof(*f->vnode), GFP_KERNEL);
	f->op = kunit_kzalloc(test, sizeof(*f->op), GFP_KERNEL);
	f->slist = kunit_kzalloc(test, struct_size(f->slist, servers, AFS_TEST_SERVERS),
				 GFP_KERNEL);
	if (!f->cell || !f->volume || !f->vnode || !f->op || !f->slist)
		return -ENOMEM;

	refcount_set(&f->slist->usage, 1);	/* The fixture's own */
	rwlock_init(&f->slist->lock);
	f->slist->nr_servers = AFS_TEST_SERVERS;
	for (i = 0; i < AFS_TEST_SERVERS; i++) {
		struct afs_server *server;
		struct afs_addr_list *alist;

		server = kunit_kzalloc(test, sizeof(*server), GFP_KERNEL);
		alist = afs_alloc_addrlist(2, FS_SERVICE, AFS_FS_PORT);
		if (!server || !alist) {
			afs_put_addrlist(alist);
			return -ENOMEM;
		}
		afs_merge_fs_addr4(alist, htonl(0x0a000001 + 2 * i), AFS_FS_PORT);
		afs_merge_fs_addr4(alist, htonl(0x0a000002 + 2 * i), AFS_FS_PORT);
		alist->responded = 0x3;
		f->alists[i] = alist;

		rwlock_init(&server->fs_lock);
		RCU_INIT_POINTER(server->addresses, alist);
		server->cell = f->cell;
		server->probe.rtt = 100 * (i + 1);	/* Server 0 is nearer */
		set_bit(AFS_SERVER_FL_RESPONDING, &server->flags);
		f->servers[i] = server;
		f->slist->servers[i].server = server;
	}

	rwlock_init(&f->volume->servers_lock);
	RCU_INIT_POINTER(f->volume->servers, f->slist);
	f->volume->update_at = TIME64_MAX;	/* No VLDB lookups */
	f->volume->type = AFSVL_RWVOL;
	f->volume->cell = f->cell;
	strscpy(f->volume->name, "test.vol", sizeof(f->volume->name));

	seqlock_init(&f->vnode->cb_lock);
	f->vnode->volume = f->volume;

	/* As afs_alloc_operation() leaves it. */
	f->op->volume = f->volume;
	f->op->file[0].vnode = f->vnode;
	f->op->error = -EDESTADDRREQ;
	f->op->ac.error = SHRT_MAX;
	return 0;
}

static void afs_rotate_driver_exit(struct kunit *test)
{
	struct afs_rotate_fixture *f = test->priv;
	int i;

	if (!f || !f->op)
		return;
	/* What afs_put_operation() does with the rotation's leftovers. */
	afs_end_cursor(&f->op->ac);
	if (f->op->server_list)
		afs_put_serverlist(NULL, f->op->server_list);

	KUNIT_EXPECT_EQ(test, refcount_read(&f->slist->usage), 1);
	for (i = 0; i < AFS_TEST_SERVERS; i++) {
		if (!f->alists[i])
			continue;
		KUNIT_EXPECT_EQ_MSG(test, refcount_read(&f->alists[i]->usage), 1,
				    "address list %d", i);
		afs_put_addrlist(f->alists[i]);
	}
}

/* Finish a call the way afs_wait_for_operation() does. */
static void afs_test_call_ends(struct afs_operation *op, int error, u32 abort_code)
{
	op->ac.error = error;
	op->ac.abort_code = abort_code;
	op->ac.responded = error != -EHOSTUNREACH;
	op->error = error;
}

static void afs_rotate_driver_success(struct kunit *test)
{
	struct afs_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);
	KUNIT_EXPECT_PTR_EQ(test, op->ac.alist, f->alists[0]);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->alists[0]->usage), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->slist->usage), 2);

	afs_test_call_ends(op, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
	KUNIT_EXPECT_NULL(test, op->ac.alist);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));	/* Stopped */
}

static void afs_rotate_driver_offline_then_other(struct kunit *test)
{
	struct afs_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[0]);
	afs_test_call_ends(op, -ECONNABORTED, VOFFLINE);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[1]);
	KUNIT_EXPECT_PTR_EQ(test, op->ac.alist, f->alists[1]);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->alists[0]->usage), 1);
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VOLUME_OFFLINE, &f->volume->flags));

	afs_test_call_ends(op, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
}

static void afs_rotate_driver_next_address(struct kunit *test)
{
	struct afs_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_EQ(test, op->ac.index, 0);
	afs_test_call_ends(op, -EHOSTUNREACH, 0);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);
	KUNIT_EXPECT_EQ(test, op->ac.index, 1);

	afs_test_call_ends(op, -ECONNABORTED, VDISKFULL);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, -ENOSPC);
}

/* Both servers busy: one sleep, a second round, then success. */
static void afs_rotate_driver_busy_round(struct kunit *test)
{
	struct afs_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_call_ends(op, -ECONNABORTED, VBUSY);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[1]);
	afs_test_call_ends(op, -ECONNABORTED, VBUSY);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));	/* Sleeps 1 s */
	KUNIT_EXPECT_EQ(test, op->nr_busy_rounds, 1);
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);

	afs_test_call_ends(op, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
}

/* A signal during the sleep ends the operation, references dropped. */
static void afs_rotate_driver_signal(struct kunit *test)
{
	struct afs_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->flags |= AFS_OPERATION_CUR_ONLY;
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_call_ends(op, -ECONNABORTED, VBUSY);

	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	flush_signals(current);
	disallow_signal(SIGUSR1);

	KUNIT_EXPECT_EQ(test, op->error, -ERESTARTSYS);
	KUNIT_EXPECT_NULL(test, op->ac.alist);
}

static struct kunit_case afs_rotate_driver_cases[] = {
	KUNIT_CASE(afs_rotate_driver_success),
	KUNIT_CASE(afs_rotate_driver_offline_then_other),
	KUNIT_CASE(afs_rotate_driver_next_address),
	KUNIT_CASE(afs_rotate_driver_busy_round),
	KUNIT_CASE(afs_rotate_driver_signal),
	{}
};

static struct kunit_suite afs_rotate_driver_suite = {
	.name = "afs_rotate_driver",
	.init = afs_rotate_driver_init,
	.exit = afs_rotate_driver_exit,
	.test_cases = afs_rotate_driver_cases,
};

static struct kunit_case afs_rotate_test_cases[] = {
	KUNIT_CASE_PARAM(afs_rotate_decide_table, afs_rotate_gen_params),
	KUNIT_CASE(afs_rotate_table_coverage),
	KUNIT_CASE(afs_rotate_offline_then_other_server),
	KUNIT_CASE(afs_rotate_busy_rounds_then_success),
	KUNIT_CASE(afs_rotate_busy_forever),
	KUNIT_CASE(afs_rotate_moved_then_success),
	KUNIT_CASE(afs_rotate_moved_twice),
	KUNIT_CASE(afs_rotate_no_volume_anywhere),
	KUNIT_CASE(afs_rotate_full_volume),
	KUNIT_CASE(afs_rotate_all_unreachable),
	KUNIT_CASE(afs_rotate_locked_file_sleeps),
	KUNIT_CASE(afs_rotate_signal_during_sleep),
	{}
};

static struct kunit_suite afs_rotate_suite = {
	.name = "afs_rotate",
	.test_cases = afs_rotate_test_cases,
};

kunit_test_suites(&afs_rotate_suite, &afs_rotate_driver_suite);

#undef ABORT
#undef ABORT_RO
#undef LOCAL
#undef EVENT
#undef UPDATED
#undef F_CUR_ONLY
#undef F_NO_VSLEEP
#undef F_BUSY
#undef F_MOVED
#undef F_NOVOL
#undef F_RETRY
#undef F_STOP
#undef MAX_ROUNDS
#undef N
#undef A
#undef STEP
#undef END
