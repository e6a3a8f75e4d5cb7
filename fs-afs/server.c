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
 * manager unpublishes and destroys it.  A record holds a reference on its
 * cell until its memory goes, as it can outlive the cell's last user and is
 * still found by address or UUID then; so a namespace's cells cannot all go
 * before its unused records do, and afs_net_exit() has the manager collect
 * those first.
 *
 * net->servers_outstanding counts what must end before the namespace can
 * go: one for each record from its allocation until its memory is handed to
 * RCU, one for the manager's timer or work while either is pending, and one
 * that the namespace itself holds until afs_purge_servers().  Every path
 * that allocates a record ends in afs_put_server() or afs_discard_server(),
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

static void afs_schedule_server_manager(struct afs_net *net, time64_t delay);

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
	int old_ref;

	if (!__refcount_inc_not_zero(&server->ref, &old_ref))
		return NULL;
	trace_afs_server(server->debug_id, old_ref + 1,
			 atomic_inc_return(&server->active), reason);
	return server;
}

/*
 * Take a reference on @server, which the caller holds one on, and an active
 * use too if @use.
 */
static struct afs_server *afs_take_server(struct afs_server *server, bool use,
					  enum afs_server_trace reason)
{
	unsigned int active;
	int old_ref;

	__refcount_inc(&server->ref, &old_ref);
	active = use ? atomic_inc_return(&server->active) :
		atomic_read(&server->active);
	trace_afs_server(server->debug_id, old_ref + 1, active, reason);
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
 * Allocate a record of (@uuid, @cell) that owns @alist, with one use for the
 * caller, and count it in the namespace.  It is not published until
 * afs_install_server().  On failure, the caller still owns @alist.
 */
static struct afs_server *afs_alloc_server(struct afs_cell *cell,
					   const uuid_t *uuid,
					   struct afs_addr_list *alist)
{
	struct afs_server *server = kzalloc(sizeof(*server), GFP_KERNEL);

	if (!server)
		return NULL;

	/* In the order of struct afs_server; kzalloc() did the rest. */
	server->uuid = *uuid;
	RCU_INIT_POINTER(server->addresses, alist);
	server->cell = afs_get_cell(cell, afs_cell_trace_get_server);
	INIT_LIST_HEAD(&server->probe_link);
	INIT_LIST_HEAD(&server->volumes);
	INIT_WORK(&server->initcb_work, afs_server_init_callback_work);
	refcount_set(&server->ref, 1);
	atomic_set(&server->active, 1);
	server->addr_version = alist->version;
	server->rtt = UINT_MAX;
	server->debug_id = atomic_inc_return(&afs_server_debug_id);
	rwlock_init(&server->fs_lock);
	init_waitqueue_head(&server->probe_wq);
	spin_lock_init(&server->probe_lock);

	afs_inc_servers_outstanding(cell->net);
	trace_afs_server(server->debug_id, 1, 1, afs_server_trace_alloc);
	return server;
}

/*
 * Free the memory of a record that no one can reach any more, with its
 * address list and its reference on its cell.
 */
static void afs_free_server(struct afs_server *server)
{
	trace_afs_server(server->debug_id, refcount_read(&server->ref),
			 atomic_read(&server->active), afs_server_trace_free);
	afs_put_addrlist(rcu_access_pointer(server->addresses));
	afs_put_cell(server->cell, afs_cell_trace_put_server);
	kfree(server);
}

/*
 * Free a record that was never published: nothing else can have seen it.
 * The caller's address list reference goes with it.
 */
static void afs_discard_server(struct afs_net *net, struct afs_server *server)
{
	afs_free_server(server);
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
		afs_take_server(server, true, afs_server_trace_get_install);
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

	afs_take_server(candidate, false, afs_server_trace_get_install);
	write_sequnlock(&net->fs_lock);
	return candidate;
}

/*
 * Take @server out of the tree, its chain and the namespace's lists, unless a
 * lookup took a use of it since the manager chose it.  Installs and lookups by
 * UUID cannot take one unseen: they hold net->fs_lock, or retry a lockless
 * pass that it overlapped.  A call from the server, found by address, may
 * still hold a use of a record taken out: that keeps its memory, not its
 * place.  Return true if the record was taken out.
 */
static bool afs_unpublish_server(struct afs_net *net, struct afs_server *server)
{
	struct afs_server *next, *prev;

	write_seqlock(&net->fs_lock);
	if (atomic_read(&server->active) != 0) {
		write_sequnlock(&net->fs_lock);
		return false;
	}
	prev = server->uuid_prev;
	trace_afs_server(server->debug_id, refcount_read(&server->ref), 0,
			 afs_server_trace_gc);

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
	write_sequnlock(&net->fs_lock);
	return true;
}

/*
 * Ask the VL servers of @cell for the addresses of the fileserver @uuid.
 */
static struct afs_addr_list *afs_vl_lookup_addrs(struct afs_cell *cell,
						 struct key *key, const uuid_t *uuid)
{
	struct afs_addr_list *alist = NULL;
	struct afs_vl_cursor vc;
	int error;

