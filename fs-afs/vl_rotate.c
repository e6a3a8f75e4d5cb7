// SPDX-License-Identifier: GPL-2.0-or-later
/* VL server selection and rotation.
 *
 * Copyright (C) 2018 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * After each call to a VL server we decide whether to try the next address,
 * the next server, the same address again without the YFS service, the whole
 * list again, or to stop, and with which error.  The decision is a pure
 * function, afs_vl_rotate_decide(), of the rotation state and what just
 * happened; afs_select_vlserver() is the driver that carries out its
 * actions: reading the cell's list, probing, waiting for the probes and
 * walking the server and address lists.
 *
 * A VL server has no volume states (busy, offline, moved), so the table is
 * smaller than the fileserver's (rotate.c); what it has that the fileserver's
 * does not is the service upgrade: a probe that the server answers on the
 * YFS VL service marks it YFS, and calls then go to that service.  If such a
 * call is refused as an unknown operation, the server is marked plain VL and
 * the same address is tried again, once per operation.
 */

#include <linux/kernel.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/rxrpc.h>
#include "internal.h"
#include "afs_vl.h"

/* Rotation flags kept in struct afs_vl_cursor::flags, beside STOP, RETRY and
 * RETRIED.
 */
#define AFS_VL_CURSOR_DOWNGRADED 0x0008	/* Fell back from YFS once */

/* What just happened. */
enum afs_vl_rotate_event {
	AFS_VL_ROTATE_BEGIN,		/* Nothing has been tried yet */
	AFS_VL_ROTATE_CALL_DONE,	/* A call ended: error, abort_code, yfs */
	AFS_VL_ROTATE_NO_ADDRESSES,	/* The server has no address left */
	AFS_VL_ROTATE_NO_SERVERS,	/* Every server was tried: error (probes') */
	AFS_VL_ROTATE_STEP_FAILED,	/* The driver could not act: error */
	NR__AFS_VL_ROTATE_EVENTS
};

/* What to do next. */
enum afs_vl_rotate_action {
	AFS_VL_ROTATE_START,		/* (Re)read the list, probe, pick a server */
	AFS_VL_ROTATE_NEXT_ADDRESS,	/* Same server, next address */
	AFS_VL_ROTATE_NEXT_SERVER,	/* The next untried server */
	AFS_VL_ROTATE_DOWNGRADE,	/* Same address, plain VL service */
	AFS_VL_ROTATE_SUCCEED,		/* Stop: the call succeeded */
	AFS_VL_ROTATE_FAIL,		/* Stop with the decision's error */
	NR__AFS_VL_ROTATE_ACTIONS
};

struct afs_vl_rotate_outcome {
	enum afs_vl_rotate_event event;
	int			error;
	u32			abort_code;	/* CALL_DONE with -ECONNABORTED */
	bool			yfs;		/* CALL_DONE: went to the YFS service */
};

struct afs_vl_rotate_state {
	unsigned int		flags;		/* AFS_VL_CURSOR_* */
	int			error;		/* Most meaningful error so far */
};

struct afs_vl_rotate_decision {
	enum afs_vl_rotate_action action;
	int			error;		/* FAIL: the error to report */
};

/* Remember @error if it says as much as the one remembered, or more. */
static void afs_vl_note_error(struct afs_vl_rotate_state *state, int error)
{
	if (afs_error_rank(error) >= afs_error_rank(state->error))
		state->error = error;
}

static struct afs_vl_rotate_decision afs_vl_act(enum afs_vl_rotate_action action)
{
	return (struct afs_vl_rotate_decision){ .action = action };
}

static struct afs_vl_rotate_decision afs_vl_fail(struct afs_vl_rotate_state *state,
						 int error)
{
	state->error = error;
	state->flags |= AFS_VL_CURSOR_STOP;
	return (struct afs_vl_rotate_decision){ .action = AFS_VL_ROTATE_FAIL,
						.error = error };
}

static struct afs_vl_rotate_decision afs_vl_next(struct afs_vl_rotate_state *state,
						 int error)
{
	afs_vl_note_error(state, error);
	return afs_vl_act(AFS_VL_ROTATE_NEXT_SERVER);
}

