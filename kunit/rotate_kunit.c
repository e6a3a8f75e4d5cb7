// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suites for fileserver rotation: the decision table, scenarios, and the
 * driver itself.
 *
 * Included by rotate.c, so every helper and macro here carries the afs_test_
 * or AFS_TEST_ prefix.  afs_rotate_decide() touches only the rotation fields
 * of the operation, so every transition is a row: the state before, what
 * happened, and what must follow.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/sched/signal.h>
#include <net/net_namespace.h>

#define AFS_TEST_ACT(x)		AFS_ROTATE_##x
#define AFS_TEST_NOTE(x)	AFS_ROTATE_NOTE_##x
#define AFS_TEST_ROUNDS		AFS_ROTATE_MAX_BUSY_ROUNDS

/* Outcomes, as the driver reports them. */
#define AFS_TEST_ABORT(code)	{ .event = AFS_ROTATE_CALL_DONE, .error = -ECONNABORTED, \
				  .abort_code = (code), .volume_rw = true }
#define AFS_TEST_ABORT_RO(code)	{ .event = AFS_ROTATE_CALL_DONE, .error = -ECONNABORTED, \
				  .abort_code = (code) }
#define AFS_TEST_LOCAL(err)	{ .event = AFS_ROTATE_CALL_DONE, .error = (err) }
#define AFS_TEST_EVENT(ev, err)	{ .event = AFS_ROTATE_##ev, .error = (err) }
#define AFS_TEST_UPDATED(code, err, changed, deleted) \
				{ .event = AFS_ROTATE_VLDB_UPDATED, .abort_code = (code), \
				  .error = (err), .servers_changed = (changed), \
				  .volume_deleted = (deleted) }

