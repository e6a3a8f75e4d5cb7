// SPDX-License-Identifier: GPL-2.0-or-later
/* Fileserver records.
 *
 * Copyright (C) 2002, 2007 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * A fileserver is known by its UUID, but a UUID is only trusted within a
 * cell: two cells built from one cloned image may well share one.  So a
 * record belongs to one (UUID, cell) pair.  Each network namespace keeps its
 * records in a tree by UUID; records of several cells that share a UUID hang
 * in a chain (->uuid_next, ->uuid_prev) off the one in the tree.  Every
 * record is also on the namespace's procfs list and, by address family, on
 * the lists used to find the server a callback came from.
 *
 * A record has two counts.  ->ref keeps the memory; the tree holds one.
 * ->active counts users (server lists, calls from the server); when it drops
 * to zero the record is left for afs_server_gc_delay seconds, then the
 * manager unpublishes and destroys it.
 *
 * net->servers_outstanding counts what must end before the namespace can
 * go: one for each record from its allocation until its memory is handed to
 * RCU, one for the manager's timer or work while either is pending, and one
 * that the namespace itself holds until afs_purge_servers().  Every path
 * that allocates a record ends in afs_server_free() or afs_discard_server(),
 * which give that count back; a leaked count hangs the namespace's exit.
 */

#include <linux/sched.h>
#include <linux/slab.h>
#include <net/ipv6.h>
#include "afs_fs.h"
#include "internal.h"
#include "protocol_yfs.h"

static unsigned int afs_server_gc_delay = 10;	/* Seconds an unused record is kept */
static atomic_t afs_server_debug_id;

static void afs_queue_server_manager(struct afs_net *net);

/*
 * The order of the UUID tree.
 */
static int afs_server_uuid_cmp(const uuid_t *a, const uuid_t *b)
{
	return memcmp(a, b, sizeof(*a));
}

/*
 * Does @alist hold @srx's transport address (family, address and port)?
 */
static bool afs_addr_list_has(const struct afs_addr_list *alist,
			      const struct sockaddr_rxrpc *srx)
{
	const struct sockaddr_in6 *a6 = &srx->transport.sin6, *b6;
	const struct sockaddr_in *a4 = &srx->transport.sin, *b4;
	unsigned int i;

	if (srx->transport.family == AF_INET6) {
		for (i = alist->nr_ipv4; i < alist->nr_addrs; i++) {
			b6 = &alist->addrs[i].transport.sin6;
			if (a6->sin6_port == b6->sin6_port &&
			    ipv6_addr_equal(&a6->sin6_addr, &b6->sin6_addr))
				return true;
		}
		return false;
	}

	for (i = 0; i < alist->nr_ipv4; i++) {
		b4 = &alist->addrs[i].transport.sin;
		if (a4->sin_port == b4->sin_port &&
		    a4->sin_addr.s_addr == b4->sin_addr.s_addr)
			return true;
	}
	return false;
}

/*
 * Take a use of a record found under RCU, unless its memory is already on
 * its way to being freed.
 */
static struct afs_server *afs_maybe_use_server(struct afs_server *server,
					       enum afs_server_trace reason)
{
	unsigned int a;
	int r;

	if (!__refcount_inc_not_zero(&server->ref, &r))
		return NULL;

	a = atomic_inc_return(&server->active);
	trace_afs_server(server->debug_id, r + 1, a, reason);
	return server;
}

/**
 * afs_find_server - Find the fileserver that a packet came from
 * @net: The network namespace
 * @srx: The packet's source address
 *
 * Used to learn which server sent a cache manager call.  If records of
 * several cells share the address, the first one found is returned.
 *
 * Return: A record with an active use taken, or NULL.
 */
struct afs_server *afs_find_server(struct afs_net *net,
				   const struct sockaddr_rxrpc *srx)
{
	struct hlist_head *list = srx->transport.family == AF_INET6 ?
		&net->fs_addresses6 : &net->fs_addresses4;
	struct afs_server *server = NULL, *s;
	int seq = 1;

	rcu_read_lock();
	do {
		if (server)
			afs_unuse_server_notime(net, server,
						afs_server_trace_put_find_rsq);
		server = NULL;
		seq++;	/* 2 on the first, lockless pass; odd on the locked one */
		read_seqbegin_or_lock(&net->fs_addr_lock, &seq);

		if (srx->transport.family == AF_INET6) {
			hlist_for_each_entry_rcu(s, list, addr6_link) {
				if (afs_addr_list_has(rcu_dereference(s->addresses), srx)) {
					server = s;
					break;
				}
			}
		} else {
			hlist_for_each_entry_rcu(s, list, addr4_link) {
				if (afs_addr_list_has(rcu_dereference(s->addresses), srx)) {
					server = s;
					break;
				}
			}
		}
		if (server)
			server = afs_maybe_use_server(server,
						      afs_server_trace_get_by_addr);
	} while (need_seqretry(&net->fs_addr_lock, seq));
	done_seqretry(&net->fs_addr_lock, seq);
	rcu_read_unlock();
	return server;
}