/* A VL server aborted the call. */
static struct afs_vl_rotate_decision afs_vl_aborted(struct afs_vl_rotate_state *state,
						    const struct afs_vl_rotate_outcome *in)
{
	switch (in->abort_code) {
	case RXGEN_OPCODE:
		/* The YFS service does not know the call: use plain VL. */
		if (in->yfs && !(state->flags & AFS_VL_CURSOR_DOWNGRADED)) {
			state->flags |= AFS_VL_CURSOR_DOWNGRADED;
			return afs_vl_act(AFS_VL_ROTATE_DOWNGRADE);
		}
		/* Another server may be newer. */
		return afs_vl_next(state, -EOPNOTSUPP);

	case AFSVL_IO:
	case AFSVL_BADVOLOPER:
	case AFSVL_NOMEM:
		/* The server went weird; the others have the same database. */
		return afs_vl_next(state, -EREMOTEIO);

	default:
		/* An answer: no such entry (AFSVL_NOENT), a bad name, ... */
		return afs_vl_fail(state, afs_abort_to_error(in->abort_code));
	}
}

static struct afs_vl_rotate_decision afs_vl_call_done(struct afs_vl_rotate_state *state,
						      const struct afs_vl_rotate_outcome *in)
{
	switch (in->error) {
	case 0:
		state->error = 0;
		state->flags |= AFS_VL_CURSOR_STOP;
		return afs_vl_act(AFS_VL_ROTATE_SUCCEED);

	case -ECONNABORTED:
		return afs_vl_aborted(state, in);

	case -ERFKILL:
	case -EADDRNOTAVAIL:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EHOSTDOWN:
	case -ECONNREFUSED:
	case -ETIMEDOUT:
	case -ETIME:
		afs_vl_note_error(state, in->error);
		return afs_vl_act(AFS_VL_ROTATE_NEXT_ADDRESS);

	case -ECONNRESET:
		/* The call expired: go round the list once more at the end. */
		state->flags |= AFS_VL_CURSOR_RETRY;
		return afs_vl_next(state, in->error);

	case -EOPNOTSUPP:
		return afs_vl_next(state, in->error);

	case -EBADMSG:
	case -EMSGSIZE:
		/* We refused the reply (or its length): try another server. */
		return afs_vl_next(state, -EBADMSG);

	default:
		/* A local failure (no memory, a signal, a key): stop. */
		return afs_vl_fail(state, in->error);
	}
}

static struct afs_vl_rotate_decision afs_vl_no_servers(struct afs_vl_rotate_state *state,
						       const struct afs_vl_rotate_outcome *in)
{
	if ((state->flags & (AFS_VL_CURSOR_RETRY | AFS_VL_CURSOR_RETRIED)) ==
	    AFS_VL_CURSOR_RETRY) {
		state->flags |= AFS_VL_CURSOR_RETRIED;
		state->flags &= ~AFS_VL_CURSOR_RETRY;
		return afs_vl_act(AFS_VL_ROTATE_START);
	}

	afs_vl_note_error(state, in->error);
	return afs_vl_fail(state, state->error ?: -EDESTADDRREQ);
}

/*
 * afs_vl_rotate_decide - Decide what to do after an event in VL rotation
 * @state: The rotation state, updated
 * @in: What just happened
 *
 * Pure: no I/O, no sleeping, no allocation.  The table is in
 * docs/dns_vl.md.
 *
 * Return: The action, with the error to report if it is FAIL.
 */
static struct afs_vl_rotate_decision afs_vl_rotate_decide(struct afs_vl_rotate_state *state,
							  const struct afs_vl_rotate_outcome *in)
{
	switch (in->event) {
	case AFS_VL_ROTATE_BEGIN:
		return afs_vl_act(AFS_VL_ROTATE_START);
	case AFS_VL_ROTATE_CALL_DONE:
		return afs_vl_call_done(state, in);
	case AFS_VL_ROTATE_NO_ADDRESSES:
		return afs_vl_act(AFS_VL_ROTATE_NEXT_SERVER);
	case AFS_VL_ROTATE_NO_SERVERS:
		return afs_vl_no_servers(state, in);
	case AFS_VL_ROTATE_STEP_FAILED:
	default:
		return afs_vl_fail(state, in->error ?: -EIO);
	}
}

/**
 * afs_begin_vlserver_operation - Begin an operation on a cell's VL servers
 * @vc: The cursor to set up
 * @cell: The cell
 * @key: The key to call with
 *
 * Return: true if afs_select_vlserver() may be called; false, with -EINTR in
 * the cursor, if a signal is pending.  afs_end_vlserver_operation() must be
 * called either way.
 */
