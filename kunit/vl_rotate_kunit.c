// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suites for VL server rotation: the decision table (afs_vl_rotate)
 * and the driver on fake VL servers (afs_vl_rotate_driver).
 *
 * Included by vl_rotate.c.  afs_vl_judge_call() and afs_vl_all_tried() are
 * pure but for the cursor's flags and error, so each of their transitions is
 * a row: the state before, what happened, what must follow.  The driver's
 * own steps are in the second suite.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/sched/signal.h>

#define AFS_TEST_CALL(err)	{ .error = (err) }
#define AFS_TEST_ABORT(code)	{ .error = -ECONNABORTED, .abort_code = (code) }
#define AFS_TEST_YFS_ABORT(code) { .error = -ECONNABORTED, .abort_code = (code), \
				   .yfs = true }
#define AFS_TEST_ALL_TRIED(err)	{ .all_tried = true, .error = (err) }
#define AFS_TEST_A(x)		AFS_VL_##x
#define AFS_TEST_STOP		AFS_VL_CURSOR_STOP
#define AFS_TEST_RETRY		AFS_VL_CURSOR_RETRY
#define AFS_TEST_RETRIED	AFS_VL_CURSOR_RETRIED
#define AFS_TEST_DOWNGRADED	AFS_VL_CURSOR_DOWNGRADED

/* What happened: a call's result, or every server tried (@error: the probes') */
struct afs_test_vl_event {
	bool		all_tried;
	int		error;
	u32		abort_code;
	bool		yfs;
};

struct afs_vl_rotate_case {
	const char			*name;
	unsigned int			flags;		/* State before */
	int				prior;
	struct afs_test_vl_event	in;
	enum afs_vl_next		action;		/* Expected */
	int				error;		/* Reported or remembered */
	unsigned int			set;		/* Flags set after */
	unsigned int			clear;		/* Flags clear after */
};