	if (!afs_begin_vlserver_operation(&vc, cell, key))
		return ERR_PTR(-ERESTARTSYS);

	/* A YFS VL server also knows the server's IPv6 endpoints. */
	while (afs_select_vlserver(&vc))
		alist = test_bit(AFS_VLSERVER_FL_IS_YFS, &vc.server->flags) ?
			afs_yfsvl_get_endpoints(&vc, uuid) :
			afs_vl_get_addrs_u(&vc, uuid);

	error = afs_end_vlserver_operation(&vc);
	return error < 0 ? ERR_PTR(error) : alist;
}

/*
 * Look the addresses of (@uuid, @cell) up and publish a record of them,
 * unless a racing caller published one first.  A new record is probed on
 * every address at once, which also starts its repeated probing.
 */
static struct afs_server *afs_make_server(struct afs_cell *cell,
					  struct key *key, const uuid_t *uuid)
{
	struct afs_server *candidate, *server;
	struct afs_addr_list *alist;

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
		afs_fs_probe_fileserver(cell->net, server, key, true);
	return server;
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
	struct afs_server *server;

	_enter("%p,%pU", cell->net, uuid);

	server = afs_find_server_in_cell(cell, uuid);
	if (!server)
		return afs_make_server(cell, key, uuid);

	if (server->addr_version != addr_version)
		set_bit(AFS_SERVER_FL_NEEDS_UPDATE, &server->flags);
	return server;
}

/*
 * Have the manager run in @delay seconds, or at once if @delay is 0 or the
 * namespace is going, unless it is due sooner.  A pending timer and a queued
 * work item each carry a count on servers_outstanding, given back when the
 * manager has run; one already pending keeps the count it has.
 */
static void afs_schedule_server_manager(struct afs_net *net, time64_t delay)
{
	bool pending;

	afs_inc_servers_outstanding(net);
	if (delay > 0 && READ_ONCE(net->live))
		pending = timer_reduce(&net->fs_timer, jiffies + delay * HZ);
	else
		pending = !queue_work(afs_wq, &net->fs_manager);
	if (pending)
		afs_dec_servers_outstanding(net);
}

/**
 * afs_servers_timer - The fileserver manager's timer has expired
 * @timer: net->fs_timer
 *
 * Hand the timer's count on servers_outstanding to the manager's work item,
 * or give it back if the work is already queued with one.
 */
void afs_servers_timer(struct timer_list *timer)
{
	struct afs_net *net = container_of(timer, struct afs_net, fs_timer);

	if (!queue_work(afs_wq, &net->fs_manager))
		afs_dec_servers_outstanding(net);
}

/**
 * afs_get_server - Take a reference on a fileserver record
 * @server: The record, on which the caller holds a reference or a use
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
	return afs_take_server(server, false, reason);
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
	return afs_take_server(server, true, reason);
}

static void afs_server_rcu(struct rcu_head *rcu)
{
	afs_free_server(container_of(rcu, struct afs_server, rcu));
}

/**
 * afs_put_server - Drop a reference on a fileserver record
 * @net: The record's network namespace
 * @server: The record, or NULL
 * @reason: Why, for the trace
 *
 * The last reference hands the memory to RCU and gives back the record's
 * count in the namespace.
 */
void afs_put_server(struct afs_net *net, struct afs_server *server,
		    enum afs_server_trace reason)
{
	unsigned int debug_id, active;
	bool last;
	int old_ref;

	if (!server)
		return;

	/* Once the count is dropped, the record is not ours to read. */
	debug_id = server->debug_id;
	active = atomic_read(&server->active);
	last = __refcount_dec_and_test(&server->ref, &old_ref);
	trace_afs_server(debug_id, old_ref - 1, active, reason);
	if (last) {
		call_rcu(&server->rcu, afs_server_rcu);
		afs_dec_servers_outstanding(net);
	}
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

