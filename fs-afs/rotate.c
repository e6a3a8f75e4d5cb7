// SPDX-License-Identifier: GPL-2.0-or-later
/* Fileserver selection and rotation.
 *
 * After each call to a fileserver we decide whether to retry the same
 * address, try the next address or the next server, refresh the volume's
 * record from the VLDB, sleep, or give up, and with which error.
 *
 * The decision is a pure function, afs_rotate_decide(), of the rotation state
 * and what just happened; afs_select_fileserver() is the driver that carries
 * out its actions: waiting for probes, refreshing the volume record,
 * sleeping, and walking the server and address lists.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/sched/signal.h>
#include <linux/rxrpc.h>
#include "internal.h"
#include "afs_fs.h"
#include "protocol_uae.h"
#include "rotate.h"

/*
 * How meaningful an error is to whoever gets it: a server's own answer
 * beats a timeout, which beats the local network errors, which beat having
 * had nowhere to send the call.
 */
static int afs_rotate_error_rank(int error)
{
	switch (error) {
	case 0:			return 0;
	case -EDESTADDRREQ:	return 1;
	case -ERFKILL:		return 2;
	case -EADDRNOTAVAIL:	return 3;
	case -ENETUNREACH:	return 4;
	case -EHOSTUNREACH:	return 5;
	case -EHOSTDOWN:	return 6;
	case -ECONNREFUSED:	return 7;
	case -ETIME:
	case -ETIMEDOUT:	return 8;
	default:		return 9;	/* The server answered */
	}
}

/* Remember @error if it says more than the one remembered. */
static void afs_rotate_note_error(struct afs_rotate_state *state, int error)
{
	if (afs_rotate_error_rank(error) >= afs_rotate_error_rank(state->error))
		state->error = error;
}

static struct afs_rotate_decision afs_rotate_act(enum afs_rotate_action action)
{
	return (struct afs_rotate_decision){ .action = action };
}

static struct afs_rotate_decision afs_rotate_fail(struct afs_rotate_state *state,
						  int error)
{
	state->error = error;
	state->flags |= AFS_OPERATION_STOP;
	return (struct afs_rotate_decision){ .action = AFS_ROTATE_FAIL,
					     .error = error };
}

static struct afs_rotate_decision afs_rotate_next(struct afs_rotate_state *state,
						  int error)
{
	afs_rotate_note_error(state, error);
	return afs_rotate_act(AFS_ROTATE_NEXT_SERVER);
}

/*
 * The volume is busy, offline or being salvaged on this server.  A file lock
 * pins us to the server: sleep and retry it.  Otherwise try the others and
 * come back to this one after a sleep at the end of the round.
 */
static struct afs_rotate_decision afs_rotate_busy(struct afs_rotate_state *state,
						  enum afs_rotate_note note)
{
	struct afs_rotate_decision d;

	if (state->flags & AFS_OPERATION_NO_VSLEEP) {
		d = afs_rotate_fail(state, -EBUSY);
	} else if (!(state->flags & AFS_OPERATION_CUR_ONLY)) {
		d = afs_rotate_next(state, -EBUSY);
	} else if (state->busy_rounds >= AFS_ROTATE_MAX_BUSY_ROUNDS) {
		d = afs_rotate_fail(state, -EBUSY);
	} else {
		state->busy_rounds++;
		d = afs_rotate_act(AFS_ROTATE_SLEEP_RETRY);
	}

	state->flags |= AFS_OPERATION_VBUSY;
	d.note = note;
	return d;
}

