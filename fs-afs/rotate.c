// SPDX-License-Identifier: GPL-2.0-or-later
/* Fileserver selection and rotation.
 *
 * Copyright (C) 2017 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * Reworked for the kAFS overlay: the decision split from the driver.
 *
 * After each call to a fileserver we decide whether to retry the same
 * address, try the next address or the next server, refresh the volume's
 * record from the VLDB, sleep, or give up, and with which error.
 *
 * afs_rotate_decide() makes that decision from what just happened and the
 * rotation's own state in the operation (op->flags, op->rotate_error,
 * op->nr_busy_rounds), and touches nothing else: no I/O, no sleep, no
 * allocation, no logging, so every transition is a row of a table (see
 * docs/rotation.md and the suite at the end).  afs_select_fileserver() is the
 * driver that carries out its actions and reports what came of them.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/fs.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/rxrpc.h>
#include "internal.h"
#include "afs_fs.h"
#include "protocol_uae.h"

/*
 * Busy servers are retried in rounds: once every server has been tried and at
 * least one said it was busy (or too slow to finish the call), sleep and start
 * again.  A file lock pins the operation to one server, which is then retried
 * after each sleep.  Either way the rounds are bounded: a fileserver that is
 * restarting or salvaging a volume usually answers within tens of seconds.
 */
#define AFS_ROTATE_BUSY_SLEEP_MS	1000
#define AFS_ROTATE_MAX_BUSY_ROUNDS	30

/* What just happened. */
enum afs_rotate_event {
	AFS_ROTATE_BEGIN,		/* Nothing has been tried yet */
	AFS_ROTATE_CALL_DONE,		/* A call ended: error, abort_code */
	AFS_ROTATE_VLDB_UPDATED,	/* The volume record was refreshed */
	AFS_ROTATE_NO_ADDRESSES,	/* The server has no address left */
	AFS_ROTATE_PROBED,		/* The server was re-probed: error */
	AFS_ROTATE_NO_SERVERS,		/* Every server was tried: error */
	AFS_ROTATE_STEP_FAILED,		/* The driver could not act: error */
	AFS_ROTATE_INTERRUPTED,		/* A signal came during a sleep */
};

/* What to do next. */
enum afs_rotate_action {
	AFS_ROTATE_START,		/* (Re)read the server list, pick a server */
	AFS_ROTATE_RETRY,		/* Same server, same address */
	AFS_ROTATE_NEXT_ADDRESS,	/* Same server, next address */
	AFS_ROTATE_RETRY_SERVER,	/* Same server, its addresses afresh */
	AFS_ROTATE_NEXT_SERVER,		/* The next untried server */
	AFS_ROTATE_UPDATE_VLDB,		/* Refresh the volume record */
	AFS_ROTATE_PROBE,		/* Re-probe the server and wait for it */
	AFS_ROTATE_PROBE_NEXT_SERVER,	/* Re-probe it for later; next server */
	AFS_ROTATE_PROBE_UNANSWERED,	/* Probe the silent servers, pick again */
	AFS_ROTATE_SLEEP_RETRY,		/* Sleep, then RETRY */
	AFS_ROTATE_SLEEP_START,		/* Sleep, then START */
	AFS_ROTATE_SUCCEED,		/* Stop: the call succeeded */
	AFS_ROTATE_FAIL,		/* Stop with the decision's error */
};

/* What the driver should record or say. */
enum afs_rotate_note {
	AFS_ROTATE_NOTE_NONE,
	AFS_ROTATE_NOTE_OFFLINE,	/* The volume is offline */
	AFS_ROTATE_NOTE_BUSY,		/* The volume is busy */
	AFS_ROTATE_NOTE_ONLINE,		/* Neither offline nor busy any more */
	AFS_ROTATE_NOTE_NO_VOLUME,	/* This server lacks the volume */
	AFS_ROTATE_NOTE_MOVED,		/* The volume moved */
	AFS_ROTATE_NOTE_UNEXPECTED,	/* An abort a fileserver should not send */
	AFS_ROTATE_NOTE_PEER_RESET,	/* The server lost track of our calls */
};