/*
 * The record in the tree for @uuid (the head of its chain), or NULL.  The
 * caller holds net->fs_lock or is in a read_seqbegin_or_lock() section.
 */
static struct afs_server *afs_server_tree_find(struct afs_net *net,
					       const uuid_t *uuid)
{
	struct rb_node *p = rcu_dereference_raw(net->fs_servers.rb_node);
	struct afs_server *server;
	int diff;

	while (p) {
		server = rb_entry(p, struct afs_server, uuid_rb);
		diff = afs_server_uuid_cmp(uuid, &server->uuid);
		if (diff == 0)
			return server;
		if (diff < 0)
			p = rcu_dereference_raw(p->rb_left);
		else
			p = rcu_dereference_raw(p->rb_right);
	}
	return NULL;
}

/*
 * The record of @cell in the chain that starts at @head, or NULL.
 */
static struct afs_server *afs_server_chain_find(struct afs_server *head,
						const struct afs_cell *cell)
{
	struct afs_server *server;

	for (server = head; server; server = rcu_dereference_raw(server->uuid_next))
		if (server->cell == cell)
			return server;
	return NULL;
}

/**
 * afs_find_server_by_uuid - Find a fileserver by UUID alone
 * @net: The network namespace
 * @uuid: The server's UUID
 *
 * Used when a server names itself in a cache manager call, where the cell
 * is not known.  The caller must hold the RCU read lock.  The record
 * returned heads the chain of records of every cell that shares @uuid
 * (->uuid_next), so that a callback state reset can reach them all.
 *
 * Return: A record with an active use taken, or NULL.
 */
struct afs_server *afs_find_server_by_uuid(struct afs_net *net, const uuid_t *uuid)
{
	struct afs_server *server = NULL;
	int seq = 1;

	_enter("%pU", uuid);

	do {
		if (server)
			afs_unuse_server(net, server, afs_server_trace_put_uuid_rsq);
		seq++;
		read_seqbegin_or_lock(&net->fs_lock, &seq);
		server = afs_server_tree_find(net, uuid);
		if (server)
			server = afs_maybe_use_server(server,
						      afs_server_trace_get_by_uuid);
	} while (need_seqretry(&net->fs_lock, seq));
	done_seqretry(&net->fs_lock, seq);

	_leave(" = %p", server);
	return server;
}

/*
 * Find the record of @uuid in @cell and take a use of it.
 */
static struct afs_server *afs_find_server_in_cell(struct afs_cell *cell,
						  const uuid_t *uuid)
{
	struct afs_net *net = cell->net;
	struct afs_server *server = NULL;
	int seq = 1;

	rcu_read_lock();
	do {
		if (server)
			afs_unuse_server(net, server, afs_server_trace_put_uuid_rsq);
		seq++;
		read_seqbegin_or_lock(&net->fs_lock, &seq);
		server = afs_server_tree_find(net, uuid);
		if (server)
			server = afs_server_chain_find(server, cell);
		if (server)
			server = afs_maybe_use_server(server,
						      afs_server_trace_get_by_uuid);
	} while (need_seqretry(&net->fs_lock, seq));
	done_seqretry(&net->fs_lock, seq);
	rcu_read_unlock();
	return server;
}

/*
 * Put @server on the address lists its address list calls for, and take it
 * off those it no longer needs.  The caller holds net->fs_addr_lock.
 */