static const struct afs_vl_rotate_case afs_vl_rotate_cases[] = {
	{ "success", .in = AFS_TEST_CALL(0), .action = AFS_TEST_A(SUCCEED),
	  .set = AFS_TEST_STOP },
	{ "success forgets earlier errors", .prior = -ETIMEDOUT, .in = AFS_TEST_CALL(0),
	  .action = AFS_TEST_A(SUCCEED), .error = 0 },

	/* Aborts: answers that hold on every server stop the operation. */
	{ "AFSVL_NOENT: no such volume", .in = AFS_TEST_ABORT(AFSVL_NOENT),
	  .action = AFS_TEST_A(FAIL), .error = -ENOMEDIUM, .set = AFS_TEST_STOP },
	{ "AFSVL_BADNAME", .in = AFS_TEST_ABORT(AFSVL_BADNAME),
	  .action = AFS_TEST_A(FAIL), .error = -EINVAL },
	{ "AFSVL_PERM", .in = AFS_TEST_ABORT(AFSVL_PERM),
	  .action = AFS_TEST_A(FAIL), .error = -EACCES },
	{ "an abort code nobody knows", .in = AFS_TEST_ABORT(0x12345678),
	  .action = AFS_TEST_A(FAIL), .error = -EREMOTEIO },
	/* ... and a server that went weird is passed over. */
	{ "AFSVL_IO", .in = AFS_TEST_ABORT(AFSVL_IO),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EREMOTEIO, .clear = AFS_TEST_STOP },
	{ "AFSVL_BADVOLOPER", .in = AFS_TEST_ABORT(AFSVL_BADVOLOPER),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EREMOTEIO },
	{ "AFSVL_NOMEM", .in = AFS_TEST_ABORT(AFSVL_NOMEM),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EREMOTEIO },

	/* The YFS service and the fall back to plain VL. */
	{ "RXGEN_OPCODE from the YFS service: same address, plain VL",
	  .in = AFS_TEST_YFS_ABORT(RXGEN_OPCODE), .action = AFS_TEST_A(DOWNGRADE),
	  .set = AFS_TEST_DOWNGRADED, .clear = AFS_TEST_STOP },
	{ "RXGEN_OPCODE from the YFS service after a fall back: next server",
	  .flags = AFS_TEST_DOWNGRADED, .in = AFS_TEST_YFS_ABORT(RXGEN_OPCODE),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EOPNOTSUPP },
	{ "RXGEN_OPCODE from plain VL: next server", .in = AFS_TEST_ABORT(RXGEN_OPCODE),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EOPNOTSUPP,
	  .clear = AFS_TEST_DOWNGRADED },
	{ "another abort from the YFS service is an answer",
	  .in = AFS_TEST_YFS_ABORT(AFSVL_NOENT), .action = AFS_TEST_A(FAIL),
	  .error = -ENOMEDIUM, .clear = AFS_TEST_DOWNGRADED },

	/* The network: try the server's next address. */
	{ "ETIMEDOUT", .in = AFS_TEST_CALL(-ETIMEDOUT),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -ETIMEDOUT },
	{ "ETIME", .in = AFS_TEST_CALL(-ETIME),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -ETIME },
	{ "ECONNREFUSED", .in = AFS_TEST_CALL(-ECONNREFUSED),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -ECONNREFUSED },
	{ "EHOSTDOWN", .in = AFS_TEST_CALL(-EHOSTDOWN),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -EHOSTDOWN },
	{ "EHOSTUNREACH", .in = AFS_TEST_CALL(-EHOSTUNREACH),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -EHOSTUNREACH },
	{ "ENETUNREACH", .in = AFS_TEST_CALL(-ENETUNREACH),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -ENETUNREACH },
	{ "EADDRNOTAVAIL", .in = AFS_TEST_CALL(-EADDRNOTAVAIL),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -EADDRNOTAVAIL },
	{ "ERFKILL", .in = AFS_TEST_CALL(-ERFKILL),
	  .action = AFS_TEST_A(NEXT_ADDRESS), .error = -ERFKILL },
	{ "a refused connection beats a timeout", .prior = -ETIMEDOUT,
	  .in = AFS_TEST_CALL(-ECONNREFUSED), .action = AFS_TEST_A(NEXT_ADDRESS),
	  .error = -ECONNREFUSED },
	{ "a timeout does not replace a refused connection", .prior = -ECONNREFUSED,
	  .in = AFS_TEST_CALL(-ETIMEDOUT), .action = AFS_TEST_A(NEXT_ADDRESS),
	  .error = -ECONNREFUSED },
	{ "a timeout does not replace a reset call", .prior = -ECONNRESET,
	  .in = AFS_TEST_CALL(-ETIMEDOUT), .action = AFS_TEST_A(NEXT_ADDRESS),
	  .error = -ECONNRESET },
	{ "a server's answer beats a timeout", .prior = -ETIMEDOUT,
	  .in = AFS_TEST_ABORT(AFSVL_IO), .action = AFS_TEST_A(NEXT_SERVER),
	  .error = -EREMOTEIO },

	/* The call went wrong at the server: try another. */
	{ "ECONNRESET: next server, and go round again at the end",
	  .in = AFS_TEST_CALL(-ECONNRESET), .action = AFS_TEST_A(NEXT_SERVER),
	  .error = -ECONNRESET, .set = AFS_TEST_RETRY },
	{ "EOPNOTSUPP", .in = AFS_TEST_CALL(-EOPNOTSUPP),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EOPNOTSUPP },
	{ "EBADMSG: we refused the reply", .in = AFS_TEST_CALL(-EBADMSG),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EBADMSG },
	{ "EMSGSIZE: the reply ran on", .in = AFS_TEST_CALL(-EMSGSIZE),
	  .action = AFS_TEST_A(NEXT_SERVER), .error = -EBADMSG },

	/* Local failures stop. */
	{ "ENOMEM", .in = AFS_TEST_CALL(-ENOMEM), .action = AFS_TEST_A(FAIL),
	  .error = -ENOMEM, .set = AFS_TEST_STOP },
	{ "ERESTARTSYS", .in = AFS_TEST_CALL(-ERESTARTSYS), .action = AFS_TEST_A(FAIL),
	  .error = -ERESTARTSYS },
	{ "EKEYEXPIRED", .in = AFS_TEST_CALL(-EKEYEXPIRED), .action = AFS_TEST_A(FAIL),
	  .error = -EKEYEXPIRED },

	/* The end of a server, the end of the list. */
	{ "no server left, nothing known", .in = AFS_TEST_ALL_TRIED(0),
	  .action = AFS_TEST_A(FAIL), .error = -EDESTADDRREQ, .set = AFS_TEST_STOP },
	{ "no server left, the probes timed out", .in = AFS_TEST_ALL_TRIED(-ETIMEDOUT),
	  .action = AFS_TEST_A(FAIL), .error = -ETIMEDOUT },
	{ "no server left: a call's answer beats the probes' timeout",
	  .prior = -EREMOTEIO, .in = AFS_TEST_ALL_TRIED(-ETIMEDOUT),
	  .action = AFS_TEST_A(FAIL), .error = -EREMOTEIO },
	{ "no server left: a refused call beats the probes' timeout",
	  .prior = -ECONNREFUSED, .in = AFS_TEST_ALL_TRIED(-ETIMEDOUT),
	  .action = AFS_TEST_A(FAIL), .error = -ECONNREFUSED },
	{ "no server left: ENOMEM is not a server's answer",
	  .prior = -EHOSTUNREACH, .in = AFS_TEST_ALL_TRIED(-ENOMEM),
	  .action = AFS_TEST_A(FAIL), .error = -EHOSTUNREACH },
	{ "no server left after a reset: once more from the start",
	  .flags = AFS_TEST_RETRY, .prior = -ECONNRESET,
	  .in = AFS_TEST_ALL_TRIED(0), .action = AFS_TEST_A(START),
	  .error = -ECONNRESET, .set = AFS_TEST_RETRIED,
	  .clear = AFS_TEST_RETRY | AFS_TEST_STOP },
	{ "no server left after a second reset: fail",
	  .flags = AFS_TEST_RETRY | AFS_TEST_RETRIED, .prior = -ECONNRESET,
	  .in = AFS_TEST_ALL_TRIED(0), .action = AFS_TEST_A(FAIL),
	  .error = -ECONNRESET, .set = AFS_TEST_STOP },
};