struct afs_rotate_outcome {
	enum afs_rotate_event	event;
	int			error;		/* The call's, the probe's, ... */
	u32			abort_code;	/* CALL_DONE, VLDB_UPDATED */
	bool			volume_rw;	/* CALL_DONE: a read-write volume */
	bool			volume_deleted;	/* VLDB_UPDATED: the volume is gone */
	bool			servers_changed; /* VLDB_UPDATED: a new server list */
	bool			unanswered;	/* NO_SERVERS: some skipped, silent */
};

struct afs_rotate_decision {
	enum afs_rotate_action	action;
	enum afs_rotate_note	note;
	int			error;		/* SUCCEED, FAIL: for op->error */
};

/* Remember @error if it says as much as the one remembered, or more. */
static void afs_rotate_note_error(struct afs_operation *op, int error)
{
	if (afs_error_rank(error) >= afs_error_rank(op->rotate_error))
		op->rotate_error = error;
}

static struct afs_rotate_decision afs_rotate_act(enum afs_rotate_action action)
{
	return (struct afs_rotate_decision){ .action = action };
}

static struct afs_rotate_decision afs_rotate_fail(struct afs_operation *op,
						  int error)
{
	op->rotate_error = error;
	op->flags |= AFS_OPERATION_STOP;
	return (struct afs_rotate_decision){ .action = AFS_ROTATE_FAIL,
					     .error = error };
}

static struct afs_rotate_decision afs_rotate_next(struct afs_operation *op,
						  int error)
{
	afs_rotate_note_error(op, error);
	return afs_rotate_act(AFS_ROTATE_NEXT_SERVER);
}

/*
 * The volume is busy or offline on this server, or the server was too slow to
 * finish the call: @error says which.  A file lock pins us to the server: sleep
 * and retry it.  Otherwise try the others and come back to this one after a
 * sleep at the end of the round.
 */
static struct afs_rotate_decision afs_rotate_busy(struct afs_operation *op,
						  enum afs_rotate_note note,
						  int error)
{
	struct afs_rotate_decision d;

	if (op->flags & AFS_OPERATION_NO_VSLEEP) {
		d = afs_rotate_fail(op, error);
	} else if (!(op->flags & AFS_OPERATION_CUR_ONLY)) {
		d = afs_rotate_next(op, error);
		op->flags |= AFS_OPERATION_VBUSY;
	} else if (op->nr_busy_rounds >= AFS_ROTATE_MAX_BUSY_ROUNDS) {
		d = afs_rotate_fail(op, error);
	} else {
		op->nr_busy_rounds++;
		d = afs_rotate_act(AFS_ROTATE_SLEEP_RETRY);
	}

	d.note = note;
	return d;
}