bool afs_begin_vlserver_operation(struct afs_vl_cursor *vc, struct afs_cell *cell,
				  struct key *key)
{
	memset(vc, 0, sizeof(*vc));
	vc->cell = cell;
	vc->key = key;
	vc->error = -EDESTADDRREQ;
	vc->ac.error = SHRT_MAX;

	if (signal_pending(current)) {
		vc->error = -EINTR;
		vc->flags |= AFS_VL_CURSOR_STOP;
		return false;
	}

	return true;
}

static int afs_vl_wait_for_lookup(struct afs_cell *cell, unsigned int count)
{
	return wait_var_event_interruptible(&cell->dns_lookup_count,
					    /* Source and status after the count */
					    smp_load_acquire(&cell->dns_lookup_count) != count);
}

/*
 * Make sure the cell's VL server list is current, and take a reference on it.
 * A cell whose list came from the DNS and expired is looked up again in the
 * background, and the old list used meanwhile; a cell that never had one
 * waits for the lookup.
 */
static int afs_vl_start(struct afs_vl_cursor *vc)
{
	struct afs_cell *cell = vc->cell;
	struct afs_vlserver_list *vllist;
	unsigned int dns_lookup_count, nr;

	if (cell->dns_source == DNS_RECORD_UNAVAILABLE ||
	    cell->dns_expiry <= ktime_get_real_seconds()) {
		/* Pairs with the release in afs_update_cell(). */
		dns_lookup_count = smp_load_acquire(&cell->dns_lookup_count);
		set_bit(AFS_CELL_FL_DO_LOOKUP, &cell->flags);
		afs_queue_cell(cell, afs_cell_trace_get_queue_dns);

		if (cell->dns_source == DNS_RECORD_UNAVAILABLE &&
		    afs_vl_wait_for_lookup(cell, dns_lookup_count) < 0)
			return -ERESTARTSYS;

		/* Status load is ordered after lookup counter load */
		if (cell->dns_status == DNS_LOOKUP_GOT_NOT_FOUND) {
			pr_warn("No record of cell %s\n", cell->name);
			return -ENOENT;
		}
		if (cell->dns_source == DNS_RECORD_UNAVAILABLE)
			return -EDESTADDRREQ;
	}

	afs_put_vlserverlist(cell->net, vc->server_list);
	read_lock(&cell->vl_servers_lock);
	vllist = rcu_dereference_protected(cell->vl_servers,
					   lockdep_is_held(&cell->vl_servers_lock));
	vc->server_list = afs_get_vlserverlist(vllist);
	read_unlock(&cell->vl_servers_lock);

	/* Servers past the width of the mask are never tried. */
	nr = min_t(unsigned int, vc->server_list->nr_servers, BITS_PER_LONG);
	vc->untried = nr < BITS_PER_LONG ? BIT(nr) - 1 : ~0UL;
	vc->index = -1;
	return afs_send_vl_probes(cell->net, vc->key, vc->server_list);
}

/*
 * Pick the untried server to use: the list's preferred one, else the one
 * answering probes with the lowest RTT, and point the address cursor at its
 * addresses.  Return: 1 if one was picked, 0 if none is left, or an error.
 */
static int afs_vl_pick_server(struct afs_vl_cursor *vc)
{
	struct afs_vlserver_list *vllist = vc->server_list;
	struct afs_vlserver *server;
	struct afs_addr_list *alist;
	unsigned int rtt = UINT_MAX;
	int i, ret;

	afs_end_cursor(&vc->ac);
	if (!vc->untried)
		return 0;

	ret = afs_wait_for_vl_probes(vllist, vc->untried);
	if (ret < 0)
		return ret;

	vc->index = READ_ONCE(vllist->preferred);
	if (vc->index >= vllist->nr_servers || !test_bit(vc->index, &vc->untried)) {
		vc->index = -1;
		for (i = 0; i < vllist->nr_servers && i < BITS_PER_LONG; i++) {
			server = vllist->servers[i].server;
			if (!test_bit(i, &vc->untried) ||
			    !test_bit(AFS_VLSERVER_FL_RESPONDING, &server->flags))
				continue;
			if (server->probe.rtt < rtt) {
				vc->index = i;
				rtt = server->probe.rtt;
			}
		}
		if (vc->index == -1)
			return 0;
	}

	__clear_bit(vc->index, &vc->untried);
	server = vllist->servers[vc->index].server;
	vc->server = server;
	_debug("use %s", server->name);

	read_lock(&server->lock);
	alist = afs_get_addrlist(rcu_dereference_protected(server->addresses,
							   lockdep_is_held(&server->lock)));
	read_unlock(&server->lock);

	memset(&vc->ac, 0, sizeof(vc->ac));
	vc->ac.alist = alist;
	vc->ac.index = -1;
	return 1;
}