static void afs_vl_rotate_case_desc(const struct afs_vl_rotate_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_vl_rotate, afs_vl_rotate_cases, afs_vl_rotate_case_desc);

static void afs_vl_rotate_table(struct kunit *test)
{
	const struct afs_vl_rotate_case *c = test->param_value;
	struct afs_vl_cursor vc = { .flags = c->flags, .error = c->prior };
	enum afs_vl_next next;

	if (c->in.all_tried)
		next = afs_vl_all_tried(&vc, c->in.error);
	else
		next = afs_vl_judge_call(&vc, c->in.error, c->in.abort_code, c->in.yfs);

	KUNIT_EXPECT_EQ(test, next, c->action);
	KUNIT_EXPECT_EQ(test, vc.error, c->error);
	KUNIT_EXPECT_EQ(test, vc.flags & c->set, c->set);
	KUNIT_EXPECT_EQ(test, vc.flags & c->clear, 0);
}

static struct kunit_case afs_vl_rotate_table_cases[] = {
	KUNIT_CASE_PARAM(afs_vl_rotate_table, afs_vl_rotate_gen_params),
	{}
};

static struct kunit_suite afs_vl_rotate_suite = {
	.name = "afs_vl_rotate",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_vl_rotate_table_cases,
};

/*
 * The driver, afs_select_vlserver(), on a cell of two fake VL servers, A and
 * B, of two addresses each, all answering probes (so nothing is sent) and A
 * preferred.  Each call's outcome is set by hand from a script, and the
 * calls made are written down as "A0 A1 B0", with "y" after a call that went
 * to the YFS service.
 */
struct afs_vl_driver_fixture {
	struct afs_cell			*cell;
	struct afs_vlserver_list	*vllist;
	struct afs_vlserver		*servers[2];
	struct afs_addr_list		*alists[2];
	char				trace[128];
};

struct afs_test_vl_call {
	int	error;
	u32	abort_code;
};