/* A fileserver aborted the call. */
static struct afs_rotate_decision afs_rotate_aborted(struct afs_operation *op,
						     const struct afs_rotate_outcome *in)
{
	struct afs_rotate_decision d;

	switch (in->abort_code) {
	case VNOVOL:
		/* The server does not know the volume: perhaps the VLDB is
		 * out of date; check it once.
		 */
		if (op->flags & AFS_OPERATION_VNOVOL)
			return afs_rotate_next(op, -EREMOTEIO);
		d = afs_rotate_act(AFS_ROTATE_UPDATE_VLDB);
		d.note = AFS_ROTATE_NOTE_NO_VOLUME;
		return d;

	case VMOVED:
		/* Follow one move; a second one may be a loop. */
		if (op->flags & AFS_OPERATION_VMOVED)
			return afs_rotate_fail(op, -EREMOTEIO);
		op->flags |= AFS_OPERATION_VMOVED;
		d = afs_rotate_act(AFS_ROTATE_UPDATE_VLDB);
		d.note = AFS_ROTATE_NOTE_MOVED;
		return d;

	case VVOLEXISTS:
	case VONLINE:
		d = afs_rotate_next(op, -EREMOTEIO);
		d.note = AFS_ROTATE_NOTE_UNEXPECTED;
		return d;

	case VNOSERVICE:
	case RX_CALL_TIMEOUT:
		/* The server gave up on the call, having heard nothing from
		 * us for too long (the OpenAFS fileserver's idle-dead abort is
		 * VNOSERVICE): it is overloaded, or we are.  Wait for it as for
		 * a busy one.
		 */
		return afs_rotate_busy(op, AFS_ROTATE_NOTE_NONE, -ETIMEDOUT);

	case VOFFLINE:
	case VSALVAGE:
		return afs_rotate_busy(op, AFS_ROTATE_NOTE_OFFLINE, -EBUSY);

	case VBUSY:
	case VRESTARTING:
	case VSALVAGING:
		return afs_rotate_busy(op, AFS_ROTATE_NOTE_BUSY, -EBUSY);

	case VIO:
	case UAEIO:
		/* Another replica of a read-only volume may be sound. */
		if (!in->volume_rw)
			return afs_rotate_next(op, -EREMOTEIO);
		return afs_rotate_fail(op, -EREMOTEIO);

	case VDISKFULL:
	case UAENOSPC:
		return afs_rotate_fail(op, -ENOSPC);

	case VOVERQUOTA:
	case UAEDQUOT:
		return afs_rotate_fail(op, -EDQUOT);

	default:
		/* The server's answer to the operation itself (no such file,
		 * permission denied, ...): it reaches afs_wait_for_operation()
		 * as the abort, for the operation's ->aborted() hook, and is
		 * turned into an errno by afs_end_vnode_operation().
		 */
		d = afs_rotate_fail(op, -ECONNABORTED);
		d.note = AFS_ROTATE_NOTE_ONLINE;
		return d;
	}
}

/* A call ended, or the operation could not make one. */
static struct afs_rotate_decision afs_rotate_call_done(struct afs_operation *op,
						       const struct afs_rotate_outcome *in)
{
	struct afs_rotate_decision d;

	switch (in->error) {
	case 0:
		op->rotate_error = 0;
		op->flags |= AFS_OPERATION_STOP;
		return afs_rotate_act(AFS_ROTATE_SUCCEED);

	case -ECONNABORTED:
		return afs_rotate_aborted(op, in);

	case -ETIMEDOUT:
	case -ETIME:
	case -ERFKILL:
	case -EADDRNOTAVAIL:
	case -ENETUNREACH:
	case -EHOSTUNREACH:
	case -EHOSTDOWN:
	case -ECONNREFUSED:
		/* This address did not answer; another may. */
		afs_rotate_note_error(op, in->error);
		return afs_rotate_act(AFS_ROTATE_NEXT_ADDRESS);

	case -ENETRESET:
		d = afs_rotate_fail(op, in->error);
		d.note = AFS_ROTATE_NOTE_PEER_RESET;
		return d;

	case -ECONNRESET:
	default:
		/* The call may have done something, or we cannot go on. */
		return afs_rotate_fail(op, in->error);
	}
}

/* The volume record was refreshed after a VNOVOL or a VMOVED. */
static struct afs_rotate_decision afs_rotate_updated(struct afs_operation *op,
						     const struct afs_rotate_outcome *in)
{
	if (in->error < 0)
		return afs_rotate_fail(op, in->error);
	if (in->volume_deleted)
		return afs_rotate_fail(op, -ENOMEDIUM);

	if (in->abort_code == VMOVED) {
		/* The VLDB still names the server that sent us away. */
		if (!in->servers_changed)
			return afs_rotate_fail(op, -ENOMEDIUM);
		return afs_rotate_act(AFS_ROTATE_START);
	}

	/* VNOVOL: an unchanged list means the server has the trouble. */
	if (!in->servers_changed)
		return afs_rotate_next(op, -EREMOTEIO);
	op->flags |= AFS_OPERATION_VNOVOL;
	return afs_rotate_act(AFS_ROTATE_RETRY);
}