struct afs_test_rotate_row {
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

static const struct afs_test_rotate_row afs_test_rotate_rows[] = {
	{ "begin", .in = AFS_TEST_EVENT(BEGIN, 0), .action = AFS_TEST_ACT(START) },
	{ "success", .in = AFS_TEST_LOCAL(0), .action = AFS_TEST_ACT(SUCCEED),
	  .set = AFS_OPERATION_STOP },
	{ "success forgets earlier errors", .prior = -ETIMEDOUT, .in = AFS_TEST_LOCAL(0),
	  .action = AFS_TEST_ACT(SUCCEED), .error = 0 },

	/* VNOVOL: check the VLDB once, then move on. */
	{ "VNOVOL first time", .in = AFS_TEST_ABORT(VNOVOL),
	  .action = AFS_TEST_ACT(UPDATE_VLDB), .note = AFS_TEST_NOTE(NO_VOLUME),
	  .clear = AFS_OPERATION_STOP },
	{ "VNOVOL second time", .flags = AFS_OPERATION_VNOVOL, .in = AFS_TEST_ABORT(VNOVOL),
	  .action = AFS_TEST_ACT(NEXT_SERVER), .error = -EREMOTEIO },
	{ "VNOVOL updated, new server list", .in = AFS_TEST_UPDATED(VNOVOL, 0, true, false),
	  .action = AFS_TEST_ACT(RETRY), .set = AFS_OPERATION_VNOVOL },
	{ "VNOVOL updated, same server list", .in = AFS_TEST_UPDATED(VNOVOL, 0, false, false),
	  .action = AFS_TEST_ACT(NEXT_SERVER), .error = -EREMOTEIO },
	{ "VNOVOL updated, volume deleted", .in = AFS_TEST_UPDATED(VNOVOL, 0, true, true),
	  .action = AFS_TEST_ACT(FAIL), .error = -ENOMEDIUM, .set = AFS_OPERATION_STOP },
	{ "VNOVOL update failed", .in = AFS_TEST_UPDATED(VNOVOL, -ENOMEM, false, false),
	  .action = AFS_TEST_ACT(FAIL), .error = -ENOMEM },

	/* Aborts a fileserver should not send: say so, try another. */
	{ "VVOLEXISTS", .in = AFS_TEST_ABORT(VVOLEXISTS), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EREMOTEIO, .note = AFS_TEST_NOTE(UNEXPECTED) },
	{ "VONLINE", .in = AFS_TEST_ABORT(VONLINE), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EREMOTEIO, .note = AFS_TEST_NOTE(UNEXPECTED) },

	/* The server gave up on a slow call: wait for it as for a busy one. */
	{ "VNOSERVICE", .in = AFS_TEST_ABORT(VNOSERVICE), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -ETIMEDOUT, .set = AFS_OPERATION_VBUSY },
	{ "RX_CALL_TIMEOUT", .in = AFS_TEST_ABORT(RX_CALL_TIMEOUT),
	  .action = AFS_TEST_ACT(NEXT_SERVER), .error = -ETIMEDOUT, .set = AFS_OPERATION_VBUSY },
	{ "VNOSERVICE with a file lock", .flags = AFS_OPERATION_CUR_ONLY,
	  .in = AFS_TEST_ABORT(VNOSERVICE), .action = AFS_TEST_ACT(SLEEP_RETRY),
	  .rounds_after = 1 },
	{ "VNOSERVICE when sleeping is forbidden", .flags = AFS_OPERATION_NO_VSLEEP,
	  .in = AFS_TEST_ABORT(VNOSERVICE), .action = AFS_TEST_ACT(FAIL), .error = -ETIMEDOUT },

	/* Offline and busy: try the others, come back after the round. */
	{ "VOFFLINE", .in = AFS_TEST_ABORT(VOFFLINE), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EBUSY, .note = AFS_TEST_NOTE(OFFLINE), .set = AFS_OPERATION_VBUSY },
	{ "VSALVAGE", .in = AFS_TEST_ABORT(VSALVAGE), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EBUSY, .note = AFS_TEST_NOTE(OFFLINE), .set = AFS_OPERATION_VBUSY },
	{ "VSALVAGING is busy, not offline", .in = AFS_TEST_ABORT(VSALVAGING),
	  .action = AFS_TEST_ACT(NEXT_SERVER), .error = -EBUSY, .note = AFS_TEST_NOTE(BUSY),
	  .set = AFS_OPERATION_VBUSY },
	{ "VBUSY", .in = AFS_TEST_ABORT(VBUSY), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EBUSY, .note = AFS_TEST_NOTE(BUSY), .set = AFS_OPERATION_VBUSY },
	{ "VRESTARTING", .in = AFS_TEST_ABORT(VRESTARTING), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EBUSY, .note = AFS_TEST_NOTE(BUSY), .set = AFS_OPERATION_VBUSY },
	{ "VBUSY with a file lock", .flags = AFS_OPERATION_CUR_ONLY, .in = AFS_TEST_ABORT(VBUSY),
	  .action = AFS_TEST_ACT(SLEEP_RETRY), .note = AFS_TEST_NOTE(BUSY), .rounds_after = 1,
	  .clear = AFS_OPERATION_VBUSY },
	{ "VOFFLINE with a file lock", .flags = AFS_OPERATION_CUR_ONLY,
	  .in = AFS_TEST_ABORT(VOFFLINE), .action = AFS_TEST_ACT(SLEEP_RETRY),
	  .note = AFS_TEST_NOTE(OFFLINE), .rounds_after = 1 },
	{ "VBUSY with a file lock, rounds used up", .flags = AFS_OPERATION_CUR_ONLY,
	  .rounds = AFS_TEST_ROUNDS, .in = AFS_TEST_ABORT(VBUSY), .action = AFS_TEST_ACT(FAIL),
	  .error = -EBUSY, .note = AFS_TEST_NOTE(BUSY), .rounds_after = AFS_TEST_ROUNDS },
	{ "VBUSY when sleeping is forbidden", .flags = AFS_OPERATION_NO_VSLEEP,
	  .in = AFS_TEST_ABORT(VBUSY), .action = AFS_TEST_ACT(FAIL), .error = -EBUSY,
	  .note = AFS_TEST_NOTE(BUSY) },
	{ "VOFFLINE when sleeping is forbidden", .flags = AFS_OPERATION_NO_VSLEEP,
	  .in = AFS_TEST_ABORT(VOFFLINE), .action = AFS_TEST_ACT(FAIL), .error = -EBUSY,
	  .note = AFS_TEST_NOTE(OFFLINE) },

	/* VMOVED: follow one move. */
	{ "VMOVED first time", .in = AFS_TEST_ABORT(VMOVED), .action = AFS_TEST_ACT(UPDATE_VLDB),
	  .note = AFS_TEST_NOTE(MOVED), .set = AFS_OPERATION_VMOVED },
	{ "VMOVED second time", .flags = AFS_OPERATION_VMOVED, .in = AFS_TEST_ABORT(VMOVED),
	  .action = AFS_TEST_ACT(FAIL), .error = -EREMOTEIO },
	{ "VMOVED updated, new server list", .flags = AFS_OPERATION_VMOVED,
	  .in = AFS_TEST_UPDATED(VMOVED, 0, true, false), .action = AFS_TEST_ACT(START) },
	{ "VMOVED updated, same server list", .flags = AFS_OPERATION_VMOVED,
	  .in = AFS_TEST_UPDATED(VMOVED, 0, false, false), .action = AFS_TEST_ACT(FAIL),
	  .error = -ENOMEDIUM },
	{ "VMOVED updated, volume deleted", .flags = AFS_OPERATION_VMOVED,
	  .in = AFS_TEST_UPDATED(VMOVED, 0, true, true), .action = AFS_TEST_ACT(FAIL),
	  .error = -ENOMEDIUM },
	{ "VMOVED update failed", .flags = AFS_OPERATION_VMOVED,
	  .in = AFS_TEST_UPDATED(VMOVED, -ENOENT, true, false), .action = AFS_TEST_ACT(FAIL),
	  .error = -ENOENT },

	/* I/O errors: a read-only replica elsewhere may be sound. */
	{ "VIO on a RW volume", .in = AFS_TEST_ABORT(VIO), .action = AFS_TEST_ACT(FAIL),
	  .error = -EREMOTEIO },
	{ "VIO on a RO volume", .in = AFS_TEST_ABORT_RO(VIO), .action = AFS_TEST_ACT(NEXT_SERVER),
	  .error = -EREMOTEIO },
	{ "UAEIO on a RW volume", .in = AFS_TEST_ABORT(UAEIO), .action = AFS_TEST_ACT(FAIL),
	  .error = -EREMOTEIO },
	{ "UAEIO on a RO volume", .in = AFS_TEST_ABORT_RO(UAEIO),
	  .action = AFS_TEST_ACT(NEXT_SERVER), .error = -EREMOTEIO },

	/* Answers that hold wherever we ask. */
	{ "VDISKFULL", .in = AFS_TEST_ABORT(VDISKFULL), .action = AFS_TEST_ACT(FAIL),
	  .error = -ENOSPC },
	{ "UAENOSPC", .in = AFS_TEST_ABORT(UAENOSPC), .action = AFS_TEST_ACT(FAIL),
	  .error = -ENOSPC },
	{ "VOVERQUOTA", .in = AFS_TEST_ABORT(VOVERQUOTA), .action = AFS_TEST_ACT(FAIL),
	  .error = -EDQUOT },
	{ "UAEDQUOT", .in = AFS_TEST_ABORT(UAEDQUOT), .action = AFS_TEST_ACT(FAIL),
	  .error = -EDQUOT },
	/* The answer to the operation itself goes back as the abort. */
	{ "VNOVNODE", .in = AFS_TEST_ABORT(VNOVNODE), .action = AFS_TEST_ACT(FAIL),
	  .error = -ECONNABORTED, .note = AFS_TEST_NOTE(ONLINE) },
	{ "unknown abort", .in = AFS_TEST_ABORT(12345), .action = AFS_TEST_ACT(FAIL),
	  .error = -ECONNABORTED, .note = AFS_TEST_NOTE(ONLINE) },

	/* Local results. */
	{ "ETIMEDOUT", .in = AFS_TEST_LOCAL(-ETIMEDOUT), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -ETIMEDOUT },
	{ "ETIME", .in = AFS_TEST_LOCAL(-ETIME), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -ETIME },
	{ "ERFKILL", .in = AFS_TEST_LOCAL(-ERFKILL), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -ERFKILL },
	{ "EADDRNOTAVAIL", .in = AFS_TEST_LOCAL(-EADDRNOTAVAIL),
	  .action = AFS_TEST_ACT(NEXT_ADDRESS), .error = -EADDRNOTAVAIL },
	{ "ENETUNREACH", .in = AFS_TEST_LOCAL(-ENETUNREACH), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -ENETUNREACH },
	{ "EHOSTUNREACH", .in = AFS_TEST_LOCAL(-EHOSTUNREACH),
	  .action = AFS_TEST_ACT(NEXT_ADDRESS), .error = -EHOSTUNREACH },
	{ "EHOSTDOWN", .in = AFS_TEST_LOCAL(-EHOSTDOWN), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -EHOSTDOWN },
	{ "ECONNREFUSED", .in = AFS_TEST_LOCAL(-ECONNREFUSED),
	  .action = AFS_TEST_ACT(NEXT_ADDRESS), .error = -ECONNREFUSED },
	{ "ENETRESET, with the stock warning", .in = AFS_TEST_LOCAL(-ENETRESET),
	  .action = AFS_TEST_ACT(FAIL), .error = -ENETRESET, .note = AFS_TEST_NOTE(PEER_RESET) },
	{ "ECONNRESET", .in = AFS_TEST_LOCAL(-ECONNRESET), .action = AFS_TEST_ACT(FAIL),
	  .error = -ECONNRESET },
	{ "ENOMEM", .in = AFS_TEST_LOCAL(-ENOMEM), .action = AFS_TEST_ACT(FAIL), .error = -ENOMEM },
	{ "EINTR", .in = AFS_TEST_LOCAL(-EINTR), .action = AFS_TEST_ACT(FAIL), .error = -EINTR },

	/* One order of meaning, for calls and probes alike. */
	{ "a timeout does not hide a server's answer", .prior = -EREMOTEIO,
	  .in = AFS_TEST_LOCAL(-ETIMEDOUT), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -EREMOTEIO },
	{ "a refusal beats a timeout", .prior = -ETIMEDOUT, .in = AFS_TEST_LOCAL(-ECONNREFUSED),
	  .action = AFS_TEST_ACT(NEXT_ADDRESS), .error = -ECONNREFUSED },
	{ "a timeout does not hide a refusal", .prior = -ECONNREFUSED,
	  .in = AFS_TEST_LOCAL(-ETIME), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -ECONNREFUSED },
	{ "a refusal replaces an unreachable host", .prior = -EHOSTUNREACH,
	  .in = AFS_TEST_LOCAL(-ECONNREFUSED), .action = AFS_TEST_ACT(NEXT_ADDRESS),
	  .error = -ECONNREFUSED },

	/* A server out of addresses is re-probed each time, waited for once. */
	{ "no addresses, first time", .flags = AFS_OPERATION_RETRY_SERVER,
	  .in = AFS_TEST_EVENT(NO_ADDRESSES, 0), .action = AFS_TEST_ACT(PROBE),
	  .clear = AFS_OPERATION_RETRY_SERVER },
	{ "no addresses, after the re-probe", .in = AFS_TEST_EVENT(NO_ADDRESSES, 0),
	  .action = AFS_TEST_ACT(PROBE_NEXT_SERVER) },
	{ "re-probe answered", .in = AFS_TEST_EVENT(PROBED, 0),
	  .action = AFS_TEST_ACT(RETRY_SERVER) },
	{ "re-probe timed out", .in = AFS_TEST_EVENT(PROBED, -ETIME),
	  .action = AFS_TEST_ACT(NEXT_SERVER) },
	{ "re-probe found no address", .in = AFS_TEST_EVENT(PROBED, -EDESTADDRREQ),
	  .action = AFS_TEST_ACT(NEXT_SERVER) },
	{ "re-probe interrupted", .in = AFS_TEST_EVENT(PROBED, -ERESTARTSYS),
	  .action = AFS_TEST_ACT(FAIL), .error = -ERESTARTSYS },

	/* Out of servers. */
	{ "no servers, some busy", .flags = AFS_OPERATION_VBUSY, .prior = -EBUSY,
	  .in = AFS_TEST_EVENT(NO_SERVERS, 0), .action = AFS_TEST_ACT(SLEEP_START),
	  .clear = AFS_OPERATION_VBUSY, .rounds_after = 1, .error = -EBUSY },
	{ "no servers, some busy, rounds used up", .flags = AFS_OPERATION_VBUSY,
	  .prior = -EBUSY, .rounds = AFS_TEST_ROUNDS, .in = AFS_TEST_EVENT(NO_SERVERS, 0),
	  .action = AFS_TEST_ACT(FAIL), .error = -EBUSY, .rounds_after = AFS_TEST_ROUNDS },
	{ "no servers, one slow, rounds used up", .flags = AFS_OPERATION_VBUSY,
	  .prior = -ETIMEDOUT, .rounds = AFS_TEST_ROUNDS, .in = AFS_TEST_EVENT(NO_SERVERS, 0),
	  .action = AFS_TEST_ACT(FAIL), .error = -ETIMEDOUT, .rounds_after = AFS_TEST_ROUNDS },
	{ "no servers, a server's answer beats the probes", .prior = -EREMOTEIO,
	  .in = AFS_TEST_EVENT(NO_SERVERS, -ECONNREFUSED), .action = AFS_TEST_ACT(FAIL),
	  .error = -EREMOTEIO },
	{ "no servers, a probe's refusal beats a call's timeout", .prior = -ETIMEDOUT,
	  .in = AFS_TEST_EVENT(NO_SERVERS, -ENETUNREACH), .action = AFS_TEST_ACT(FAIL),
	  .error = -ENETUNREACH },
	{ "no servers, ENOMEM is not a server's answer", .prior = -ECONNREFUSED,
	  .in = AFS_TEST_EVENT(NO_SERVERS, -ENOMEM), .action = AFS_TEST_ACT(FAIL),
	  .error = -ECONNREFUSED },
	{ "no servers, only the probes", .in = AFS_TEST_EVENT(NO_SERVERS, -EHOSTUNREACH),
	  .action = AFS_TEST_ACT(FAIL), .error = -EHOSTUNREACH },
	{ "no servers, nothing known", .in = AFS_TEST_EVENT(NO_SERVERS, 0),
	  .action = AFS_TEST_ACT(FAIL), .error = -EDESTADDRREQ },
	{ "no servers, some silent: probe them once",
	  .in = { .event = AFS_ROTATE_NO_SERVERS, .error = -ECONNREFUSED, .unanswered = true },
	  .action = AFS_TEST_ACT(PROBE_UNANSWERED), .set = AFS_OPERATION_TRIED_ALL },
	{ "no servers, some silent, already probed", .flags = AFS_OPERATION_TRIED_ALL,
	  .in = { .event = AFS_ROTATE_NO_SERVERS, .error = -ECONNREFUSED, .unanswered = true },
	  .action = AFS_TEST_ACT(FAIL), .error = -ECONNREFUSED },
	{ "no servers, some silent, but some busy", .flags = AFS_OPERATION_VBUSY,
	  .prior = -EBUSY,
	  .in = { .event = AFS_ROTATE_NO_SERVERS, .error = -ECONNREFUSED, .unanswered = true },
	  .action = AFS_TEST_ACT(SLEEP_START), .error = -EBUSY, .rounds_after = 1,
	  .clear = AFS_OPERATION_TRIED_ALL },

	{ "driver step failed", .in = AFS_TEST_EVENT(STEP_FAILED, -ESTALE),
	  .action = AFS_TEST_ACT(FAIL), .error = -ESTALE, .set = AFS_OPERATION_STOP },
	{ "signal during a sleep", .in = AFS_TEST_EVENT(INTERRUPTED, 0),
	  .action = AFS_TEST_ACT(FAIL), .error = -ERESTARTSYS, .set = AFS_OPERATION_STOP },
};

static void afs_test_rotate_row_desc(const struct afs_test_rotate_row *row, char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_test_rotate, afs_test_rotate_rows, afs_test_rotate_row_desc);

/* An operation holding nothing but rotation state. */
static struct afs_operation *afs_test_rotate_op(struct kunit *test, unsigned int flags)
{
	struct afs_operation *op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, op);
	op->flags = flags;
	return op;
}