/* A fileserver aborted the call. */
static struct afs_rotate_decision afs_rotate_aborted(struct afs_rotate_state *state,
						     const struct afs_rotate_outcome *in)
{
	struct afs_rotate_decision d;

	switch (in->abort_code) {
	case VNOVOL:
		/* The server does not know the volume: perhaps the VLDB is
		 * out of date; check it once.
		 */
		if (state->flags & AFS_OPERATION_VNOVOL)
			return afs_rotate_next(state, -EREMOTEIO);
		d = afs_rotate_act(AFS_ROTATE_UPDATE_VLDB);
		d.note = AFS_ROTATE_NOTE_NO_VOLUME;
		return d;

	case VMOVED:
		/* Follow one move; a second one may be a loop. */
		if (state->flags & AFS_OPERATION_VMOVED)
			return afs_rotate_fail(state, -EREMOTEIO);
		state->flags |= AFS_OPERATION_VMOVED;
		d = afs_rotate_act(AFS_ROTATE_UPDATE_VLDB);
		d.note = AFS_ROTATE_NOTE_MOVED;
		return d;

	case VVOLEXISTS:
	case VONLINE:
		pr_warn_ratelimited("kAFS: Unexpected abort %d from a fileserver\n",
				    in->abort_code);
		return afs_rotate_next(state, -EREMOTEIO);

	case VNOSERVICE:
	case RX_CALL_TIMEOUT:
		return afs_rotate_next(state, -ETIMEDOUT);

	case VOFFLINE:
	case VSALVAGE:
	case VSALVAGING:
		return afs_rotate_busy(state, AFS_ROTATE_NOTE_OFFLINE);

	case VBUSY:
	case VRESTARTING:
		return afs_rotate_busy(state, AFS_ROTATE_NOTE_BUSY);

	case VIO:
	case UAEIO:
		/* Another replica of a read-only volume may be sound. */
		if (!in->volume_rw)
			return afs_rotate_next(state, -EREMOTEIO);
		return afs_rotate_fail(state, -EREMOTEIO);

	case VDISKFULL:
	case UAENOSPC:
		return afs_rotate_fail(state, -ENOSPC);

	case VOVERQUOTA:
	case UAEDQUOT:
		return afs_rotate_fail(state, -EDQUOT);

	default:
		d = afs_rotate_fail(state, afs_abort_to_error(in->abort_code));
		d.note = AFS_ROTATE_NOTE_ONLINE;
		return d;
	}
}

/* A call ended. */
static struct afs_rotate_decision afs_rotate_call_done(struct afs_rotate_state *state,
						       const struct afs_rotate_outcome *in)
{
	switch (in->error) {
	case 0:
		state->error = 0;
		state->flags |= AFS_OPERATION_STOP;
		return afs_rotate_act(AFS_ROTATE_SUCCEED);

	case -ECONNABORTED:
		return afs_rotate_aborted(state, in);

	case -ETIMEDOUT:
	case -ETIME:
	case -ERFKILL:
	case -EADDRNOTAVAIL:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EHOSTDOWN:
	case -ECONNREFUSED:
		/* This address did not answer; another may. */
		afs_rotate_note_error(state, in->error);
		return afs_rotate_act(AFS_ROTATE_NEXT_ADDRESS);

	case -ENETRESET:
	case -ECONNRESET:
	default:
		/* The call may have done something, or we cannot go on. */
		return afs_rotate_fail(state, in->error);
	}
}

/* The volume record was refreshed after a VNOVOL or a VMOVED. */
static struct afs_rotate_decision afs_rotate_updated(struct afs_rotate_state *state,
						     const struct afs_rotate_outcome *in)
{
	if (in->error < 0)
		return afs_rotate_fail(state, in->error);
	if (in->volume_deleted)
		return afs_rotate_fail(state, -ENOMEDIUM);

	if (in->abort_code == VMOVED) {
		/* The VLDB still names the server that sent us away. */
		if (!in->servers_changed)
			return afs_rotate_fail(state, -ENOMEDIUM);
		return afs_rotate_act(AFS_ROTATE_START);
	}

	/* VNOVOL: an unchanged list means the server has the trouble. */
	if (!in->servers_changed)
		return afs_rotate_next(state, -EREMOTEIO);
	state->flags |= AFS_OPERATION_VNOVOL;
	return afs_rotate_act(AFS_ROTATE_RETRY);
}

/* Every server has been tried. */
static struct afs_rotate_decision afs_rotate_no_servers(struct afs_rotate_state *state,
							const struct afs_rotate_outcome *in)
{
	if (state->flags & AFS_OPERATION_VBUSY) {
		state->flags &= ~AFS_OPERATION_VBUSY;
		if (state->busy_rounds >= AFS_ROTATE_MAX_BUSY_ROUNDS)
			return afs_rotate_fail(state, -EBUSY);
		state->busy_rounds++;
		return afs_rotate_act(AFS_ROTATE_SLEEP_START);
	}

	/* What the calls said, or failing that what the probes said. */
	afs_rotate_note_error(state, in->error);
	return afs_rotate_fail(state, state->error ?: -EDESTADDRREQ);
}

