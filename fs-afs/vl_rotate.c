// SPDX-License-Identifier: GPL-2.0-or-later
/* VL server selection and rotation.
 *
 * Copyright (C) 2018 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * After each call to a VL server we decide whether to try the next address,
 * the next server, the same address again without the YFS service, the whole
 * list again, or to stop, and with which error.  The decision,
 * afs_vl_judge_call() (and afs_vl_all_tried() at the end of the list), is
 * pure but for the cursor's flags and error; afs_select_vlserver() carries
 * it out: reading the cell's list, probing, waiting for the probes and
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

/* What to do next. */
enum afs_vl_next {
	AFS_VL_START,		/* (Re)read the list, probe, pick a server */
	AFS_VL_NEXT_ADDRESS,	/* Same server, next address */
	AFS_VL_NEXT_SERVER,	/* The next untried server */
	AFS_VL_DOWNGRADE,	/* Same address, plain VL service */
	AFS_VL_SUCCEED,		/* Stop: the call succeeded */
	AFS_VL_FAIL,		/* Stop with vc->error */
};

/* Remember @error if it says as much as the one remembered, or more. */
static int afs_vl_keep_error(int kept, int error)
{
	return afs_error_rank(error) >= afs_error_rank(kept) ? error : kept;
}

static enum afs_vl_next afs_vl_fail(struct afs_vl_cursor *vc, int error)
{
	vc->error = error;
	vc->flags |= AFS_VL_CURSOR_STOP;
	return AFS_VL_FAIL;
}

static enum afs_vl_next afs_vl_next_server(struct afs_vl_cursor *vc, int error)
{
	vc->error = afs_vl_keep_error(vc->error, error);
	return AFS_VL_NEXT_SERVER;
}

/* A VL server aborted the call. */
static enum afs_vl_next afs_vl_aborted(struct afs_vl_cursor *vc, u32 abort_code, bool yfs)
{
	switch (abort_code) {
	case RXGEN_OPCODE:
		/* The YFS service does not know the call: use plain VL. */
		if (yfs && !(vc->flags & AFS_VL_CURSOR_DOWNGRADED)) {
			vc->flags |= AFS_VL_CURSOR_DOWNGRADED;
			return AFS_VL_DOWNGRADE;
		}
		/* Another server may be newer. */
		return afs_vl_next_server(vc, -EOPNOTSUPP);

	case AFSVL_IO:
	case AFSVL_BADVOLOPER:
	case AFSVL_NOMEM:
		/* The server went weird; the others have the same database. */
		return afs_vl_next_server(vc, -EREMOTEIO);

	default:
		/* An answer: no such entry (AFSVL_NOENT), a bad name, ... */
		return afs_vl_fail(vc, afs_abort_to_error(abort_code));
	}
}

/*
 * afs_vl_judge_call - Decide what follows a call to a VL server
 * @vc: The cursor: its flags and error are updated
 * @error: The call's error, 0 if it succeeded
 * @abort_code: The server's abort code if @error is -ECONNABORTED
 * @yfs: The call went to the YFS VL service
 *
 * Pure apart from @vc's flags and error.  The table is in docs/rotation.md.
 */
static enum afs_vl_next afs_vl_judge_call(struct afs_vl_cursor *vc, int error,
					  u32 abort_code, bool yfs)
{
	switch (error) {
	case 0:
		vc->error = 0;
		vc->flags |= AFS_VL_CURSOR_STOP;
		return AFS_VL_SUCCEED;

	case -ECONNABORTED:
		return afs_vl_aborted(vc, abort_code, yfs);

	case -ERFKILL:
	case -EADDRNOTAVAIL:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EHOSTDOWN:
	case -ECONNREFUSED:
	case -ETIMEDOUT:
	case -ETIME:
		vc->error = afs_vl_keep_error(vc->error, error);
		return AFS_VL_NEXT_ADDRESS;

	case -ECONNRESET:
		/* The call expired: go round the list once more at the end. */
		vc->flags |= AFS_VL_CURSOR_RETRY;
		return afs_vl_next_server(vc, error);

	case -EOPNOTSUPP:
		return afs_vl_next_server(vc, error);

	case -EBADMSG:
	case -EMSGSIZE:
		/* We refused the reply (or its length): try another server. */
		return afs_vl_next_server(vc, -EBADMSG);

	default:
		/* A local failure (no memory, a signal, a key): stop. */
		return afs_vl_fail(vc, error);
	}
}

/*
 * Every server has been tried: after a reset call, start once more; else
 * fail with the most meaningful error of the calls and @probe_error.
 */
static enum afs_vl_next afs_vl_all_tried(struct afs_vl_cursor *vc, int probe_error)
{
	if ((vc->flags & (AFS_VL_CURSOR_RETRY | AFS_VL_CURSOR_RETRIED)) ==
	    AFS_VL_CURSOR_RETRY) {
		vc->flags |= AFS_VL_CURSOR_RETRIED;
		vc->flags &= ~AFS_VL_CURSOR_RETRY;
		return AFS_VL_START;
	}

	vc->error = afs_vl_keep_error(vc->error, probe_error);
	return afs_vl_fail(vc, vc->error ?: -EDESTADDRREQ);
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
	int i, best = 0;

	for (i = 0; i < vllist->nr_servers; i++) {
		int error = READ_ONCE(vllist->servers[i].server->probe.error);

		if (error != -ECONNABORTED)
			best = afs_vl_keep_error(best, error);
	}
	return best;
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
	struct afs_addr_list *alist;
	enum afs_vl_next next;
	bool yfs;
	int ret;

	_enter("%lx[%d],%lx[%d],%d,%d",
	       vc->untried, vc->index, vc->ac.tried, vc->ac.index,
	       vc->ac.error, vc->ac.abort_code);

	if (vc->flags & AFS_VL_CURSOR_STOP)
		return false;
	vc->nr_iterations++;

	if (vc->ac.error == SHRT_MAX) {
		vc->error = 0;
		next = AFS_VL_START;
	} else {
		alist = vc->ac.alist;
		yfs = (vc->server && test_bit(AFS_VLSERVER_FL_IS_YFS, &vc->server->flags)) ||
			(alist && vc->ac.index >= 0 &&
			 alist->addrs[vc->ac.index].srx_service == YFS_VL_SERVICE);
		next = afs_vl_judge_call(vc, vc->ac.error, vc->ac.abort_code, yfs);
	}

	for (;;) {
		_debug("next %u error %d", next, vc->error);
		switch (next) {
		case AFS_VL_START:
			ret = afs_vl_start(vc);
			if (ret < 0) {
				next = afs_vl_fail(vc, ret);
				continue;
			}
			fallthrough;
		case AFS_VL_NEXT_SERVER:
			ret = afs_vl_pick_server(vc);
			if (ret < 0) {
				next = afs_vl_fail(vc, ret);
				continue;
			}
			if (ret == 0) {
				next = afs_vl_all_tried(vc, afs_vl_probe_error(vc->server_list));
				continue;
			}
			fallthrough;
		case AFS_VL_NEXT_ADDRESS:
			if (!afs_iterate_addresses(&vc->ac)) {
				next = AFS_VL_NEXT_SERVER;
				continue;
			}
			_leave(" = t %pISpc", &vc->ac.alist->addrs[vc->ac.index].transport);
			return true;

		case AFS_VL_DOWNGRADE:
			afs_vl_downgrade(vc);
			_leave(" = t [plain VL]");
			return true;

		case AFS_VL_SUCCEED:
			afs_vl_succeeded(vc);
			_leave(" = f [done]");
			return false;

		case AFS_VL_FAIL:
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