static void afs_rotate_decide_table(struct kunit *test)
{
	const struct afs_test_rotate_row *row = test->param_value;
	struct afs_operation *op = afs_test_rotate_op(test, row->flags);
	struct afs_rotate_decision d;

	op->rotate_error = row->prior;
	op->nr_busy_rounds = row->rounds;
	d = afs_rotate_decide(op, &row->in);

	KUNIT_EXPECT_EQ(test, d.action, row->action);
	KUNIT_EXPECT_EQ(test, d.note, row->note);
	KUNIT_EXPECT_EQ(test, op->rotate_error, row->error);
	if (d.action == AFS_ROTATE_FAIL) {
		KUNIT_EXPECT_EQ(test, d.error, row->error);
		KUNIT_EXPECT_TRUE(test, op->flags & AFS_OPERATION_STOP);
	} else if (d.action != AFS_ROTATE_SUCCEED) {
		KUNIT_EXPECT_FALSE(test, op->flags & AFS_OPERATION_STOP);
	}
	KUNIT_EXPECT_EQ(test, op->flags & row->set, row->set);
	KUNIT_EXPECT_EQ(test, op->flags & row->clear, 0);
	KUNIT_EXPECT_EQ(test, op->nr_busy_rounds, row->rounds_after ?: row->rounds);
}