/**
 * afs_rotate_decide - Decide the next step of a fileserver rotation
 * @state: The rotation state, updated
 * @in: What just happened
 *
 * Pure: no I/O, no sleeping, no allocation.  See docs/rotation.md for the
 * table this implements.
 *
 * Return: The action to take, a note for the driver to record, and for
 * %AFS_ROTATE_FAIL the error to report (also left in @state->error).
 */
struct afs_rotate_decision afs_rotate_decide(struct afs_rotate_state *state,
					     const struct afs_rotate_outcome *in)
{
	switch (in->event) {
	case AFS_ROTATE_BEGIN:
		return afs_rotate_act(AFS_ROTATE_START);

	case AFS_ROTATE_CALL_DONE:
		return afs_rotate_call_done(state, in);

	case AFS_ROTATE_VLDB_UPDATED:
		return afs_rotate_updated(state, in);

	case AFS_ROTATE_NO_ADDRESSES:
		/* Re-probe the server once before giving up on it. */
		if (state->flags & AFS_OPERATION_RETRY_SERVER) {
			state->flags &= ~AFS_OPERATION_RETRY_SERVER;
			return afs_rotate_act(AFS_ROTATE_PROBE);
		}
		return afs_rotate_act(AFS_ROTATE_NEXT_SERVER);

	case AFS_ROTATE_PROBED:
		if (in->error == 0)
			return afs_rotate_act(AFS_ROTATE_RETRY_SERVER);
		if (in->error == -ERESTARTSYS)
			return afs_rotate_fail(state, -ERESTARTSYS);
		return afs_rotate_act(AFS_ROTATE_NEXT_SERVER);

	case AFS_ROTATE_NO_SERVERS:
		return afs_rotate_no_servers(state, in);

	case AFS_ROTATE_INTERRUPTED:
		return afs_rotate_fail(state, -ERESTARTSYS);

	case AFS_ROTATE_STEP_FAILED:
	default:
		return afs_rotate_fail(state, in->error ?: -EIO);
	}
}

/*
 * The driver.
 */

/*
 * Begin iteration through a server list, starting with the vnode's last used
 * server if possible, or the last recorded good server if not.
 */
static int afs_start_fs_iteration(struct afs_operation *op,
				  struct afs_vnode *vnode)
{
	struct afs_volume *volume = op->volume;
	struct afs_server_list *slist;
	struct afs_server *server;
	void *cb_server;
	int i;

	read_lock(&volume->servers_lock);
	slist = rcu_dereference_protected(volume->servers,
					  lockdep_is_held(&volume->servers_lock));
	op->server_list = afs_get_serverlist(slist);
	read_unlock(&volume->servers_lock);

	op->untried = (1UL << op->server_list->nr_servers) - 1;
	op->index = READ_ONCE(op->server_list->preferred);

	cb_server = vnode->cb_server;
	if (!cb_server)
		return 0;

	for (i = 0; i < op->server_list->nr_servers; i++) {
		server = op->server_list->servers[i].server;
		if (server == cb_server) {
			op->index = i;
			return 0;
		}
	}

	/* A lock held on a server that no longer serves the vnode cannot be
	 * moved to another.
	 */
	if (op->flags & AFS_OPERATION_CUR_ONLY)
		return -ESTALE;

	/* The callback promise is effectively broken. */
	write_seqlock(&vnode->cb_lock);
	ASSERTCMP(cb_server, ==, vnode->cb_server);
	vnode->cb_server = NULL;
	if (test_and_clear_bit(AFS_VNODE_CB_PROMISED, &vnode->flags))
		vnode->cb_break++;
	write_sequnlock(&vnode->cb_lock);
	return 0;
}

static void afs_rotate_record(struct afs_operation *op,
			      enum afs_rotate_note note)
{
	struct afs_volume *volume = op->volume;
	const char *m = "busy";