static void afs_server_link_addresses(struct afs_net *net,
				      struct afs_server *server,
				      const struct afs_addr_list *alist)
{
	bool want4 = alist->nr_ipv4 > 0;
	bool want6 = alist->nr_addrs > alist->nr_ipv4;

	if (want4 && hlist_unhashed(&server->addr4_link))
		hlist_add_head_rcu(&server->addr4_link, &net->fs_addresses4);
	else if (!want4 && !hlist_unhashed(&server->addr4_link))
		hlist_del_init_rcu(&server->addr4_link);

	if (want6 && hlist_unhashed(&server->addr6_link))
		hlist_add_head_rcu(&server->addr6_link, &net->fs_addresses6);
	else if (!want6 && !hlist_unhashed(&server->addr6_link))
		hlist_del_init_rcu(&server->addr6_link);
}

/*
 * Allocate a record with one use, for the caller, and count it in the
 * namespace.  It is not published until afs_install_server().
 */
static struct afs_server *afs_alloc_server(struct afs_cell *cell,
					   const uuid_t *uuid,
					   struct afs_addr_list *alist)
{
	struct afs_server *server;

	server = kzalloc(sizeof(*server), GFP_KERNEL);
	if (!server)
		return NULL;

	refcount_set(&server->ref, 1);
	atomic_set(&server->active, 1);
	server->debug_id = atomic_inc_return(&afs_server_debug_id);
	RCU_INIT_POINTER(server->addresses, alist);
	server->addr_version = alist->version;
	server->uuid = *uuid;
	rwlock_init(&server->fs_lock);
	INIT_LIST_HEAD(&server->volumes);
	INIT_WORK(&server->initcb_work, afs_server_init_callback_work);
	init_waitqueue_head(&server->probe_wq);
	INIT_LIST_HEAD(&server->probe_link);
	spin_lock_init(&server->probe_lock);
	server->cell = cell;
	server->rtt = UINT_MAX;

	afs_inc_servers_outstanding(cell->net);
	trace_afs_server(server->debug_id, 1, 1, afs_server_trace_alloc);
	return server;
}

/*
 * Free a record that was never published: nothing else can have seen it.
 * The caller's address list reference goes with it.
 */
static void afs_discard_server(struct afs_net *net, struct afs_server *server)
{
	trace_afs_server(server->debug_id, refcount_read(&server->ref),
			 atomic_read(&server->active), afs_server_trace_free);
	afs_put_addrlist(rcu_access_pointer(server->addresses));
	kfree(server);
	afs_dec_servers_outstanding(net);
}

/*
 * Publish @candidate, fresh from afs_alloc_server(), unless a record for its
 * UUID in its cell is already published.  The tree takes a reference on a
 * record it publishes.
 *
 * Return: The published record, with an active use for the caller.  If that
 * is not @candidate, @candidate has been discarded and its count in the
 * namespace given back.
 */
static struct afs_server *afs_install_server(struct afs_cell *cell,
					     struct afs_server *candidate)
{
	struct afs_net *net = cell->net;
	struct afs_server *server, *head, *tail;
	struct rb_node **pp = &net->fs_servers.rb_node, *parent = NULL;
	int diff;

	write_seqlock(&net->fs_lock);

	head = NULL;
	while (*pp) {
		parent = *pp;
		head = rb_entry(parent, struct afs_server, uuid_rb);
		diff = afs_server_uuid_cmp(&candidate->uuid, &head->uuid);
		if (diff == 0)
			break;
		pp = diff < 0 ? &parent->rb_left : &parent->rb_right;
		head = NULL;
	}

	server = head ? afs_server_chain_find(head, cell) : NULL;
	if (server) {
		/* The tree's reference keeps it; fs_lock keeps the manager
		 * from unpublishing it until our use is counted.
		 */
		afs_use_server(server, afs_server_trace_get_install);
		write_sequnlock(&net->fs_lock);
		afs_discard_server(net, candidate);
		return server;
	}

	if (head) {
		/* Same UUID, another cell: the end of the chain. */
		for (tail = head;
		     rcu_access_pointer(tail->uuid_next);
		     tail = rcu_dereference_protected(tail->uuid_next,
						      lockdep_is_held(&net->fs_lock.lock)))
			;
		WRITE_ONCE(candidate->uuid_prev, tail);
		rcu_assign_pointer(tail->uuid_next, candidate);
	} else {
		rb_link_node_rcu(&candidate->uuid_rb, parent, pp);
		rb_insert_color(&candidate->uuid_rb, &net->fs_servers);
	}
	hlist_add_head_rcu(&candidate->proc_link, &net->fs_proc);