/*
 * The most meaningful error the probes of the list's servers got, for when
 * no server could be tried.  An abort means the server answered, which the
 * calls' own errors already tell.
 */
static int afs_vl_probe_error(const struct afs_vlserver_list *vllist)
{
	struct afs_vl_rotate_state best = {};
	int i;

	for (i = 0; i < vllist->nr_servers; i++) {
		int error = READ_ONCE(vllist->servers[i].server->probe.error);

		if (error != -ECONNABORTED)
			afs_vl_note_error(&best, error);
	}
	return best.error;
}

/*
 * A call succeeded: the server that answered becomes the list's preferred one,
 * so that later operations do not start with one that did not.
 */
static void afs_vl_succeeded(struct afs_vl_cursor *vc)
{
	if (vc->server_list && vc->index >= 0 &&
	    vc->index != READ_ONCE(vc->server_list->preferred))
		WRITE_ONCE(vc->server_list->preferred, vc->index);
}

/*
 * Fall back from the YFS service to plain VL on the current address.
 */
static void afs_vl_downgrade(struct afs_vl_cursor *vc)
{
	struct afs_addr_list *alist = vc->ac.alist;

	clear_bit(AFS_VLSERVER_FL_IS_YFS, &vc->server->flags);
	if (alist && vc->ac.index >= 0 && vc->ac.index < alist->nr_addrs)
		alist->addrs[vc->ac.index].srx_service = VL_SERVICE;
}

/**
 * afs_select_vlserver - Choose the VL server and address for the next call
 * @vc: The cursor, set up by afs_begin_vlserver_operation()
 *
 * The first call starts the rotation; each later one judges the previous
 * call's result (@vc->ac.error and @vc->ac.abort_code).
 *
 * Return: true with @vc->server and @vc->ac set for a call, or false when
 * the operation is over; the result is then in @vc->error.
 */
bool afs_select_vlserver(struct afs_vl_cursor *vc)
{
	struct afs_vl_rotate_outcome in = {};
	struct afs_vl_rotate_decision d;
	struct afs_vl_rotate_state state;
	int ret;

	_enter("%lx[%d],%lx[%d],%d,%d",
	       vc->untried, vc->index, vc->ac.tried, vc->ac.index,
	       vc->ac.error, vc->ac.abort_code);

	if (vc->flags & AFS_VL_CURSOR_STOP)
		return false;
	vc->nr_iterations++;

	if (vc->ac.error == SHRT_MAX) {
		in.event = AFS_VL_ROTATE_BEGIN;
		state.error = 0;
	} else {
		in.event = AFS_VL_ROTATE_CALL_DONE;
		in.error = vc->ac.error;
		in.abort_code = vc->ac.abort_code;
		in.yfs = (vc->server &&
			  test_bit(AFS_VLSERVER_FL_IS_YFS, &vc->server->flags)) ||
			(vc->ac.alist && vc->ac.index >= 0 &&
			 vc->ac.alist->addrs[vc->ac.index].srx_service == YFS_VL_SERVICE);
		state.error = vc->error;
	}
	state.flags = vc->flags;

	for (;;) {
		d = afs_vl_rotate_decide(&state, &in);
		_debug("event %u error %d -> action %u error %d",
		       in.event, in.error, d.action, d.error);
		memset(&in, 0, sizeof(in));
		vc->flags = state.flags;
		vc->error = state.error;

		switch (d.action) {
		case AFS_VL_ROTATE_START:
			ret = afs_vl_start(vc);
			if (ret < 0) {
				in.event = AFS_VL_ROTATE_STEP_FAILED;
				in.error = ret;
				continue;
			}
			fallthrough;
		case AFS_VL_ROTATE_NEXT_SERVER:
			ret = afs_vl_pick_server(vc);
			if (ret < 0) {
				in.event = AFS_VL_ROTATE_STEP_FAILED;
				in.error = ret;
				continue;
			}
			if (ret == 0) {
				in.event = AFS_VL_ROTATE_NO_SERVERS;
				in.error = afs_vl_probe_error(vc->server_list);
				continue;
			}
			fallthrough;
		case AFS_VL_ROTATE_NEXT_ADDRESS:
			if (!afs_iterate_addresses(&vc->ac)) {
				in.event = AFS_VL_ROTATE_NO_ADDRESSES;
				continue;
			}
			_leave(" = t %pISpc", &vc->ac.alist->addrs[vc->ac.index].transport);
			return true;

		case AFS_VL_ROTATE_DOWNGRADE:
			afs_vl_downgrade(vc);
			_leave(" = t [plain VL]");
			return true;

		case AFS_VL_ROTATE_SUCCEED:
			afs_vl_succeeded(vc);
			_leave(" = f [done]");
			return false;

		case AFS_VL_ROTATE_FAIL:
		default:
			afs_end_cursor(&vc->ac);
			_leave(" = f [failed %d]", vc->error);
			return false;
		}
	}
}