	switch (note) {
	case AFS_ROTATE_NOTE_NONE:
		return;
	case AFS_ROTATE_NOTE_OFFLINE:
		m = "offline";
		if (test_and_set_bit(AFS_VOLUME_OFFLINE, &volume->flags))
			return;
		clear_bit(AFS_VOLUME_BUSY, &volume->flags);
		break;
	case AFS_ROTATE_NOTE_BUSY:
		if (test_and_set_bit(AFS_VOLUME_BUSY, &volume->flags))
			return;
		clear_bit(AFS_VOLUME_OFFLINE, &volume->flags);
		break;
	case AFS_ROTATE_NOTE_ONLINE:
		clear_bit(AFS_VOLUME_OFFLINE, &volume->flags);
		clear_bit(AFS_VOLUME_BUSY, &volume->flags);
		return;
	case AFS_ROTATE_NOTE_NO_VOLUME:
		write_lock(&volume->servers_lock);
		op->server_list->vnovol_mask |= 1 << op->index;
		write_unlock(&volume->servers_lock);
		set_bit(AFS_VOLUME_NEEDS_UPDATE, &volume->flags);
		return;
	case AFS_ROTATE_NOTE_MOVED:
		set_bit(AFS_VOLUME_WAIT, &volume->flags);
		set_bit(AFS_VOLUME_NEEDS_UPDATE, &volume->flags);
		return;
	}

	pr_notice("kAFS: Volume %llu '%s' is %s\n", volume->vid, volume->name, m);
}

/* Sleep between rounds; false if a signal cut the sleep short. */
static bool afs_rotate_sleep(struct afs_operation *op)
{
	if (op->flags & AFS_OPERATION_UNINTR) {
		msleep(AFS_ROTATE_BUSY_SLEEP_MS);
		return true;
	}
	msleep_interruptible(AFS_ROTATE_BUSY_SLEEP_MS);
	return !signal_pending(current);
}

/* Drop the current server list, and the cursor on the current server. */
static void afs_rotate_drop_servers(struct afs_operation *op)
{
	afs_end_cursor(&op->ac);
	op->server = NULL;
	afs_put_serverlist(op->net, op->server_list);
	op->server_list = NULL;
}

/* Point the address cursor afresh at the current server's addresses. */
static void afs_rotate_reset_cursor(struct afs_operation *op)
{
	struct afs_server *server = op->server;
	struct afs_addr_list *alist;

	read_lock(&server->fs_lock);
	alist = rcu_dereference_protected(server->addresses,
					  lockdep_is_held(&server->fs_lock));
	afs_get_addrlist(alist);
	read_unlock(&server->fs_lock);

	afs_end_cursor(&op->ac);
	memset(&op->ac, 0, sizeof(op->ac));
	op->ac.alist = alist;
	op->ac.index = -1;
}

/*
 * Pick the untried server with the lowest RTT, keeping to the current one if
 * it is untried.  Return 1 with the cursor set up, 0 with @in set to the next
 * event, or a negative error.
 */
static int afs_rotate_pick_server(struct afs_operation *op,
				  struct afs_rotate_outcome *in)
{
	struct afs_vnode *vnode = op->file[0].vnode;
	struct afs_server *server;
	struct afs_error e;
	u32 rtt;
	int error, i;

	afs_end_cursor(&op->ac);

	error = afs_wait_for_fs_probes(op->server_list, op->untried);
	if (error < 0)
		return error;

	if (!op->server || !test_bit(op->index, &op->untried)) {
		op->server = NULL;
		op->index = -1;
		rtt = U32_MAX;
		for (i = 0; i < op->server_list->nr_servers; i++) {
			struct afs_server *s = op->server_list->servers[i].server;

			if (!test_bit(i, &op->untried) ||
			    !test_bit(AFS_SERVER_FL_RESPONDING, &s->flags))
				continue;
			if (s->probe.rtt < rtt) {
				op->index = i;
				rtt = s->probe.rtt;
			}
		}
	}