	write_seqlock(&net->fs_addr_lock);
	afs_server_link_addresses(net, candidate,
				  rcu_dereference_protected(candidate->addresses,
							    lockdep_is_held(&net->fs_lock.lock)));
	write_sequnlock(&net->fs_addr_lock);

	afs_get_server(candidate, afs_server_trace_get_install);
	write_sequnlock(&net->fs_lock);
	return candidate;
}

/*
 * Take @server out of the tree, its chain and the namespace's lists.  The
 * caller holds net->fs_lock and has seen ->active at zero under it.
 */
static void afs_unpublish_server(struct afs_net *net, struct afs_server *server)
{
	struct afs_server *next, *prev = server->uuid_prev;

	next = rcu_dereference_protected(server->uuid_next,
					 lockdep_is_held(&net->fs_lock.lock));
	if (prev) {
		rcu_assign_pointer(prev->uuid_next, next);
		if (next)
			WRITE_ONCE(next->uuid_prev, prev);
	} else if (next) {
		/* The next of the chain takes this one's place in the tree. */
		rb_replace_node_rcu(&server->uuid_rb, &next->uuid_rb,
				    &net->fs_servers);
		WRITE_ONCE(next->uuid_prev, NULL);
	} else {
		rb_erase(&server->uuid_rb, &net->fs_servers);
	}

	list_del_init(&server->probe_link);
	hlist_del_rcu(&server->proc_link);

	write_seqlock(&net->fs_addr_lock);
	if (!hlist_unhashed(&server->addr4_link))
		hlist_del_rcu(&server->addr4_link);
	if (!hlist_unhashed(&server->addr6_link))
		hlist_del_rcu(&server->addr6_link);
	write_sequnlock(&net->fs_addr_lock);
}

/*
 * Ask the VL servers of @cell for the addresses of the fileserver @uuid.
 */
static struct afs_addr_list *afs_vl_lookup_addrs(struct afs_cell *cell,
						 struct key *key, const uuid_t *uuid)
{
	struct afs_vl_cursor vc;
	struct afs_addr_list *alist = NULL;
	int ret;

	ret = -ERESTARTSYS;
	if (afs_begin_vlserver_operation(&vc, cell, key)) {
		while (afs_select_vlserver(&vc)) {
			if (test_bit(AFS_VLSERVER_FL_IS_YFS, &vc.server->flags))
				alist = afs_yfsvl_get_endpoints(&vc, uuid);
			else
				alist = afs_vl_get_addrs_u(&vc, uuid);
		}

		ret = afs_end_vlserver_operation(&vc);
	}

	return ret < 0 ? ERR_PTR(ret) : alist;
}

/**
 * afs_lookup_server - Get the record of a fileserver of a cell
 * @cell: The cell the server is in
 * @key: The key for the VL servers, if the addresses must be looked up
 * @uuid: The server's UUID
 * @addr_version: The address list version the VLDB entry quoted
 *
 * Find the record of @uuid in @cell, or look the server's addresses up and
 * make one.  Two callers may race to make the same record: one record is
 * published and the other candidate freed, with the namespace's count of
 * records kept balanced on every path.  A record whose address list is older
 * than @addr_version is marked for an update.
 *
 * Return: The record, with an active use for the caller, or an error from the
 * address lookup or -ENOMEM.
 */
struct afs_server *afs_lookup_server(struct afs_cell *cell, struct key *key,
				     const uuid_t *uuid, u32 addr_version)
{
	struct afs_addr_list *alist;
	struct afs_server *server, *candidate;

	_enter("%p,%pU", cell->net, uuid);

	server = afs_find_server_in_cell(cell, uuid);
	if (server) {
		if (server->addr_version != addr_version)
			set_bit(AFS_SERVER_FL_NEEDS_UPDATE, &server->flags);
		return server;
	}

	alist = afs_vl_lookup_addrs(cell, key, uuid);
	if (IS_ERR(alist))
		return ERR_CAST(alist);

	candidate = afs_alloc_server(cell, uuid, alist);
	if (!candidate) {
		afs_put_addrlist(alist);
		return ERR_PTR(-ENOMEM);
	}

	server = afs_install_server(cell, candidate);
	if (server == candidate)
		/* Probe every interface at once; that also starts the
		 * repeated probing.
		 */
		afs_fs_probe_fileserver(cell->net, server, key, true);
	return server;
}

/*
 * Have the manager run after @delay seconds, unless it is due sooner.  The
 * timer carries a count on servers_outstanding while it is pending.
 */