/*
 * Scenarios: a rotation driven through the decision step by step.  Each step
 * is what happened and what must be done about it; .sets stands for the
 * driver's own changes to the flags before the step (it sets RETRY_SERVER
 * whenever it picks a server).
 */
struct afs_test_rotate_step {
	struct afs_rotate_outcome	in;
	enum afs_rotate_action		action;
	int				error;
	unsigned int			sets;
};

#define AFS_TEST_STEP(i, a, ...)	{ .in = i, .action = AFS_ROTATE_##a, __VA_ARGS__ }
#define AFS_TEST_END			{ .action = -1 }

static void afs_test_rotate_run(struct kunit *test, unsigned int flags,
				const struct afs_test_rotate_step *steps)
{
	struct afs_operation *op = afs_test_rotate_op(test, flags);
	int i;

	for (i = 0; steps[i].action != -1; i++) {
		struct afs_rotate_decision d;

		op->flags |= steps[i].sets;
		d = afs_rotate_decide(op, &steps[i].in);
		KUNIT_ASSERT_EQ_MSG(test, d.action, steps[i].action, "step %d", i);
		if (d.action == AFS_ROTATE_FAIL)
			KUNIT_ASSERT_EQ_MSG(test, d.error, steps[i].error, "step %d", i);
	}
}

static void afs_rotate_offline_then_other_server(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VOFFLINE), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_LOCAL(0), SUCCEED),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

static void afs_rotate_busy_rounds_then_success(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_ABORT(VRESTARTING), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, 0), SLEEP_START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, 0), SLEEP_START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_LOCAL(0), SUCCEED),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

/*
 * Busy (or slow) for ever: a bounded number of sleeps, then the remembered
 * error, never a spin.
 */
static void afs_test_rotate_forever(struct kunit *test, u32 abort_code, int error)
{
	struct afs_operation *op = afs_test_rotate_op(test, 0);
	struct afs_rotate_outcome busy = AFS_TEST_ABORT(abort_code);
	struct afs_rotate_outcome none = AFS_TEST_EVENT(NO_SERVERS, -ECONNREFUSED);
	struct afs_rotate_outcome begin = AFS_TEST_EVENT(BEGIN, 0);
	struct afs_rotate_decision d;
	int sleeps = 0, i;

	d = afs_rotate_decide(op, &begin);
	KUNIT_ASSERT_EQ(test, d.action, AFS_ROTATE_START);
	for (i = 0; i < 10 * AFS_TEST_ROUNDS; i++) {
		KUNIT_ASSERT_EQ(test, afs_rotate_decide(op, &busy).action, AFS_ROTATE_NEXT_SERVER);
		KUNIT_ASSERT_EQ(test, afs_rotate_decide(op, &busy).action, AFS_ROTATE_NEXT_SERVER);
		d = afs_rotate_decide(op, &none);
		if (d.action != AFS_ROTATE_SLEEP_START)
			break;
		sleeps++;
	}
	KUNIT_EXPECT_EQ(test, d.action, AFS_ROTATE_FAIL);
	KUNIT_EXPECT_EQ(test, d.error, error);
	KUNIT_EXPECT_EQ(test, sleeps, AFS_TEST_ROUNDS);
}