	if (op->index < 0) {
		/* Out of servers: what did their probes say? */
		e.error = 0;
		e.responded = false;
		for (i = 0; i < op->server_list->nr_servers; i++) {
			struct afs_server *s = op->server_list->servers[i].server;

			afs_prioritise_error(&e, READ_ONCE(s->probe.error),
					     s->probe.abort_code);
		}
		in->event = AFS_ROTATE_NO_SERVERS;
		in->error = e.error;
		return 0;
	}

	__clear_bit(op->index, &op->untried);
	server = op->server_list->servers[op->index].server;
	op->error = 0;
	if (!afs_check_server_record(op, server))
		return op->error ?: -ESTALE;	/* It sets op->error at times */

	_debug("USING SERVER: %pU", &server->uuid);

	op->flags |= AFS_OPERATION_RETRY_SERVER;
	op->server = server;
	if (vnode->cb_server != server) {
		vnode->cb_server = server;
		vnode->cb_s_break = server->cb_s_break;
		vnode->cb_fs_s_break = atomic_read(&server->cell->fs_s_break);
		vnode->cb_v_break = vnode->volume->cb_v_break;
		clear_bit(AFS_VNODE_CB_PROMISED, &vnode->flags);
	}

	afs_rotate_reset_cursor(op);
	return 1;
}

/* (Re)start: bring the volume record up to date and read its server list. */
static int afs_rotate_start(struct afs_operation *op)
{
	int error;

	if (op->server_list)
		afs_rotate_drop_servers(op);

	error = afs_check_volume_status(op->volume, op);
	if (error < 0)
		return error;
	return afs_start_fs_iteration(op, op->file[0].vnode);
}

static void afs_rotate_step_failed(struct afs_rotate_outcome *in, int error)
{
	in->event = AFS_ROTATE_STEP_FAILED;
	in->error = error;
}

/**
 * afs_select_fileserver - Choose where to send an operation's next call
 * @op: The operation
 *
 * Called before the first call and after each call.  Decides from the last
 * call's result what to do (see afs_rotate_decide()) and does it.
 *
 * Return: true with @op->server and @op->ac set for the next call, or false
 * when the operation is over, with @op->error set.
 */
bool afs_select_fileserver(struct afs_operation *op)
{
	struct afs_rotate_outcome in = {};
	struct afs_rotate_state state;
	struct afs_rotate_decision d;
	bool volume_rw = op->volume->type == AFSVL_RWVOL;
	int ret;

	_enter("%lx[%d],%lx[%d],%d,%d",
	       op->untried, op->index, op->ac.tried, op->ac.index,
	       op->ac.error, op->ac.abort_code);

	if (op->flags & AFS_OPERATION_STOP) {
		_leave(" = f [stopped]");
		return false;
	}

	op->nr_iterations++;

	if (op->ac.error == SHRT_MAX) {
		in.event = AFS_ROTATE_BEGIN;
	} else {
		in.event = AFS_ROTATE_CALL_DONE;
		in.error = op->ac.error;
		in.abort_code = op->ac.abort_code;
	}

	for (;;) {
		u32 abort_code = in.abort_code;

		in.volume_rw = volume_rw;
		state.flags = op->flags;
		state.error = op->rotate_error;
		state.busy_rounds = op->nr_busy_rounds;
		d = afs_rotate_decide(&state, &in);
		op->flags = state.flags;
		op->rotate_error = state.error;
		op->nr_busy_rounds = state.busy_rounds;
		afs_rotate_record(op, d.note);

		_debug("event %u -> action %u, error %d", in.event, d.action, d.error);
		memset(&in, 0, sizeof(in));

		if ((d.action == AFS_ROTATE_SLEEP_RETRY ||
		     d.action == AFS_ROTATE_SLEEP_START) &&
		    !afs_rotate_sleep(op)) {
			in.event = AFS_ROTATE_INTERRUPTED;
			continue;
		}

		switch (d.action) {
		case AFS_ROTATE_SUCCEED:
		case AFS_ROTATE_FAIL:
			op->error = d.error;
			afs_end_cursor(&op->ac);
			_leave(" = f [%d]", op->error);
			return false;

		case AFS_ROTATE_SLEEP_RETRY:
		case AFS_ROTATE_RETRY:
			_leave(" = t [retry]");
			return true;

		case AFS_ROTATE_SLEEP_START:
		case AFS_ROTATE_START:
			ret = afs_rotate_start(op);
			if (ret < 0) {
				afs_rotate_step_failed(&in, ret);
				continue;
			}
			break;	/* To pick a server */

		case AFS_ROTATE_UPDATE_VLDB:
			in.event = AFS_ROTATE_VLDB_UPDATED;
			in.abort_code = abort_code;
			in.error = afs_check_volume_status(op->volume, op);
			in.volume_deleted = test_bit(AFS_VOLUME_DELETED,
						     &op->volume->flags);
			in.servers_changed =
				rcu_access_pointer(op->volume->servers) !=
				op->server_list;
			continue;

		case AFS_ROTATE_PROBE:
			afs_probe_fileserver(op->net, op->server);
			in.event = AFS_ROTATE_PROBED;
			in.error = afs_wait_for_one_fs_probe(op->server,
							     !(op->flags & AFS_OPERATION_UNINTR));
			continue;

		case AFS_ROTATE_RETRY_SERVER:
			afs_rotate_reset_cursor(op);
			fallthrough;
		case AFS_ROTATE_NEXT_ADDRESS:
			if (afs_iterate_addresses(&op->ac))
				goto use_address;
			in.event = AFS_ROTATE_NO_ADDRESSES;
			continue;

		case AFS_ROTATE_NEXT_SERVER:
		default:
			break;	/* To pick a server */
		}

		ret = afs_rotate_pick_server(op, &in);
		if (ret < 0) {
			afs_rotate_step_failed(&in, ret);
			continue;
		}
		if (ret == 0)
			continue;
		if (afs_iterate_addresses(&op->ac))
			goto use_address;
		in.event = AFS_ROTATE_NO_ADDRESSES;
	}

use_address:
	_debug("address [%u] %u/%u %pISp",
	       op->index, op->ac.index, op->ac.alist->nr_addrs,
	       &op->ac.alist->addrs[op->ac.index].transport);
	_leave(" = t");
	return true;
}