/* Every server has been tried. */
static struct afs_rotate_decision afs_rotate_no_servers(struct afs_operation *op,
							const struct afs_rotate_outcome *in)
{
	if (op->flags & AFS_OPERATION_VBUSY) {
		op->flags &= ~AFS_OPERATION_VBUSY;
		if (op->nr_busy_rounds >= AFS_ROTATE_MAX_BUSY_ROUNDS)
			return afs_rotate_fail(op, op->rotate_error ?: -EBUSY);
		op->nr_busy_rounds++;
		return afs_rotate_act(AFS_ROTATE_SLEEP_START);
	}

	/* A server that did not answer its last probe was not tried: it may
	 * have come back since (a restarted fileserver is otherwise ignored
	 * until its next periodic probe).  Probe such servers once.
	 */
	if (in->unanswered && !(op->flags & AFS_OPERATION_TRIED_ALL)) {
		op->flags |= AFS_OPERATION_TRIED_ALL;
		return afs_rotate_act(AFS_ROTATE_PROBE_UNANSWERED);
	}

	/* What the calls said, or failing that what the probes said. */
	afs_rotate_note_error(op, in->error);
	return afs_rotate_fail(op, op->rotate_error ?: -EDESTADDRREQ);
}

/*
 * Decide the next step of a fileserver rotation from what just happened.
 * Reads and updates op->flags, op->rotate_error and op->nr_busy_rounds, and
 * nothing else.  For SUCCEED and FAIL, the error is the operation's result.
 */
static struct afs_rotate_decision afs_rotate_decide(struct afs_operation *op,
						    const struct afs_rotate_outcome *in)
{
	switch (in->event) {
	case AFS_ROTATE_BEGIN:
		return afs_rotate_act(AFS_ROTATE_START);

	case AFS_ROTATE_CALL_DONE:
		return afs_rotate_call_done(op, in);

	case AFS_ROTATE_VLDB_UPDATED:
		return afs_rotate_updated(op, in);

	case AFS_ROTATE_NO_ADDRESSES:
		/* Re-probe the server each time, so that its record is fresh
		 * for later operations, but wait for the probe and retry the
		 * server only once.
		 */
		if (op->flags & AFS_OPERATION_RETRY_SERVER) {
			op->flags &= ~AFS_OPERATION_RETRY_SERVER;
			return afs_rotate_act(AFS_ROTATE_PROBE);
		}
		return afs_rotate_act(AFS_ROTATE_PROBE_NEXT_SERVER);

	case AFS_ROTATE_PROBED:
		if (in->error == 0)
			return afs_rotate_act(AFS_ROTATE_RETRY_SERVER);
		if (in->error == -ERESTARTSYS)
			return afs_rotate_fail(op, -ERESTARTSYS);
		return afs_rotate_act(AFS_ROTATE_NEXT_SERVER);

	case AFS_ROTATE_NO_SERVERS:
		return afs_rotate_no_servers(op, in);

	case AFS_ROTATE_INTERRUPTED:
		return afs_rotate_fail(op, -ERESTARTSYS);

	case AFS_ROTATE_STEP_FAILED:
	default:
		return afs_rotate_fail(op, in->error ?: -EIO);
	}
}

/*
 * The driver.
 */

static const char *const afs_rotate_event_names[] = {
	[AFS_ROTATE_BEGIN]		= "begin",
	[AFS_ROTATE_CALL_DONE]		= "call",
	[AFS_ROTATE_VLDB_UPDATED]	= "VLDB update",
	[AFS_ROTATE_NO_ADDRESSES]	= "no address",
	[AFS_ROTATE_PROBED]		= "probe",
	[AFS_ROTATE_NO_SERVERS]		= "no server",
	[AFS_ROTATE_STEP_FAILED]	= "step",
	[AFS_ROTATE_INTERRUPTED]	= "signal",
};