static void afs_rotate_busy_forever(struct kunit *test)
{
	afs_test_rotate_forever(test, VBUSY, -EBUSY);
}

static void afs_rotate_slow_forever(struct kunit *test)
{
	afs_test_rotate_forever(test, VNOSERVICE, -ETIMEDOUT);
}

/*
 * The only server gives up on a call twice (the OpenAFS fileserver's
 * idle-dead abort under load): ride it out, as a busy one.
 */
static void afs_rotate_slow_only_server(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VNOSERVICE), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, 0), SLEEP_START),
		AFS_TEST_STEP(AFS_TEST_ABORT(RX_CALL_TIMEOUT), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, 0), SLEEP_START),
		AFS_TEST_STEP(AFS_TEST_LOCAL(0), SUCCEED),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

static void afs_rotate_moved_then_success(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VMOVED), UPDATE_VLDB),
		AFS_TEST_STEP(AFS_TEST_UPDATED(VMOVED, 0, true, false), START),
		AFS_TEST_STEP(AFS_TEST_LOCAL(0), SUCCEED),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

static void afs_rotate_moved_twice(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VMOVED), UPDATE_VLDB),
		AFS_TEST_STEP(AFS_TEST_UPDATED(VMOVED, 0, true, false), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VMOVED), FAIL, .error = -EREMOTEIO),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

/* VNOVOL everywhere must still say EREMOTEIO, not EDESTADDRREQ (6.12). */
static void afs_rotate_no_volume_anywhere(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VNOVOL), UPDATE_VLDB),
		AFS_TEST_STEP(AFS_TEST_UPDATED(VNOVOL, 0, true, false), RETRY),
		AFS_TEST_STEP(AFS_TEST_ABORT(VNOVOL), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_ABORT(VNOVOL), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, -ECONNREFUSED), FAIL,
			      .error = -EREMOTEIO),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

/* A full volume says ENOSPC, not EDESTADDRREQ (6.1). */
static void afs_rotate_full_volume(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_LOCAL(-ETIMEDOUT), NEXT_ADDRESS),
		AFS_TEST_STEP(AFS_TEST_ABORT(VDISKFULL), FAIL, .error = -ENOSPC),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

static void afs_rotate_all_unreachable(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_LOCAL(-EHOSTUNREACH), NEXT_ADDRESS,
			      .sets = AFS_OPERATION_RETRY_SERVER),
		AFS_TEST_STEP(AFS_TEST_LOCAL(-ENETUNREACH), NEXT_ADDRESS),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_ADDRESSES, 0), PROBE),
		AFS_TEST_STEP(AFS_TEST_EVENT(PROBED, -ETIME), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_LOCAL(-ECONNREFUSED), NEXT_ADDRESS,
			      .sets = AFS_OPERATION_RETRY_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_ADDRESSES, 0), PROBE),
		AFS_TEST_STEP(AFS_TEST_EVENT(PROBED, 0), RETRY_SERVER),
		AFS_TEST_STEP(AFS_TEST_LOCAL(-ECONNREFUSED), NEXT_ADDRESS),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_ADDRESSES, 0), PROBE_NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, -EHOSTUNREACH), FAIL,
			      .error = -ECONNREFUSED),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, 0, steps);
}

static void afs_rotate_locked_file_sleeps(struct kunit *test)
{
	static const struct afs_test_rotate_step steps[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), SLEEP_RETRY),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), SLEEP_RETRY),
		AFS_TEST_STEP(AFS_TEST_ABORT(VOFFLINE), SLEEP_RETRY),
		AFS_TEST_STEP(AFS_TEST_LOCAL(0), SUCCEED),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, AFS_OPERATION_CUR_ONLY, steps);
}

static void afs_rotate_signal_during_sleep(struct kunit *test)
{
	static const struct afs_test_rotate_step locked[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), SLEEP_RETRY),
		AFS_TEST_STEP(AFS_TEST_EVENT(INTERRUPTED, 0), FAIL, .error = -ERESTARTSYS),
		AFS_TEST_END
	};
	static const struct afs_test_rotate_step round[] = {
		AFS_TEST_STEP(AFS_TEST_EVENT(BEGIN, 0), START),
		AFS_TEST_STEP(AFS_TEST_ABORT(VBUSY), NEXT_SERVER),
		AFS_TEST_STEP(AFS_TEST_EVENT(NO_SERVERS, 0), SLEEP_START),
		AFS_TEST_STEP(AFS_TEST_EVENT(INTERRUPTED, 0), FAIL, .error = -ERESTARTSYS),
		AFS_TEST_END
	};

	afs_test_rotate_run(test, AFS_OPERATION_CUR_ONLY, locked);
	afs_test_rotate_run(test, 0, round);
}

/*
 * Driver cases: afs_select_fileserver() on a volume served by two fake
 * servers of two addresses each, in the kernel's own afs_net.  The fake
 * servers are on no probe list, so a re-probe is a no-op and the test sets
 * what the probe "said"; the volume needs no VLDB lookup.  Each call's outcome
 * is set by hand, as afs_wait_for_operation() would after a real call, or the
 * real afs_wait_for_operation() runs operation ops that make no call.  At the
 * end every reference on the server list and the address lists must be back
 * where it started.
 */
#define AFS_TEST_SERVERS	2

struct afs_test_rotate_fixture {
	struct afs_cell		*cell;
	struct afs_volume	*volume;
	struct afs_vnode	*vnode;
	struct afs_server_list	*slist;
	struct afs_server	*servers[AFS_TEST_SERVERS];
	struct afs_addr_list	*alists[AFS_TEST_SERVERS];
	struct afs_server	*stranger;	/* On no list */
	struct afs_call		*call;		/* Stands for a call made */
	struct afs_operation	*op;		/* &op_store */
	struct afs_operation	op_store;
	unsigned int		nr_success, nr_aborted, nr_failed;
	int			issue_error;	/* What the ops' "call" does */
	u32			issue_abort;
};

static struct afs_server *afs_test_rotate_server(struct kunit *test,
						 struct afs_cell *cell, int rtt)
{
	struct afs_server *server = kunit_kzalloc(test, sizeof(*server), GFP_KERNEL);