static void afs_set_server_timer(struct afs_net *net, time64_t delay)
{
	if (net->live) {
		afs_inc_servers_outstanding(net);
		if (timer_reduce(&net->fs_timer, jiffies + delay * HZ))
			afs_dec_servers_outstanding(net);
	}
}

/**
 * afs_servers_timer - The fileserver manager's timer has expired
 * @timer: net->fs_timer
 *
 * Hand the timer's count on servers_outstanding to the manager's work item,
 * or give it back if the work is already queued.
 */
void afs_servers_timer(struct timer_list *timer)
{
	struct afs_net *net = container_of(timer, struct afs_net, fs_timer);

	_enter("");
	if (!queue_work(afs_wq, &net->fs_manager))
		afs_dec_servers_outstanding(net);
}

/**
 * afs_get_server - Take a reference on a fileserver record
 * @server: The record
 * @reason: Why, for the trace
 *
 * A reference keeps the memory, not the record's place in the namespace;
 * afs_use_server() does that.
 *
 * Return: @server.
 */
struct afs_server *afs_get_server(struct afs_server *server,
				  enum afs_server_trace reason)
{
	unsigned int a;
	int r;

	__refcount_inc(&server->ref, &r);
	a = atomic_read(&server->active);
	trace_afs_server(server->debug_id, r + 1, a, reason);
	return server;
}

/**
 * afs_use_server - Take an active use of a fileserver record
 * @server: The record, on which the caller holds a use or a reference
 * @reason: Why, for the trace
 *
 * A use takes a reference as well, and keeps the record published.
 *
 * Return: @server.
 */
struct afs_server *afs_use_server(struct afs_server *server, enum afs_server_trace reason)
{
	unsigned int a;
	int r;

	__refcount_inc(&server->ref, &r);
	a = atomic_inc_return(&server->active);

	trace_afs_server(server->debug_id, r + 1, a, reason);
	return server;
}

/*
 * The last reference is gone: hand the memory to RCU and give back the
 * record's count in the namespace.
 */
static void afs_server_rcu(struct rcu_head *rcu)
{
	struct afs_server *server = container_of(rcu, struct afs_server, rcu);

	trace_afs_server(server->debug_id, refcount_read(&server->ref),
			 atomic_read(&server->active), afs_server_trace_free);
	afs_put_addrlist(rcu_access_pointer(server->addresses));
	kfree(server);
}

static void afs_server_free(struct afs_net *net, struct afs_server *server)
{
	call_rcu(&server->rcu, afs_server_rcu);
	afs_dec_servers_outstanding(net);
}

/**
 * afs_put_server - Drop a reference on a fileserver record
 * @net: The record's network namespace
 * @server: The record, or NULL
 * @reason: Why, for the trace
 */
void afs_put_server(struct afs_net *net, struct afs_server *server,
		    enum afs_server_trace reason)
{
	unsigned int a, debug_id;
	bool zero;
	int r;

	if (!server)
		return;

	debug_id = server->debug_id;
	a = atomic_read(&server->active);
	zero = __refcount_dec_and_test(&server->ref, &r);
	trace_afs_server(debug_id, r - 1, a, reason);
	if (unlikely(zero))
		afs_server_free(net, server);
}

/**
 * afs_unuse_server_notime - Drop a use without touching the unused time
 * @net: The record's network namespace
 * @server: The record, or NULL
 * @reason: Why, for the trace
 *
 * For uses, such as a call from the server, that should not keep the record
 * from expiring.  When the last use goes, the manager is told: by its timer
 * normally, at once while the namespace is being purged.
 */
void afs_unuse_server_notime(struct afs_net *net, struct afs_server *server,
			     enum afs_server_trace reason)
{
	if (!server)
		return;

	if (atomic_dec_return(&server->active) == 0) {
		if (net->live)
			afs_set_server_timer(net, afs_server_gc_delay);
		else
			afs_queue_server_manager(net);
	}
	afs_put_server(net, server, reason);
}

/**
 * afs_unuse_server - Drop a use of a fileserver record
 * @net: The record's network namespace
 * @server: The record, or NULL
 * @reason: Why, for the trace
 *
 * The record is kept for afs_server_gc_delay seconds after its last use.
 */
void afs_unuse_server(struct afs_net *net, struct afs_server *server,
		      enum afs_server_trace reason)
{
	if (server) {
		server->unuse_time = ktime_get_boottime_seconds();
		afs_unuse_server_notime(net, server, reason);
	}
}