static const char *const afs_rotate_action_names[] = {
	[AFS_ROTATE_START]		= "start",
	[AFS_ROTATE_RETRY]		= "retry",
	[AFS_ROTATE_NEXT_ADDRESS]	= "next address",
	[AFS_ROTATE_RETRY_SERVER]	= "retry server",
	[AFS_ROTATE_NEXT_SERVER]	= "next server",
	[AFS_ROTATE_UPDATE_VLDB]	= "update from the VLDB",
	[AFS_ROTATE_PROBE]		= "probe",
	[AFS_ROTATE_PROBE_NEXT_SERVER]	= "probe, next server",
	[AFS_ROTATE_PROBE_UNANSWERED]	= "probe the silent servers",
	[AFS_ROTATE_SLEEP_RETRY]	= "sleep, retry",
	[AFS_ROTATE_SLEEP_START]	= "sleep, start again",
	[AFS_ROTATE_SUCCEED]		= "succeed",
	[AFS_ROTATE_FAIL]		= "fail",
};

/*
 * Begin iteration through a server list, starting with the server that holds
 * the vnode's callback promise (and any lock on it) if it is still listed,
 * else the one that answered its probe fastest.
 */
static int afs_start_fs_iteration(struct afs_operation *op,
				  struct afs_vnode *vnode)
{
	struct afs_volume *volume = op->volume;
	struct afs_server_list *slist;
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
		if (op->server_list->servers[i].server == cb_server) {
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

static const char *afs_rotate_busy_state(u32 abort_code)
{
	switch (abort_code) {
	case VOFFLINE:		return "offline";
	case VRESTARTING:	return "restarting";
	case VSALVAGING:	return "being salvaged";
	case VSALVAGE:		return "in need of salvage";
	default:		return "busy";
	}
}

/* Record a decision's note on the volume, and say what needs saying. */
static void afs_rotate_record(struct afs_operation *op,
			      const struct afs_rotate_outcome *in,
			      const struct afs_rotate_decision *d)
{
	struct afs_volume *volume = op->volume;

	/* Calls that did not simply succeed or get the server's answer to
	 * the operation, and operations the driver could not carry on: what
	 * happened and what is done about it.
	 */
	if ((in->event == AFS_ROTATE_CALL_DONE && in->error &&
	     in->error != -ERESTARTSYS && in->error != -EINTR &&
	     d->note != AFS_ROTATE_NOTE_ONLINE) ||
	    (in->event != AFS_ROTATE_CALL_DONE && d->action == AFS_ROTATE_FAIL &&
	     d->error != -ERESTARTSYS))
		pr_info_ratelimited("kAFS: %s (op=%x): %s error %d abort %d: %s %d\n",
				    op->type ? op->type->name : "???", op->debug_id,
				    afs_rotate_event_names[in->event],
				    in->error, in->abort_code,
				    afs_rotate_action_names[d->action], d->error);

	switch (d->note) {
	case AFS_ROTATE_NOTE_NONE:
		return;
	case AFS_ROTATE_NOTE_OFFLINE:
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
		/* Not AFS_VOLUME_WAIT, as 6.1 does: afs_check_volume_status()
		 * would wait for it before updating, and only an update clears
		 * it, so the operation slept until a signal came.
		 */
		set_bit(AFS_VOLUME_NEEDS_UPDATE, &volume->flags);
		return;
	case AFS_ROTATE_NOTE_UNEXPECTED:
		pr_warn_ratelimited("kAFS: Unexpected abort %d from a fileserver (op=%x)\n",
				    in->abort_code, op->debug_id);
		return;
	case AFS_ROTATE_NOTE_PEER_RESET:
		pr_warn("kAFS: Peer reset %s (op=%x)\n",
			op->type ? op->type->name : "???", op->debug_id);
		return;
	}

	pr_notice("kAFS: Volume %llu '%s' is %s\n",
		  volume->vid, volume->name, afs_rotate_busy_state(in->abort_code));
}

/*
 * Sleep between rounds; false if a signal cut the sleep short.  An operation
 * that must not be interrupted (a store from writeback, a lock release) can
 * still be killed: its task is going away, and a store's pages stay dirty.
 */
static bool afs_rotate_sleep(struct afs_operation *op)
{
	long timeout = msecs_to_jiffies(AFS_ROTATE_BUSY_SLEEP_MS);

	if (op->flags & AFS_OPERATION_UNINTR) {
		schedule_timeout_killable(timeout);
		return !fatal_signal_pending(current);
	}
	schedule_timeout_interruptible(timeout);
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
	op->ac = (struct afs_addr_cursor){ .alist = alist, .index = -1 };
}

static struct afs_rotate_outcome afs_rotate_event(enum afs_rotate_event event,
						  int error)
{
	return (struct afs_rotate_outcome){ .event = event, .error = error };
}

/* Out of servers: the most meaningful of what their probes said. */
static int afs_rotate_probe_error(const struct afs_operation *op)
{
	int best = 0, error, i;

	for (i = 0; i < op->server_list->nr_servers; i++) {
		const struct afs_server *s = op->server_list->servers[i].server;

		error = READ_ONCE(s->probe.error);
		if (error == -ECONNABORTED)
			error = afs_abort_to_error(READ_ONCE(s->probe.abort_code));
		if (afs_error_rank(error) > afs_error_rank(best))
			best = error;
	}
	return best;
}

/*
 * Whether any untried server was skipped for not answering its last probe;
 * with @probe, probe each of them now.  afs_rotate_pick_server() waits for
 * those probes.
 */
static bool afs_rotate_probe_unanswered(struct afs_operation *op, bool probe)
{
	bool found = false;
	int i;

	for (i = 0; i < op->server_list->nr_servers; i++) {
		struct afs_server *s = op->server_list->servers[i].server;

		if (!test_bit(i, &op->untried) ||
		    test_bit(AFS_SERVER_FL_RESPONDING, &s->flags))
			continue;
		found = true;
		if (probe)
			afs_probe_fileserver(op->net, s);
	}
	return found;
}

/*
 * Pick a server: the current one if it is untried and answers probes (after
 * START, the one afs_start_fs_iteration() chose), else the untried one with
 * the lowest RTT, and aim the address cursor at it.  Return true with an
 * address to use, or false with @in set to what happened instead.
 */
static bool afs_rotate_pick_server(struct afs_operation *op,
				   struct afs_rotate_outcome *in)
{
	struct afs_vnode *vnode = op->file[0].vnode;
	struct afs_server *server;
	u32 rtt;
	int error, i;

	afs_end_cursor(&op->ac);

	error = afs_wait_for_fs_probes(op->server_list, op->untried);
	if (error < 0) {
		*in = afs_rotate_event(AFS_ROTATE_STEP_FAILED, error);
		return false;
	}

	if (op->index < 0 || op->index >= op->server_list->nr_servers ||
	    !test_bit(op->index, &op->untried) ||
	    !test_bit(AFS_SERVER_FL_RESPONDING,
		      &op->server_list->servers[op->index].server->flags)) {
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
		op->server = NULL;
		*in = afs_rotate_event(AFS_ROTATE_NO_SERVERS,
				       afs_rotate_probe_error(op));
		in->unanswered = afs_rotate_probe_unanswered(op, false);
		return false;
	}

	__clear_bit(op->index, &op->untried);
	server = op->server_list->servers[op->index].server;
	op->server = server;
	op->error = 0;
	if (!afs_check_server_record(op, server)) {
		/* It sets op->error at times. */
		*in = afs_rotate_event(AFS_ROTATE_STEP_FAILED, op->error ?: -ESTALE);
		return false;
	}

	_debug("USING SERVER: %pU", &server->uuid);

	op->flags |= AFS_OPERATION_RETRY_SERVER;
	if (vnode->cb_server != server) {
		vnode->cb_server = server;
		vnode->cb_s_break = server->cb_s_break;
		vnode->cb_fs_s_break = atomic_read(&server->cell->fs_s_break);
		vnode->cb_v_break = vnode->volume->cb_v_break;
		clear_bit(AFS_VNODE_CB_PROMISED, &vnode->flags);
	}

	afs_rotate_reset_cursor(op);
	if (afs_iterate_addresses(&op->ac))
		return true;
	*in = afs_rotate_event(AFS_ROTATE_NO_ADDRESSES, 0);
	return false;
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

/* Refresh the volume record after a VNOVOL or VMOVED from the last call. */
static struct afs_rotate_outcome afs_rotate_update_vldb(struct afs_operation *op)
{
	int error = afs_check_volume_status(op->volume, op);

	return (struct afs_rotate_outcome){
		.event		 = AFS_ROTATE_VLDB_UPDATED,
		.error		 = error,
		.abort_code	 = op->ac.abort_code,
		.volume_deleted	 = test_bit(AFS_VOLUME_DELETED, &op->volume->flags),
		.servers_changed = rcu_access_pointer(op->volume->servers) !=
				   op->server_list,
	};
}

/*
 * Whether an abort in a bulk status reply's record says that the server
 * cannot serve the volume at all, rather than something of one file.
 */
static bool afs_rotate_abort_is_volume_wide(u32 abort_code)
{
	switch (abort_code) {
	case VNOVOL:
	case VMOVED:
	case VOFFLINE:
	case VSALVAGE:
	case VBUSY:
	case VRESTARTING:
	case VSALVAGING:
	case VNOSERVICE:
		return true;
	default:
		return false;
	}
}

/*
 * FS.InlineBulkStatus succeeds as a call and carries a status record, or an
 * abort, for each file; the first is the directory's.  A volume-wide abort
 * there (a replica site taken off line answers VNOVOL) is the server's answer
 * to the whole call, so the reply's records are dropped and the abort is
 * rotated on as if the call had been aborted.  6.1 took it for the
 * directory's own error and failed the lookup (ENOMEDIUM) without trying the
 * volume's other sites.
 */
static u32 afs_rotate_take_record_abort(struct afs_operation *op)
{
	struct afs_status_cb *scb;
	u32 abort_code = op->file[0].scb.status.abort_code;
	int i;

	if (!op->file[0].scb.have_error ||
	    !afs_rotate_abort_is_volume_wide(abort_code))
		return 0;

	for (i = 0; i < max_t(int, op->nr_files, 1); i++) {
		scb = i < 2 ? &op->file[i].scb : &op->more_files[i - 2].scb;
		scb->have_status = false;
		scb->have_error = false;
		scb->have_cb = false;
		scb->status.abort_code = 0;
	}
	return abort_code;
}

/*
 * What became of the address handed out last time.  The issuing function may
 * have made no call at all: afs_op_nomem() leaves only op->error, a missing
 * issuing function only op->ac.error, and neither is a success.
 */
static struct afs_rotate_outcome afs_rotate_call_result(struct afs_operation *op)
{
	int error = op->ac.error;
	u32 abort_code;

	if (!op->call)
		error = error ?: op->error ?: -EIO;
	if (!error) {
		abort_code = afs_rotate_take_record_abort(op);
		if (abort_code) {
			op->ac.abort_code = abort_code;
			op->ac.error = -ECONNABORTED;
			error = -ECONNABORTED;
		}
	}
	return (struct afs_rotate_outcome){
		.event		= AFS_ROTATE_CALL_DONE,
		.error		= error,
		.abort_code	= op->ac.abort_code,
		.volume_rw	= op->volume->type == AFSVL_RWVOL,
	};
}

/**
 * afs_select_fileserver - Choose where to send an operation's next call
 * @op: The operation
 *
 * Called before the first call and after each call.  Decides from the last
 * call's result what to do next (see afs_rotate_decide()) and does it.
 *
 * Return: true with @op->server and @op->ac set for the next call, or false
 * when the operation is over, with @op->error set: 0, an errno, or
 * -ECONNABORTED with the abort code in @op->ac for a fileserver's answer.
 */
bool afs_select_fileserver(struct afs_operation *op)
{
	struct afs_rotate_outcome in;
	struct afs_rotate_decision d;
	int ret;

	_enter("%lx[%d],%lx[%d],%d,%d",
	       op->untried, op->index, op->ac.tried, op->ac.index,
	       op->ac.error, op->ac.abort_code);

	if (op->flags & AFS_OPERATION_STOP) {
		_leave(" = f [stopped]");
		return false;
	}

	op->nr_iterations++;

	if (op->ac.error == SHRT_MAX)
		in = afs_rotate_event(AFS_ROTATE_BEGIN, 0);
	else
		in = afs_rotate_call_result(op);

	for (;;) {
		d = afs_rotate_decide(op, &in);
		afs_rotate_record(op, &in, &d);
		_debug("event %u -> action %u, error %d", in.event, d.action, d.error);

		switch (d.action) {
		case AFS_ROTATE_SUCCEED:
		case AFS_ROTATE_FAIL:
			op->error = d.error;
			afs_end_cursor(&op->ac);
			_leave(" = f [%d]", op->error);
			return false;

		case AFS_ROTATE_SLEEP_RETRY:
			if (!afs_rotate_sleep(op)) {
				in = afs_rotate_event(AFS_ROTATE_INTERRUPTED, 0);
				continue;
			}
			fallthrough;
		case AFS_ROTATE_RETRY:
			goto use_address;

		case AFS_ROTATE_SLEEP_START:
			if (!afs_rotate_sleep(op)) {
				in = afs_rotate_event(AFS_ROTATE_INTERRUPTED, 0);
				continue;
			}
			fallthrough;
		case AFS_ROTATE_START:
			ret = afs_rotate_start(op);
			if (ret < 0) {
				in = afs_rotate_event(AFS_ROTATE_STEP_FAILED, ret);
				continue;
			}
			if (afs_rotate_pick_server(op, &in))
				goto use_address;
			continue;

		case AFS_ROTATE_UPDATE_VLDB:
			in = afs_rotate_update_vldb(op);
			continue;

		case AFS_ROTATE_PROBE:
			afs_probe_fileserver(op->net, op->server);
			ret = afs_wait_for_one_fs_probe(op->server,
							!(op->flags & AFS_OPERATION_UNINTR));
			in = afs_rotate_event(AFS_ROTATE_PROBED, ret);
			continue;

		case AFS_ROTATE_RETRY_SERVER:
			afs_rotate_reset_cursor(op);
			fallthrough;
		case AFS_ROTATE_NEXT_ADDRESS:
			if (afs_iterate_addresses(&op->ac))
				goto use_address;
			in = afs_rotate_event(AFS_ROTATE_NO_ADDRESSES, 0);
			continue;

		case AFS_ROTATE_PROBE_UNANSWERED:
			afs_rotate_probe_unanswered(op, true);
			if (afs_rotate_pick_server(op, &in))
				goto use_address;
			continue;

		case AFS_ROTATE_PROBE_NEXT_SERVER:
			afs_probe_fileserver(op->net, op->server);
			fallthrough;
		case AFS_ROTATE_NEXT_SERVER:
			if (afs_rotate_pick_server(op, &in))
				goto use_address;
			continue;
		}
	}

use_address:
	/* Whatever the issuing function does, the next pass must see it. */
	op->call = NULL;
	op->error = 0;
	op->ac.error = 0;
	op->ac.abort_code = 0;
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