	if (!server)
		return NULL;
	rwlock_init(&server->fs_lock);
	INIT_LIST_HEAD(&server->probe_link);
	init_waitqueue_head(&server->probe_wq);
	spin_lock_init(&server->probe_lock);
	refcount_set(&server->ref, 1);
	server->cell = cell;
	server->probe.rtt = rtt;
	server->probe.responded = true;
	set_bit(AFS_SERVER_FL_RESPONDING, &server->flags);
	return server;
}

static int afs_rotate_driver_init(struct kunit *test)
{
	struct afs_test_rotate_fixture *f;
	int i;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;

	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	f->volume = kunit_kzalloc(test, sizeof(*f->volume), GFP_KERNEL);
	f->vnode = kunit_kzalloc(test, sizeof(*f->vnode), GFP_KERNEL);
	f->op = &f->op_store;
	f->call = kunit_kzalloc(test, sizeof(*f->call), GFP_KERNEL);
	f->slist = kunit_kzalloc(test, struct_size(f->slist, servers, AFS_TEST_SERVERS),
				 GFP_KERNEL);
	f->stranger = afs_test_rotate_server(test, f->cell, 1);
	if (!f->cell || !f->volume || !f->vnode || !f->call || !f->slist ||
	    !f->stranger)
		return -ENOMEM;

	refcount_set(&f->slist->usage, 1);	/* The fixture's own */
	rwlock_init(&f->slist->lock);
	f->slist->nr_servers = AFS_TEST_SERVERS;
	for (i = 0; i < AFS_TEST_SERVERS; i++) {
		struct afs_server *server;
		struct afs_addr_list *alist;

		server = afs_test_rotate_server(test, f->cell, 100 * (i + 1));
		alist = afs_alloc_addrlist(2, FS_SERVICE, AFS_FS_PORT);
		if (!server || !alist) {
			afs_put_addrlist(alist);
			return -ENOMEM;
		}
		afs_merge_fs_addr4(alist, htonl(0x0a000001 + 2 * i), AFS_FS_PORT);
		afs_merge_fs_addr4(alist, htonl(0x0a000002 + 2 * i), AFS_FS_PORT);
		alist->responded = 0x3;
		f->alists[i] = alist;
		RCU_INIT_POINTER(server->addresses, alist);
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
	f->op->net = afs_net(&init_net);
	f->op->volume = f->volume;
	f->op->file[0].vnode = f->vnode;
	f->op->error = -EDESTADDRREQ;
	f->op->ac.error = SHRT_MAX;
	return 0;
}

static void afs_rotate_driver_exit(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	int i;

	afs_kunit_failslab_end(test);

	if (!f || !f->op)
		return;
	/* What afs_put_operation() does with the rotation's leftovers. */
	afs_end_cursor(&f->op->ac);
	if (f->op->server_list)
		afs_put_serverlist(f->op->net, f->op->server_list);

	if (f->slist)
		KUNIT_EXPECT_EQ(test, refcount_read(&f->slist->usage), 1);
	for (i = 0; i < AFS_TEST_SERVERS; i++) {
		if (!f->alists[i])
			continue;
		KUNIT_EXPECT_EQ_MSG(test, refcount_read(&f->alists[i]->usage), 1,
				    "address list %d", i);
		afs_put_addrlist(f->alists[i]);
	}
}

/* Finish a call the way afs_make_call() and afs_wait_for_operation() do. */
static void afs_test_rotate_call_ends(struct afs_test_rotate_fixture *f, int error,
				      u32 abort_code)
{
	struct afs_operation *op = f->op;

	op->call = f->call;
	op->ac.error = error;
	op->ac.abort_code = abort_code;
	op->ac.responded = error == 0 || error == -ECONNABORTED;
	op->error = error;
}

static void afs_rotate_driver_success(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);
	KUNIT_EXPECT_PTR_EQ(test, op->ac.alist, f->alists[0]);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->alists[0]->usage), 2);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->slist->usage), 2);

	afs_test_rotate_call_ends(f, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
	KUNIT_EXPECT_NULL(test, op->ac.alist);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));	/* Stopped */
}

static void afs_rotate_driver_offline_then_other(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[0]);
	afs_test_rotate_call_ends(f, -ECONNABORTED, VOFFLINE);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[1]);
	KUNIT_EXPECT_PTR_EQ(test, op->ac.alist, f->alists[1]);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->alists[0]->usage), 1);
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VOLUME_OFFLINE, &f->volume->flags));

	afs_test_rotate_call_ends(f, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
}

/*
 * A bulk status reply whose directory record carries VOFFLINE: the call
 * succeeded, but the server does not serve the volume.  The reply's records
 * are dropped and the next server is tried, as for an aborted call.
 */
static void afs_rotate_driver_record_abort(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->nr_files = 2;
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[0]);
	afs_test_rotate_call_ends(f, 0, 0);
	op->file[0].scb.have_error = true;
	op->file[0].scb.status.abort_code = VOFFLINE;
	op->file[1].scb.have_status = true;
	op->file[1].scb.have_cb = true;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[1]);
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VOLUME_OFFLINE, &f->volume->flags));
	KUNIT_EXPECT_FALSE(test, op->file[0].scb.have_error);
	KUNIT_EXPECT_EQ(test, op->file[0].scb.status.abort_code, 0);
	KUNIT_EXPECT_FALSE(test, op->file[1].scb.have_status);
	KUNIT_EXPECT_FALSE(test, op->file[1].scb.have_cb);

	afs_test_rotate_call_ends(f, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
}

/*
 * An abort of the directory's own (VNOVNODE: it was deleted) in a bulk
 * status reply is not the server's answer to the call: the operation
 * succeeds, its records kept for its success hook to apply.
 */
static void afs_rotate_driver_record_abort_of_file(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->nr_files = 2;
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_rotate_call_ends(f, 0, 0);
	op->file[0].scb.have_error = true;
	op->file[0].scb.status.abort_code = VNOVNODE;
	op->file[1].scb.have_status = true;

	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);
	KUNIT_EXPECT_TRUE(test, op->file[0].scb.have_error);
	KUNIT_EXPECT_EQ(test, op->file[0].scb.status.abort_code, VNOVNODE);
	KUNIT_EXPECT_TRUE(test, op->file[1].scb.have_status);
}