static void afs_give_up_callbacks(struct afs_net *net, struct afs_server *server)
{
	struct afs_addr_list *alist = rcu_access_pointer(server->addresses);
	struct afs_addr_cursor ac = {
		.alist	= alist,
		.index	= alist->preferred,
		.error	= 0,
	};

	afs_fs_give_up_all_callbacks(net, server, &ac, NULL);
}

/*
 * An unpublished record: release what the server may hold for us, then the
 * tree's reference.
 */
static void afs_destroy_server(struct afs_net *net, struct afs_server *server)
{
	if (test_bit(AFS_SERVER_FL_MAY_HAVE_CB, &server->flags))
		afs_give_up_callbacks(net, server);

	flush_work(&server->initcb_work);
	afs_put_server(net, server, afs_server_trace_destroy);
}

/*
 * Should the manager collect @server, and if not, when should it look again?
 * Pure: @now and the record's fields decide.
 */
static bool afs_server_expired(const struct afs_server *server, int active,
			       time64_t now, bool purging, time64_t *_next)
{
	time64_t expire_at;

	if (active != 0)
		return false;
	if (purging)
		return true;

	/* A server the VL servers do not know goes at once. */
	expire_at = server->unuse_time;
	if (!test_bit(AFS_SERVER_FL_VL_FAIL, &server->flags) &&
	    !test_bit(AFS_SERVER_FL_NOT_FOUND, &server->flags))
		expire_at += afs_server_gc_delay;
	if (expire_at <= now)
		return true;
	if (expire_at < *_next)
		*_next = expire_at;
	return false;
}

/*
 * Unpublish and destroy the records on @gc_list that are still unused.
 */
static void afs_gc_servers(struct afs_net *net, struct afs_server *gc_list)
{
	struct afs_server *server;
	int active;

	while ((server = gc_list)) {
		gc_list = server->gc_next;

		write_seqlock(&net->fs_lock);
		active = atomic_read(&server->active);
		if (active == 0) {
			trace_afs_server(server->debug_id, refcount_read(&server->ref),
					 active, afs_server_trace_gc);
			afs_unpublish_server(net, server);
		}
		write_sequnlock(&net->fs_lock);

		if (active == 0)
			afs_destroy_server(net, server);
	}
}

/**
 * afs_manage_servers - Collect the fileserver records that have expired
 * @work: net->fs_manager
 *
 * Runs with a count on servers_outstanding from whoever queued it, which it
 * gives back on the way out.  While the namespace is being purged, every
 * unused record is collected at once.
 */
void afs_manage_servers(struct work_struct *work)
{
	struct afs_net *net = container_of(work, struct afs_net, fs_manager);
	struct afs_server *server, *gc_list = NULL;
	time64_t now = ktime_get_boottime_seconds(), next_manage = TIME64_MAX;
	bool purging = !net->live;
	int active;

	_enter("");

	read_seqlock_excl(&net->fs_lock);
	hlist_for_each_entry(server, &net->fs_proc, proc_link) {
		active = atomic_read(&server->active);
		if (purging) {
			trace_afs_server(server->debug_id, refcount_read(&server->ref),
					 active, afs_server_trace_purging);
			if (active != 0)
				pr_notice("Can't purge s=%08x\n", server->debug_id);
		}
		if (afs_server_expired(server, active, now, purging, &next_manage)) {
			server->gc_next = gc_list;
			gc_list = server;
		}
	}
	read_sequnlock_excl(&net->fs_lock);

	/* The timer or the queue gets its own count on the way out. */
	if (!purging && next_manage < TIME64_MAX) {
		now = ktime_get_boottime_seconds();
		if (next_manage <= now)
			afs_queue_server_manager(net);
		else
			afs_set_server_timer(net, next_manage - now);
	}

	afs_gc_servers(net, gc_list);
	afs_dec_servers_outstanding(net);
	_leave(" [%d]", atomic_read(&net->servers_outstanding));
}

static void afs_queue_server_manager(struct afs_net *net)
{
	afs_inc_servers_outstanding(net);
	if (!queue_work(afs_wq, &net->fs_manager))
		afs_dec_servers_outstanding(net);
}

/*
 * Give up the namespace's own count and wait, at most @timeout jiffies, for
 * every record, timer and work item to end.  Return false on a timeout.
 */