static int afs_vl_driver_init(struct kunit *test)
{
	struct afs_vl_driver_fixture *f;
	int i, j;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;
	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	if (!f->cell)
		return -ENOMEM;
	f->cell->name = (char *)"dns.example";
	f->cell->name_len = strlen(f->cell->name);
	f->cell->dns_source = DNS_RECORD_FROM_DNS_SRV;
	f->cell->dns_status = DNS_LOOKUP_GOOD;
	f->cell->dns_expiry = TIME64_MAX;	/* No lookup */
	rwlock_init(&f->cell->vl_servers_lock);

	f->vllist = afs_alloc_vlserver_list(2);
	if (!f->vllist)
		return -ENOMEM;
	for (i = 0; i < 2; i++) {
		struct afs_vlserver *s = afs_alloc_vlserver(i ? "B" : "A", 1, AFS_VL_PORT);
		struct afs_addr_list *alist = afs_alloc_addrlist(2, VL_SERVICE, AFS_VL_PORT);

		if (!s || !alist) {
			afs_put_vlserver(NULL, s);
			afs_put_addrlist(alist);
			return -ENOMEM;
		}
		for (j = 0; j < 2; j++)
			afs_merge_fs_addr4(alist, htonl(0x0a000001 + i * 256 + j), AFS_VL_PORT);
		alist->responded = 0x3;
		rcu_assign_pointer(s->addresses, afs_get_addrlist(alist));
		s->flags = BIT(AFS_VLSERVER_FL_PROBED) | BIT(AFS_VLSERVER_FL_RESPONDING);
		s->probe.flags = AFS_VLSERVER_PROBE_RESPONDED;
		s->probe.rtt = 100 + i;
		s->rtt = 100 + i;
		f->servers[i] = s;
		f->alists[i] = alist;
		f->vllist->servers[i].server = afs_get_vlserver(s);
		f->vllist->nr_servers++;
	}
	f->vllist->source = DNS_RECORD_FROM_DNS_SRV;
	f->vllist->status = DNS_LOOKUP_GOOD;
	rcu_assign_pointer(f->cell->vl_servers, afs_get_vlserverlist(f->vllist));
	return 0;
}

static void afs_vl_driver_exit(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = test->priv;
	struct afs_vlserver_list *vllist;
	int i;

	afs_kunit_failslab_end(test);

	if (!f || !f->cell)
		return;
	vllist = rcu_access_pointer(f->cell->vl_servers);
	if (vllist != f->vllist)
		afs_put_vlserverlist(NULL, vllist);
	if (f->vllist) {
		/* Every operation dropped what it took: the cell's reference
		 * and the fixture's.
		 */
		KUNIT_EXPECT_EQ(test, refcount_read(&f->vllist->ref),
				vllist == f->vllist ? 2 : 1);
		if (vllist == f->vllist)
			afs_put_vlserverlist(NULL, vllist);
		afs_put_vlserverlist(NULL, f->vllist);
	}
	for (i = 0; i < 2; i++) {
		if (f->alists[i]) {
			KUNIT_EXPECT_EQ(test, refcount_read(&f->alists[i]->usage), 2);
			afs_put_addrlist(f->alists[i]);
		}
		if (f->servers[i]) {
			KUNIT_EXPECT_EQ(test, refcount_read(&f->servers[i]->ref), 1);
			afs_put_vlserver(NULL, f->servers[i]);
		}
	}
	rcu_barrier();
}

/*
 * Run one operation with the calls' outcomes from @script.  Return the
 * operation's result; the calls made are in f->trace.
 */
static int afs_test_vl_run(struct kunit *test, const struct afs_test_vl_call *script,
			   int nr)
{
	struct afs_vl_driver_fixture *f = test->priv;
	struct afs_vl_cursor vc;
	size_t n = 0;
	int i = 0;

	f->trace[0] = 0;
	if (!afs_begin_vlserver_operation(&vc, f->cell, NULL))
		return afs_end_vlserver_operation(&vc);

	while (afs_select_vlserver(&vc)) {
		const struct sockaddr_rxrpc *srx = &vc.ac.alist->addrs[vc.ac.index];

		n += scnprintf(f->trace + n, sizeof(f->trace) - n, "%s%s%d%s",
			       n ? " " : "", vc.server->name, vc.ac.index,
			       srx->srx_service == YFS_VL_SERVICE ? "y" : "");
		if (i >= nr) {
			KUNIT_FAIL(test, "more calls than the script has: %s", f->trace);
			vc.ac.error = -ENOMEM;
			continue;
		}
		vc.ac.error = script[i].error;
		vc.ac.abort_code = script[i].abort_code;
		vc.ac.responded = script[i].error == 0 || script[i].error == -ECONNABORTED;
		i++;
	}
	KUNIT_EXPECT_EQ_MSG(test, i, nr, "calls made: %s", f->trace);
	return afs_end_vlserver_operation(&vc);
}