static void afs_rotate_driver_next_address(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_EQ(test, op->ac.index, 0);
	afs_test_rotate_call_ends(f, -EHOSTUNREACH, 0);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);
	KUNIT_EXPECT_EQ(test, op->ac.index, 1);

	afs_test_rotate_call_ends(f, -ECONNABORTED, VDISKFULL);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, -ENOSPC);
}

/*
 * Every address of the first server fails: it is re-probed and, the probe
 * answering, retried from its first address; failing again, it is left for
 * the second server, whose probe does not answer; out of servers, the
 * operation fails with the most meaningful of the calls' errors.
 */
static void afs_rotate_driver_reprobe_then_retry(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;
	int round;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	for (round = 0; round < 2; round++) {
		KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[0]);
		KUNIT_ASSERT_EQ_MSG(test, op->ac.index, 0, "round %d", round);
		afs_test_rotate_call_ends(f, -ETIME, 0);
		KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
		KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[0]);
		KUNIT_ASSERT_EQ_MSG(test, op->ac.index, 1, "round %d", round);
		afs_test_rotate_call_ends(f, -EHOSTUNREACH, 0);
		KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	}

	KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[1]);
	f->servers[1]->probe.responded = false;
	afs_test_rotate_call_ends(f, -ETIME, 0);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_rotate_call_ends(f, -ETIME, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, -EHOSTUNREACH);
	KUNIT_EXPECT_NULL(test, op->ac.alist);
}

/* One server busy, one slow: one sleep, a second round, then success. */
static void afs_rotate_driver_busy_round(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_rotate_call_ends(f, -ECONNABORTED, VBUSY);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_ASSERT_PTR_EQ(test, op->server, f->servers[1]);
	afs_test_rotate_call_ends(f, -ECONNABORTED, VNOSERVICE);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));	/* Sleeps 1 s */
	KUNIT_EXPECT_EQ(test, op->nr_busy_rounds, 1);
	/* The new round begins with the vnode's last server. */
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[1]);

	afs_test_rotate_call_ends(f, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, 0);
}

/* A signal during the sleep ends the operation, references dropped. */
static void afs_rotate_driver_signal(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->flags |= AFS_OPERATION_CUR_ONLY;
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_rotate_call_ends(f, -ECONNABORTED, VBUSY);

	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	flush_signals(current);
	disallow_signal(SIGUSR1);

	KUNIT_EXPECT_EQ(test, op->error, -ERESTARTSYS);
	KUNIT_EXPECT_NULL(test, op->ac.alist);
}

/* Make a signal pending on the test's own thread, without delivering it. */
static void afs_test_rotate_pend_signal(int sig)
{
	spin_lock_irq(&current->sighand->siglock);
	sigaddset(&current->pending.signal, sig);
	set_tsk_thread_flag(current, TIF_SIGPENDING);
	spin_unlock_irq(&current->sighand->siglock);
}

/*
 * An uninterruptible operation (a store from writeback) sleeping on a busy
 * server shrugs off an ordinary signal but not a fatal one.
 */
static void afs_rotate_driver_killable(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->flags |= AFS_OPERATION_CUR_ONLY | AFS_OPERATION_UNINTR;
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	afs_test_rotate_call_ends(f, -ECONNABORTED, VBUSY);

	afs_test_rotate_pend_signal(SIGUSR1);
	KUNIT_EXPECT_TRUE(test, afs_select_fileserver(op));	/* Sleeps 1 s */
	KUNIT_EXPECT_EQ(test, op->nr_busy_rounds, 1);
	afs_test_rotate_call_ends(f, -ECONNABORTED, VBUSY);

	afs_test_rotate_pend_signal(SIGKILL);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	flush_signals(current);

	KUNIT_EXPECT_EQ(test, op->error, -ERESTARTSYS);
	KUNIT_EXPECT_NULL(test, op->ac.alist);
}

/*
 * VMOVED: the volume record is refreshed at once, not waited for.  Another
 * task is taken to be updating the record (so no VL server is asked) and
 * leaves the server list as it was, so the operation must fail -ENOMEDIUM;
 * a signal is kept pending so that waiting for an update nobody makes does
 * not hang the case.
 */
static void afs_rotate_driver_moved_does_not_wait(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	set_bit(AFS_VOLUME_UPDATING, &f->volume->flags);
	afs_test_rotate_pend_signal(SIGUSR1);
	afs_test_rotate_call_ends(f, -ECONNABORTED, VMOVED);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	flush_signals(current);

	KUNIT_EXPECT_EQ(test, op->error, -ENOMEDIUM);
	KUNIT_EXPECT_FALSE(test, test_bit(AFS_VOLUME_WAIT, &f->volume->flags));
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VOLUME_NEEDS_UPDATE, &f->volume->flags));
}

/* The server that holds the vnode's callback promise is asked first. */
static void afs_rotate_driver_callback_server_first(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	f->vnode->cb_server = f->servers[1];
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[1]);
	afs_test_rotate_call_ends(f, -ECONNABORTED, VBUSY);
	KUNIT_ASSERT_TRUE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_PTR_EQ(test, op->server, f->servers[0]);
	afs_test_rotate_call_ends(f, 0, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
}

/* A lock held on a server the volume no longer lists cannot move. */
static void afs_rotate_driver_lock_on_lost_server(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->flags |= AFS_OPERATION_CUR_ONLY;
	f->vnode->cb_server = f->stranger;
	KUNIT_EXPECT_FALSE(test, afs_select_fileserver(op));
	KUNIT_EXPECT_EQ(test, op->error, -ESTALE);
	KUNIT_EXPECT_PTR_EQ(test, f->vnode->cb_server, f->stranger);
}

/* Operation ops whose "call" is whatever the test says, made or not. */
static void afs_test_rotate_issue(struct afs_operation *op)
{
	struct afs_test_rotate_fixture *f =
		container_of(op, struct afs_test_rotate_fixture, op_store);

	if (f->issue_error == -ENOMEM) {
		afs_op_nomem(op);	/* No call made */
		return;
	}
	op->ac.error = f->issue_error;
	op->ac.abort_code = f->issue_abort;
	op->error = f->issue_error;
}

static struct afs_test_rotate_fixture *afs_test_rotate_of(struct afs_operation *op)
{
	return container_of(op, struct afs_test_rotate_fixture, op_store);
}

static void afs_test_rotate_success(struct afs_operation *op)
{
	afs_test_rotate_of(op)->nr_success++;
}

