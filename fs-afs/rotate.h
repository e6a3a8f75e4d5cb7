/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fileserver rotation: the decision half.
 *
 * afs_rotate_decide() maps what just happened (an outcome) and the rotation
 * state to what to do next (an action), with the error to report.  It does
 * no I/O, sleeps on nothing and allocates nothing, so every transition can be
 * checked by a table.  afs_select_fileserver() carries the actions out.
 */

#ifndef AFS_ROTATE_H
#define AFS_ROTATE_H

#include <linux/types.h>

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
	NR__AFS_ROTATE_EVENTS
};

/* What to do next. */
enum afs_rotate_action {
	AFS_ROTATE_START,		/* (Re)read the server list, pick a server */
	AFS_ROTATE_RETRY,		/* Same server, same address */
	AFS_ROTATE_NEXT_ADDRESS,	/* Same server, next address */
	AFS_ROTATE_RETRY_SERVER,	/* Same server, its addresses afresh */
	AFS_ROTATE_NEXT_SERVER,		/* The next untried server */
	AFS_ROTATE_UPDATE_VLDB,		/* Refresh the volume record */
	AFS_ROTATE_PROBE,		/* Re-probe the current server */
	AFS_ROTATE_SLEEP_RETRY,		/* Sleep, then RETRY */
	AFS_ROTATE_SLEEP_START,		/* Sleep, then START */
	AFS_ROTATE_SUCCEED,		/* Stop: the call succeeded */
	AFS_ROTATE_FAIL,		/* Stop with the decision's error */
	NR__AFS_ROTATE_ACTIONS
};

/* What the driver should record about the volume or server. */
enum afs_rotate_note {
	AFS_ROTATE_NOTE_NONE,
	AFS_ROTATE_NOTE_OFFLINE,	/* The volume is offline */
	AFS_ROTATE_NOTE_BUSY,		/* The volume is busy */
	AFS_ROTATE_NOTE_ONLINE,		/* Neither offline nor busy any more */
	AFS_ROTATE_NOTE_NO_VOLUME,	/* This server lacks the volume */
	AFS_ROTATE_NOTE_MOVED,		/* The volume moved */
};

/*
 * Busy servers are retried in rounds: after every server has been tried and
 * at least one said it was busy, sleep and start again.  A file lock pins
 * the operation to one server, which is then retried after each sleep.
 * Either way the rounds are bounded, after which the operation gets -EBUSY.
 */
#define AFS_ROTATE_BUSY_SLEEP_MS	1000
#define AFS_ROTATE_MAX_BUSY_ROUNDS	30

struct afs_rotate_outcome {
	enum afs_rotate_event	event;
	int			error;		/* The call's or the step's */
	u32			abort_code;	/* CALL_DONE, VLDB_UPDATED */
	bool			volume_rw;	/* The volume is read-write */
	bool			volume_deleted;	/* VLDB_UPDATED: the volume is gone */
	bool			servers_changed; /* VLDB_UPDATED: a new server list */
};

struct afs_rotate_state {
	unsigned int		flags;		/* AFS_OPERATION_* */
	int			error;		/* Most meaningful error so far */
	unsigned int		busy_rounds;	/* Sleeps for busy servers so far */
};

struct afs_rotate_decision {
	enum afs_rotate_action	action;
	enum afs_rotate_note	note;
	int			error;		/* FAIL: the error to report */
};

struct afs_rotate_decision afs_rotate_decide(struct afs_rotate_state *state,
					     const struct afs_rotate_outcome *in);

#endif /* AFS_ROTATE_H */