static bool afs_purge_servers_wait(struct afs_net *net, long timeout)
{
	if (del_timer_sync(&net->fs_timer))
		afs_dec_servers_outstanding(net);

	afs_queue_server_manager(net);
	afs_dec_servers_outstanding(net);
	return wait_var_event_timeout(&net->servers_outstanding,
				      !atomic_read(&net->servers_outstanding),
				      timeout) != 0;
}

/**
 * afs_purge_servers - Destroy every fileserver record of a dying namespace
 * @net: The namespace, with ->live already false
 *
 * Waits until the last record is freed.  Every record must be unused by now
 * (the cells, volumes and calls are gone); a record still in use is reported
 * and waited for.
 */
void afs_purge_servers(struct afs_net *net)
{
	_enter("");
	afs_purge_servers_wait(net, MAX_SCHEDULE_TIMEOUT);
	_leave("");
}

/*
 * Replace a record's address list with a fresh one from the VL servers.
 */
static noinline bool afs_update_server_record(struct afs_operation *op,
					      struct afs_server *server)
{
	struct afs_net *net = op->net;
	struct afs_addr_list *alist, *discard;

	_enter("");

	trace_afs_server(server->debug_id, refcount_read(&server->ref),
			 atomic_read(&server->active),
			 afs_server_trace_update);

	alist = afs_vl_lookup_addrs(op->volume->cell, op->key, &server->uuid);
	if (IS_ERR(alist)) {
		if ((PTR_ERR(alist) == -ERESTARTSYS ||
		     PTR_ERR(alist) == -EINTR) &&
		    (op->flags & AFS_OPERATION_UNINTR) &&
		    server->addresses) {
			_leave(" = t [intr]");
			return true;
		}
		op->error = PTR_ERR(alist);
		_leave(" = f [%d]", op->error);
		return false;
	}

	discard = alist;
	if (server->addr_version != alist->version) {
		/* The caller's use keeps the record published, so it may be
		 * relinked by address family.
		 */
		write_seqlock(&net->fs_addr_lock);
		write_lock(&server->fs_lock);
		discard = rcu_dereference_protected(server->addresses,
						    lockdep_is_held(&server->fs_lock));
		rcu_assign_pointer(server->addresses, alist);
		server->addr_version = alist->version;
		write_unlock(&server->fs_lock);
		afs_server_link_addresses(net, server, alist);
		write_sequnlock(&net->fs_addr_lock);
	}

	afs_put_addrlist(discard);
	_leave(" = t");
	return true;
}

/**
 * afs_check_server_record - Bring a fileserver's addresses up to date
 * @op: The operation about to use the server
 * @server: The server, on which @op holds a use
 *
 * If the record has been marked as needing an update, ask the VL servers;
 * if another operation is doing so, wait for it.
 *
 * Return: true if the record may be used; false with @op->error set if not.
 */
bool afs_check_server_record(struct afs_operation *op, struct afs_server *server)
{
	bool success;
	int ret, retries = 0;

	_enter("");

	ASSERT(server);

retry:
	if (test_bit(AFS_SERVER_FL_UPDATING, &server->flags))
		goto wait;
	if (test_bit(AFS_SERVER_FL_NEEDS_UPDATE, &server->flags))
		goto update;
	_leave(" = t [good]");
	return true;

update:
	if (!test_and_set_bit_lock(AFS_SERVER_FL_UPDATING, &server->flags)) {
		clear_bit(AFS_SERVER_FL_NEEDS_UPDATE, &server->flags);
		success = afs_update_server_record(op, server);
		clear_bit_unlock(AFS_SERVER_FL_UPDATING, &server->flags);
		wake_up_bit(&server->flags, AFS_SERVER_FL_UPDATING);
		_leave(" = %d", success);
		return success;
	}

wait:
	ret = wait_on_bit(&server->flags, AFS_SERVER_FL_UPDATING,
			  (op->flags & AFS_OPERATION_UNINTR) ?
			  TASK_UNINTERRUPTIBLE : TASK_INTERRUPTIBLE);
	if (ret == -ERESTARTSYS) {
		op->error = ret;
		_leave(" = f [intr]");
		return false;
	}

	retries++;
	if (retries == 4) {
		op->error = -ESTALE;
		_leave(" = f [stale]");
		return false;
	}
	goto retry;
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/server_kunit.c"
#endif