	if (atomic_dec_and_test(&server->active))
		afs_schedule_server_manager(net, afs_server_gc_delay);
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

/*
 * An unpublished record: tell the server we no longer want its callback
 * breaks, if it may have promised any, then drop the tree's reference.
 */
static void afs_destroy_server(struct afs_net *net, struct afs_server *server)
{
	struct afs_addr_list *alist = rcu_access_pointer(server->addresses);
	struct afs_addr_cursor ac = { .alist = alist, .index = alist->preferred };

	if (test_bit(AFS_SERVER_FL_MAY_HAVE_CB, &server->flags))
		afs_fs_give_up_all_callbacks(net, server, &ac, NULL);
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

/**
 * afs_manage_servers - Collect the fileserver records that have expired
 * @work: net->fs_manager
 *
 * Runs with a count on servers_outstanding from whoever queued it, which it
 * gives back on the way out.  While the namespace is being purged, every
 * unused record is collected at once; one still in use is reported, and
 * collected when its last use goes.
 */
void afs_manage_servers(struct work_struct *work)
{
	struct afs_net *net = container_of(work, struct afs_net, fs_manager);
	time64_t now = ktime_get_boottime_seconds(), next = TIME64_MAX;
	struct afs_server *server, *expired = NULL;
	bool purging = !READ_ONCE(net->live);
	int active;

	/* Choose under the lock; unpublish and destroy outside it, as giving
	 * up callbacks is a call to the server.
	 */
	read_seqlock_excl(&net->fs_lock);
	hlist_for_each_entry(server, &net->fs_proc, proc_link) {
		active = atomic_read(&server->active);
		if (purging)
			trace_afs_server(server->debug_id, refcount_read(&server->ref),
					 active, afs_server_trace_purging);
		if (purging && active)
			pr_notice("Can't purge s=%08x\n", server->debug_id);
		if (afs_server_expired(server, active, now, purging, &next)) {
			server->gc_next = expired;
			expired = server;
		}
	}
	read_sequnlock_excl(&net->fs_lock);

	if (!purging && next != TIME64_MAX)
		afs_schedule_server_manager(net, next - ktime_get_boottime_seconds());

	while ((server = expired)) {
		expired = server->gc_next;
		if (afs_unpublish_server(net, server))
			afs_destroy_server(net, server);
	}
	afs_dec_servers_outstanding(net);
}

/**
 * afs_purge_servers - Destroy every fileserver record of a dying namespace
 * @net: The namespace, with ->live already false
 *
 * Gives up the namespace's own count on servers_outstanding and waits until
 * the last record, timer and work item have given back theirs.  Every record
 * should be unused by now (the cells, volumes and calls are gone); one still
 * in use is reported and waited for.
 */
void afs_purge_servers(struct afs_net *net)
{
	if (del_timer_sync(&net->fs_timer))
		afs_dec_servers_outstanding(net);
	afs_schedule_server_manager(net, 0);
	afs_dec_servers_outstanding(net);
	wait_var_event(&net->servers_outstanding,
		       !atomic_read(&net->servers_outstanding));
}

/*
 * Ask the VL servers for @server's addresses and install them if their
 * version moved.  An interrupted lookup for an operation that must not be
 * interrupted keeps the old list, which may still work.
 */
static bool afs_update_server_record(struct afs_operation *op,
				     struct afs_server *server)
{
	struct afs_net *net = op->net;
	struct afs_addr_list *alist, *old;
	long error;

	trace_afs_server(server->debug_id, refcount_read(&server->ref),
			 atomic_read(&server->active), afs_server_trace_update);

	alist = afs_vl_lookup_addrs(op->volume->cell, op->key, &server->uuid);
	if (IS_ERR(alist)) {
		error = PTR_ERR(alist);
		if ((error == -ERESTARTSYS || error == -EINTR) &&
		    (op->flags & AFS_OPERATION_UNINTR) &&
		    rcu_access_pointer(server->addresses))
			return true;
		op->error = error;
		return false;
	}

	if (alist->version == server->addr_version) {
		afs_put_addrlist(alist);
		return true;
	}

	/* The caller's use keeps the record published, so it may be relinked
	 * by address family.
	 */
	write_seqlock(&net->fs_addr_lock);
	write_lock(&server->fs_lock);
	old = rcu_replace_pointer(server->addresses, alist,
				  lockdep_is_held(&server->fs_lock));
	server->addr_version = alist->version;
	write_unlock(&server->fs_lock);
	afs_server_link_addresses(net, server, alist);
	write_sequnlock(&net->fs_addr_lock);
	afs_put_addrlist(old);
	return true;
}

/**
 * afs_check_server_record - Bring a fileserver's addresses up to date
 * @op: The operation about to use the server
 * @server: The server, on which @op holds a use
 *
 * If the record has been marked as needing an update, ask the VL servers;
 * if another operation is doing so, wait for it, up to four times before
 * giving up with -ESTALE.  A signal ends an interruptible wait with -EINTR
 * (stock 6.1 looked for -ERESTARTSYS, which wait_on_bit() does not return,
 * and so turned a signal into -ESTALE).
 *
 * Return: true if the record may be used; false with @op->error set if not.
 */
bool afs_check_server_record(struct afs_operation *op, struct afs_server *server)
{
	unsigned int state = (op->flags & AFS_OPERATION_UNINTR) ?
		TASK_UNINTERRUPTIBLE : TASK_INTERRUPTIBLE;
	unsigned long *flags = &server->flags;
	int waits, error;
	bool ok;

	for (waits = 0; waits < 4; waits++) {
		if (!test_bit(AFS_SERVER_FL_UPDATING, flags)) {
			if (!test_bit(AFS_SERVER_FL_NEEDS_UPDATE, flags))
				return true;
			if (!test_and_set_bit_lock(AFS_SERVER_FL_UPDATING, flags)) {
				clear_bit(AFS_SERVER_FL_NEEDS_UPDATE, flags);
				ok = afs_update_server_record(op, server);
				clear_bit_unlock(AFS_SERVER_FL_UPDATING, flags);
				wake_up_bit(flags, AFS_SERVER_FL_UPDATING);
				return ok;
			}
		}

		error = wait_on_bit(flags, AFS_SERVER_FL_UPDATING, state);
		if (error) {
			op->error = error;
			return false;
		}
	}
	op->error = -ESTALE;
	return false;
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/server_kunit.c"
#endif