#define AFS_TEST_RUN(test, ...)						\
	afs_test_vl_run(test, (const struct afs_test_vl_call[]){ __VA_ARGS__ }, \
			sizeof((const struct afs_test_vl_call[]){ __VA_ARGS__ }) / \
			sizeof(struct afs_test_vl_call))

static struct afs_vl_driver_fixture *afs_test_vl_fixture(struct kunit *test)
{
	return test->priv;
}

static void afs_vl_rotate_driver_success(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0");
	KUNIT_EXPECT_EQ(test, f->vllist->preferred, 0);
}

/* The preferred server is dead: its addresses, then the other server, which
 * is preferred from then on.
 */
static void afs_vl_rotate_driver_dead_server(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNREFUSED }, { -ECONNREFUSED }, { 0 }),
			0);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0 A1 B0");
	KUNIT_EXPECT_EQ(test, f->vllist->preferred, 1);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "B0");
}

static void afs_vl_rotate_driver_all_unreachable(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ETIMEDOUT }, { -ECONNREFUSED },
					   { -EHOSTUNREACH }, { -ETIMEDOUT }),
			-ECONNREFUSED);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0 A1 B0 B1");
}

static void afs_vl_rotate_driver_no_such_volume(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNABORTED, AFSVL_NOENT }), -ENOMEDIUM);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0");
}

static void afs_vl_rotate_driver_weird_server(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNABORTED, AFSVL_IO }, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0 B0");
}

/* A reply we refused (a decoder's error) sends us to the other server. */
static void afs_vl_rotate_driver_bad_reply(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -EBADMSG }, { -EBADMSG }), -EBADMSG);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0 B0");
}

/* A reset on every server: once round again from the start, then stop. */
static void afs_vl_rotate_driver_reset_retry(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNRESET }, { -ECONNRESET }, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0 B0 A0");
	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNRESET }, { -ECONNRESET },
					   { -ECONNRESET }, { -ECONNRESET }),
			-ECONNRESET);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0 B0 A0 B0");
}

/* A is YFS (its probe was upgraded) but does not know the call. */
static void afs_vl_rotate_driver_yfs_fallback(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	set_bit(AFS_VLSERVER_FL_IS_YFS, &f->servers[0]->flags);
	f->alists[0]->addrs[0].srx_service = YFS_VL_SERVICE;
	f->alists[0]->addrs[1].srx_service = YFS_VL_SERVICE;

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNABORTED, RXGEN_OPCODE }, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0y A0");
	KUNIT_EXPECT_FALSE(test, test_bit(AFS_VLSERVER_FL_IS_YFS, &f->servers[0]->flags));
	KUNIT_EXPECT_EQ(test, f->alists[0]->addrs[0].srx_service, VL_SERVICE);
	/* The other address keeps what its probe found. */
	KUNIT_EXPECT_EQ(test, f->alists[0]->addrs[1].srx_service, YFS_VL_SERVICE);
}

/* The fall back is once per operation: plain VL refusing too moves on. */
static void afs_vl_rotate_driver_yfs_fallback_fails(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	set_bit(AFS_VLSERVER_FL_IS_YFS, &f->servers[0]->flags);
	f->alists[0]->addrs[0].srx_service = YFS_VL_SERVICE;

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ECONNABORTED, RXGEN_OPCODE },
					   { -ECONNABORTED, RXGEN_OPCODE }, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0y A0 B0");
}

static void afs_vl_rotate_driver_local_failure(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { -ENOMEM }), -ENOMEM);
	KUNIT_EXPECT_STREQ(test, f->trace, "A0");
}