/*
 * Dump cursor state in the case of the error being EDESTADDRREQ.
 */
static void afs_vl_dump_edestaddrreq(const struct afs_vl_cursor *vc)
{
	struct afs_cell *cell = vc->cell;
	static int count;
	int i;

	if (!IS_ENABLED(CONFIG_AFS_DEBUG_CURSOR) || count > 3)
		return;
	count++;

	rcu_read_lock();
	pr_notice("EDESTADDR occurred\n");
	pr_notice("CELL: %s err=%d\n", cell->name, cell->error);
	pr_notice("DNS: src=%u st=%u lc=%x\n",
		  cell->dns_source, cell->dns_status, cell->dns_lookup_count);
	pr_notice("VC: ut=%lx ix=%d ni=%u fl=%x err=%d\n",
		  vc->untried, vc->index, vc->nr_iterations, vc->flags, vc->error);

	if (vc->server_list) {
		const struct afs_vlserver_list *sl = vc->server_list;

		pr_notice("VC: SL nr=%u ix=%u\n", sl->nr_servers, sl->index);
		for (i = 0; i < sl->nr_servers; i++) {
			const struct afs_vlserver *s = sl->servers[i].server;
			const struct afs_addr_list *a = rcu_dereference(s->addresses);

			pr_notice("VC: server %s+%u fl=%lx E=%d\n",
				  s->name, s->port, s->flags, s->probe.error);
			if (a) {
				pr_notice("VC:  - nr=%u/%u/%u pf=%u\n",
					  a->nr_ipv4, a->nr_addrs, a->max_addrs,
					  a->preferred);
				pr_notice("VC:  - R=%lx F=%lx\n",
					  a->responded, a->failed);
				if (a == vc->ac.alist)
					pr_notice("VC:  - current\n");
			}
		}
	}

	pr_notice("AC: t=%lx ax=%u ac=%d er=%d r=%u ni=%u\n",
		  vc->ac.tried, vc->ac.index, vc->ac.abort_code, vc->ac.error,
		  vc->ac.responded, vc->ac.nr_iterations);
	rcu_read_unlock();
}

/**
 * afs_end_vlserver_operation - Finish an operation on a cell's VL servers
 * @vc: The cursor
 *
 * Drops the cursor's references on the server list and address list.
 *
 * Return: The operation's result: 0 or an error.
 */
int afs_end_vlserver_operation(struct afs_vl_cursor *vc)
{
	struct afs_net *net = vc->cell->net;

	if (vc->error == -EDESTADDRREQ ||
	    vc->error == -EADDRNOTAVAIL ||
	    vc->error == -ENETUNREACH ||
	    vc->error == -EHOSTUNREACH)
		afs_vl_dump_edestaddrreq(vc);

	afs_end_cursor(&vc->ac);
	afs_put_vlserverlist(net, vc->server_list);
	vc->server_list = NULL;

	if (vc->error == -ECONNABORTED)
		vc->error = afs_abort_to_error(vc->ac.abort_code);

	return vc->error;
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/vl_rotate_kunit.c"
#endif