/**
 * afs_dump_edestaddrreq - Dump the rotation state when no server was reached
 * @op: The operation
 *
 * Only with CONFIG_AFS_DEBUG_CURSOR, and only the first few times.
 */
void afs_dump_edestaddrreq(const struct afs_operation *op)
{
	static int count;
	int i;

	if (!IS_ENABLED(CONFIG_AFS_DEBUG_CURSOR) || count > 3)
		return;
	count++;

	rcu_read_lock();

	pr_notice("EDESTADDR occurred\n");
	pr_notice("FC: cbb=%x cbb2=%x fl=%x err=%d\n",
		  op->file[0].cb_break_before,
		  op->file[1].cb_break_before, op->flags, op->error);
	pr_notice("FC: ut=%lx ix=%d ni=%u br=%u\n",
		  op->untried, op->index, op->nr_iterations, op->nr_busy_rounds);

	if (op->server_list) {
		const struct afs_server_list *sl = op->server_list;

		pr_notice("FC: SL nr=%u pr=%u vnov=%x\n",
			  sl->nr_servers, sl->preferred, sl->vnovol_mask);
		for (i = 0; i < sl->nr_servers; i++) {
			const struct afs_server *s = sl->servers[i].server;
			const struct afs_addr_list *a = rcu_dereference(s->addresses);

			pr_notice("FC: server fl=%lx av=%u %pU\n",
				  s->flags, s->addr_version, &s->uuid);
			if (!a)
				continue;
			pr_notice("FC:  - av=%u nr=%u/%u/%u pr=%u\n",
				  a->version, a->nr_ipv4, a->nr_addrs,
				  a->max_addrs, a->preferred);
			pr_notice("FC:  - R=%lx F=%lx\n", a->responded, a->failed);
			if (a == op->ac.alist)
				pr_notice("FC:  - current\n");
		}
	}

	pr_notice("AC: t=%lx ax=%u ac=%d er=%d r=%u ni=%u\n",
		  op->ac.tried, op->ac.index, op->ac.abort_code, op->ac.error,
		  op->ac.responded, op->ac.nr_iterations);
	rcu_read_unlock();
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/rotate_kunit.c"
#endif