/* The preferred server does not answer probes: the other one first. */
static void afs_vl_rotate_driver_preferred_silent(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	clear_bit(AFS_VLSERVER_FL_RESPONDING, &f->servers[0]->flags);
	f->alists[0]->responded = 0;
	KUNIT_EXPECT_EQ(test, AFS_TEST_RUN(test, { 0 }), 0);
	KUNIT_EXPECT_STREQ(test, f->trace, "B0");
}

static void afs_vl_rotate_driver_empty_list(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);
	struct afs_vlserver_list *empty = afs_alloc_vlserver_list(0);

	KUNIT_ASSERT_NOT_NULL(test, empty);
	rcu_assign_pointer(f->cell->vl_servers, empty);
	afs_put_vlserverlist(NULL, f->vllist);	/* The cell's reference */

	KUNIT_EXPECT_EQ(test, afs_test_vl_run(test, NULL, 0), -EDESTADDRREQ);
	KUNIT_EXPECT_STREQ(test, f->trace, "");
	KUNIT_EXPECT_EQ(test, refcount_read(&empty->ref), 1);
}

static void afs_vl_rotate_driver_signal(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);

	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	KUNIT_EXPECT_EQ(test, afs_test_vl_run(test, NULL, 0), -EINTR);
	flush_signals(current);
	disallow_signal(SIGUSR1);
	KUNIT_EXPECT_STREQ(test, f->trace, "");
}

/*
 * A step the driver cannot take fails the operation with the step's error:
 * here the wait for probes that have not answered, cut short by a signal
 * that came after the operation began.
 */
static void afs_vl_rotate_driver_step_failed(struct kunit *test)
{
	struct afs_vl_driver_fixture *f = afs_test_vl_fixture(test);
	struct afs_vl_cursor vc;
	int i;

	for (i = 0; i < 2; i++) {
		f->servers[i]->flags = BIT(AFS_VLSERVER_FL_PROBED) |
			BIT(AFS_VLSERVER_FL_PROBING);
		f->servers[i]->probe.flags = 0;
	}
	KUNIT_ASSERT_TRUE(test, afs_begin_vlserver_operation(&vc, f->cell, NULL));
	allow_signal(SIGUSR1);
	send_sig(SIGUSR1, current, 0);
	KUNIT_EXPECT_FALSE(test, afs_select_vlserver(&vc));
	flush_signals(current);
	disallow_signal(SIGUSR1);
	KUNIT_EXPECT_EQ(test, afs_end_vlserver_operation(&vc), -ERESTARTSYS);
}

static struct kunit_case afs_vl_rotate_driver_cases[] = {
	KUNIT_CASE(afs_vl_rotate_driver_success),
	KUNIT_CASE(afs_vl_rotate_driver_dead_server),
	KUNIT_CASE(afs_vl_rotate_driver_all_unreachable),
	KUNIT_CASE(afs_vl_rotate_driver_no_such_volume),
	KUNIT_CASE(afs_vl_rotate_driver_weird_server),
	KUNIT_CASE(afs_vl_rotate_driver_bad_reply),
	KUNIT_CASE(afs_vl_rotate_driver_reset_retry),
	KUNIT_CASE(afs_vl_rotate_driver_yfs_fallback),
	KUNIT_CASE(afs_vl_rotate_driver_yfs_fallback_fails),
	KUNIT_CASE(afs_vl_rotate_driver_local_failure),
	KUNIT_CASE(afs_vl_rotate_driver_preferred_silent),
	KUNIT_CASE(afs_vl_rotate_driver_empty_list),
	KUNIT_CASE(afs_vl_rotate_driver_signal),
	KUNIT_CASE(afs_vl_rotate_driver_step_failed),
	{}
};

static struct kunit_suite afs_vl_rotate_driver_suite = {
	.name = "afs_vl_rotate_driver",
	.init = afs_vl_driver_init,
	.exit = afs_vl_driver_exit,
	.test_cases = afs_vl_rotate_driver_cases,
};

kunit_test_suites(&afs_vl_rotate_suite, &afs_vl_rotate_driver_suite);