static void afs_test_rotate_aborted(struct afs_operation *op)
{
	afs_test_rotate_of(op)->nr_aborted++;
}

static void afs_test_rotate_failed(struct afs_operation *op)
{
	afs_test_rotate_of(op)->nr_failed++;
}

static const struct afs_operation_ops afs_test_rotate_ops = {
	.issue_afs_rpc	= afs_test_rotate_issue,
	.success	= afs_test_rotate_success,
	.aborted	= afs_test_rotate_aborted,
	.failed		= afs_test_rotate_failed,
};

/*
 * The fileserver's answer to the operation itself (here: no such vnode)
 * reaches the operation's ->aborted() hook, as afs_check_for_remote_deletion()
 * needs, and the caller gets it as an errno.
 */
static void afs_rotate_driver_abort_reaches_op(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->ops = &afs_test_rotate_ops;
	f->issue_error = -ECONNABORTED;
	f->issue_abort = VNOVNODE;
	afs_wait_for_operation(op);

	KUNIT_EXPECT_EQ(test, f->nr_aborted, 1);
	KUNIT_EXPECT_EQ(test, f->nr_failed, 1);
	KUNIT_EXPECT_EQ(test, f->nr_success, 0);
	KUNIT_EXPECT_EQ(test, op->error, -ENOENT);
	KUNIT_EXPECT_EQ(test, op->ac.abort_code, VNOVNODE);
}

/* An issuing function that could not allocate its call is not a success. */
static void afs_rotate_driver_nomem_is_no_success(struct kunit *test)
{
	struct afs_test_rotate_fixture *f = test->priv;
	struct afs_operation *op = f->op;

	op->ops = &afs_test_rotate_ops;
	f->issue_error = -ENOMEM;
	afs_wait_for_operation(op);

	KUNIT_EXPECT_EQ(test, f->nr_success, 0);
	KUNIT_EXPECT_EQ(test, f->nr_failed, 1);
	KUNIT_EXPECT_EQ(test, op->error, -ENOMEM);
}

static struct kunit_case afs_rotate_driver_cases[] = {
	KUNIT_CASE(afs_rotate_driver_success),
	KUNIT_CASE(afs_rotate_driver_offline_then_other),
	KUNIT_CASE(afs_rotate_driver_record_abort),
	KUNIT_CASE(afs_rotate_driver_record_abort_of_file),
	KUNIT_CASE(afs_rotate_driver_next_address),
	KUNIT_CASE(afs_rotate_driver_reprobe_then_retry),
	KUNIT_CASE(afs_rotate_driver_busy_round),
	KUNIT_CASE(afs_rotate_driver_signal),
	KUNIT_CASE(afs_rotate_driver_killable),
	KUNIT_CASE(afs_rotate_driver_moved_does_not_wait),
	KUNIT_CASE(afs_rotate_driver_callback_server_first),
	KUNIT_CASE(afs_rotate_driver_lock_on_lost_server),
	KUNIT_CASE(afs_rotate_driver_abort_reaches_op),
	KUNIT_CASE(afs_rotate_driver_nomem_is_no_success),
	{}
};

static struct kunit_suite afs_rotate_driver_suite = {
	.name = "afs_rotate_driver",
	.init = afs_rotate_driver_init,
	.exit = afs_rotate_driver_exit,
	.test_cases = afs_rotate_driver_cases,
};

/* The probes keep the most meaningful of their errors in the order the
 * decisions above do (afs_error_rank(): an errno it does not name, such as a
 * key's, says more than the network), and a server's answer for good.
 */
static void afs_prioritise_error_order(struct kunit *test)
{
	static const struct {
		int	error;
		u32	abort_code;
		int	kept;
	} steps[] = {
		{ -EDESTADDRREQ, 0, -EDESTADDRREQ },
		{ -ETIMEDOUT, 0, -ETIMEDOUT },
		{ -ENOMEM, 0, -ENOMEM },
		{ -ECONNREFUSED, 0, -ECONNREFUSED },
		{ -ETIME, 0, -ECONNREFUSED },
		{ -EHOSTUNREACH, 0, -ECONNREFUSED },
		{ 0, 0, -ECONNREFUSED },
		{ -ECONNRESET, 0, -ECONNRESET },
		{ -EKEYEXPIRED, 0, -EKEYEXPIRED },
		{ -ECONNRESET, 0, -EKEYEXPIRED },
		{ -ECONNABORTED, VNOVOL, -ENOMEDIUM },
		{ -ECONNRESET, 0, -ENOMEDIUM },
		{ -EIO, 0, -ENOMEDIUM },
		{ -ECONNABORTED, VBUSY, -EBUSY },
	};
	struct afs_error e = {};
	int i;

	for (i = 0; i < ARRAY_SIZE(steps); i++) {
		afs_prioritise_error(&e, steps[i].error, steps[i].abort_code);
		KUNIT_EXPECT_EQ_MSG(test, e.error, steps[i].kept, "step %d", i);
	}
	KUNIT_EXPECT_TRUE(test, e.responded);
}

static struct kunit_case afs_rotate_test_cases[] = {
	KUNIT_CASE_PARAM(afs_rotate_decide_table, afs_test_rotate_gen_params),
	KUNIT_CASE(afs_rotate_offline_then_other_server),
	KUNIT_CASE(afs_rotate_busy_rounds_then_success),
	KUNIT_CASE(afs_rotate_busy_forever),
	KUNIT_CASE(afs_rotate_slow_forever),
	KUNIT_CASE(afs_rotate_slow_only_server),
	KUNIT_CASE(afs_rotate_moved_then_success),
	KUNIT_CASE(afs_rotate_moved_twice),
	KUNIT_CASE(afs_rotate_no_volume_anywhere),
	KUNIT_CASE(afs_rotate_full_volume),
	KUNIT_CASE(afs_rotate_all_unreachable),
	KUNIT_CASE(afs_rotate_locked_file_sleeps),
	KUNIT_CASE(afs_rotate_signal_during_sleep),
	KUNIT_CASE(afs_prioritise_error_order),
	{}
};

static struct kunit_suite afs_rotate_suite = {
	.name = "afs_rotate",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_rotate_test_cases,
};

kunit_test_suites(&afs_rotate_suite, &afs_rotate_driver_suite);
