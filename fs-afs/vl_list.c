// SPDX-License-Identifier: GPL-2.0-or-later
/* VL server records, and the VL server lists that the DNS upcall gives.
 *
 * Copyright (C) 2018 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * A cell's VL server list comes from the dns_resolver upcall, a userspace
 * program, as a binary payload.  It is handled in two steps:
 *
 * - afs_dns_decode_vllist() is pure: bytes in, a decoded list or an error
 *   (with the reason and the byte where the payload went wrong) out.  It
 *   allocates nothing and reads nothing past the length it is given.
 *
 * - afs_extract_vlserver_list() merges the decoded list with the cell's
 *   previous one, so that VL servers that are still listed keep their
 *   records (and their probe state), and builds the list the cell uses.
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <asm/unaligned.h>
#include "internal.h"

/*
 * Limits on a decoded list.  The servers of a list are tracked in a bit mask
 * (struct afs_vl_cursor::untried), so their number must stay well under
 * BITS_PER_LONG on every arch; a cell in the DNS has a handful.  DNS names are
 * at most 253 characters.  A server's addresses must fit one address list.
 */
#define AFS_VL_MAX_SERVERS	16
#define AFS_DNS_MAX_NAME	255

/**
 * afs_alloc_vlserver - Allocate a VL server record
 * @name: The server's name, not necessarily NUL-terminated
 * @name_len: The length of @name
 * @port: The UDP port of the server's VL service
 *
 * Return: The record with one reference held and no addresses, or NULL if out
 * of memory.
 */
struct afs_vlserver *afs_alloc_vlserver(const char *name, size_t name_len,
					unsigned short port)
{
	struct afs_vlserver *vlserver;

	vlserver = kzalloc(struct_size(vlserver, name, name_len + 1),
			   GFP_KERNEL);
	if (!vlserver)
		return NULL;

	refcount_set(&vlserver->ref, 1);
	rwlock_init(&vlserver->lock);
	init_waitqueue_head(&vlserver->probe_wq);
	spin_lock_init(&vlserver->probe_lock);
	vlserver->rtt = UINT_MAX;
	vlserver->name_len = name_len;
	vlserver->port = port;
	memcpy(vlserver->name, name, name_len);
	return vlserver;
}

static void afs_vlserver_rcu(struct rcu_head *rcu)
{
	struct afs_vlserver *vlserver = container_of(rcu, struct afs_vlserver, rcu);

	afs_put_addrlist(rcu_access_pointer(vlserver->addresses));
	kfree_rcu(vlserver, rcu);
}

/**
 * afs_put_vlserver - Drop a reference on a VL server record
 * @net: The network namespace (unused)
 * @vlserver: The record, or NULL
 *
 * The record and its address list are freed after an RCU grace period when
 * the last reference goes.
 */
void afs_put_vlserver(struct afs_net *net, struct afs_vlserver *vlserver)
{
	if (vlserver && refcount_dec_and_test(&vlserver->ref))
		call_rcu(&vlserver->rcu, afs_vlserver_rcu);
}

/**
 * afs_alloc_vlserver_list - Allocate an empty VL server list
 * @nr_servers: The number of entries the list must be able to hold
 *
 * Return: The list with one reference held and no entries in use, or NULL if
 * out of memory.
 */
struct afs_vlserver_list *afs_alloc_vlserver_list(unsigned int nr_servers)
{
	struct afs_vlserver_list *vllist;

	vllist = kzalloc(struct_size(vllist, servers, nr_servers), GFP_KERNEL);
	if (vllist) {
		refcount_set(&vllist->ref, 1);
		rwlock_init(&vllist->lock);
	}

	return vllist;
}

/**
 * afs_put_vlserverlist - Drop a reference on a VL server list
 * @net: The network namespace (unused)
 * @vllist: The list, or NULL
 *
 * When the last reference goes, the list's references on its servers are
 * dropped and the list is freed after an RCU grace period.
 */
void afs_put_vlserverlist(struct afs_net *net, struct afs_vlserver_list *vllist)
{
	int i;

	if (!vllist || !refcount_dec_and_test(&vllist->ref))
		return;

	for (i = 0; i < vllist->nr_servers; i++)
		afs_put_vlserver(net, vllist->servers[i].server);
	kfree_rcu(vllist, rcu);
}

/*
 * A decoded VL server list.  It holds copies of what it needs, not pointers
 * into the payload.  An IPv4 address takes the first word of @addr; both
 * kinds are in network byte order, as in the payload.
 */
struct afs_dns_addr {
	__be32			addr[4];
	u8			family;		/* AF_INET or AF_INET6 */
};

struct afs_dns_server {
	u16			name_len;
	u16			priority;	/* Lower is preferred */
	u16			weight;		/* Higher is preferred */
	u16			port;		/* Host byte order, never 0 */
	u8			source;		/* enum dns_record_source */
	u8			status;		/* enum dns_lookup_status */
	u8			protocol;	/* Always DNS_SERVER_PROTOCOL_UDP */
	u8			nr_addrs;	/* Distinct addresses */
	char			name[AFS_DNS_MAX_NAME + 1];
	struct afs_dns_addr	addrs[AFS_MAX_ADDRESSES];
};

struct afs_dns_vllist {
	u8			source;		/* enum dns_record_source */
	u8			status;		/* enum dns_lookup_status */
	u8			nr_servers;
	const char		*reason;	/* Why the payload was refused */
	size_t			offset;		/* The byte it went wrong at */
	struct afs_dns_server	servers[AFS_VL_MAX_SERVERS];
	struct afs_dns_server	scratch;	/* The record being decoded */
};

/*
 * The payload (include/uapi/linux/dns_resolver.h), all of it packed; the
 * 16-bit fields are little-endian, the addresses in network byte order:
 *
 *	header	= zero(1)=0 content(1)=0 version(1)=1 source(1) status(1)
 *		  nr_servers(1) nr_servers*server
 *	server	= name_len(2) priority(2) weight(2) port(2) source(1)
 *		  status(1) protocol(1) nr_addrs(1) name(name_len)
 *		  nr_addrs*address
 *	address	= type(1)=0 ipv4(4) | type(1)=1 ipv6(16)
 *
 * Refused, with the first fault in byte order reported:
 *	-EBADMSG	anything cut short (the header, a server record, a name,
 *			an address), or bytes after the last server record
 *	-EPROTONOSUPPORT a text payload, an unknown content type, version,
 *			protocol (anything but UDP or unspecified) or address
 *			type
 *	-E2BIG		more than %AFS_VL_MAX_SERVERS servers, a name longer
 *			than %AFS_DNS_MAX_NAME, more than %AFS_MAX_ADDRESSES
 *			distinct addresses for a server
 *	-EINVAL		an empty name, or a name byte that is not printable
 *			ASCII
 *
 * Accepted and normalised: port 0 means %AFS_VL_PORT; protocol unspecified
 * means UDP; a source or status the kernel does not know becomes
 * NR__dns_record_source or NR__dns_lookup_status ("[weird]" in /proc);
 * repeated addresses of a server count once; records naming the same server
 * (name without regard to case, and port) are merged: their addresses are
 * pooled and the record with the better priority and weight gives the rest.
 * The servers come out ordered by priority, low first, then weight, high
 * first, and otherwise in payload order.
 */
struct afs_dns_reader {
	const u8		*start;
	const u8		*p;
	const u8		*end;
	struct afs_dns_vllist	*out;
};

static int afs_dns_refuse(struct afs_dns_reader *r, const u8 *at, int error,
			  const char *reason)
{
	r->out->reason = reason;
	r->out->offset = at - r->start;
	return error;
}

static bool afs_dns_has(const struct afs_dns_reader *r, size_t n)
{
	return r->end - r->p >= n;
}

static bool afs_dns_same_addr(const struct afs_dns_addr *a,
			      const struct afs_dns_addr *b)
{
	return a->family == b->family &&
		memcmp(a->addr, b->addr, a->family == AF_INET ? 4 : 16) == 0;
}

/*
 * Add an address to a server unless it already has it.
 */
static int afs_dns_add_addr(struct afs_dns_reader *r, const u8 *at,
			    struct afs_dns_server *s,
			    const struct afs_dns_addr *a)
{
	int i;

	for (i = 0; i < s->nr_addrs; i++)
		if (afs_dns_same_addr(&s->addrs[i], a))
			return 0;
	if (s->nr_addrs >= AFS_MAX_ADDRESSES)
		return afs_dns_refuse(r, at, -E2BIG, "too many addresses");
	s->addrs[s->nr_addrs++] = *a;
	return 0;
}

static int afs_dns_decode_addr(struct afs_dns_reader *r,
			       struct afs_dns_server *s)
{
	const u8 *at = r->p;
	struct afs_dns_addr a = {};
	size_t size;

	if (!afs_dns_has(r, 1))
		return afs_dns_refuse(r, at, -EBADMSG, "address record past the end");

	switch (*r->p++) {
	case DNS_ADDRESS_IS_IPV4:
		a.family = AF_INET;
		size = 4;
		if (!afs_dns_has(r, size))
			return afs_dns_refuse(r, at, -EBADMSG, "truncated IPv4 address");
		break;
	case DNS_ADDRESS_IS_IPV6:
		a.family = AF_INET6;
		size = 16;
		if (!afs_dns_has(r, size))
			return afs_dns_refuse(r, at, -EBADMSG, "truncated IPv6 address");
		break;
	default:
		return afs_dns_refuse(r, at, -EPROTONOSUPPORT, "unknown address type");
	}

	memcpy(a.addr, r->p, size);
	r->p += size;
	return afs_dns_add_addr(r, at, s, &a);
}

/*
 * Decode one server record into @s.
 */
static int afs_dns_decode_server(struct afs_dns_reader *r,
				 struct afs_dns_server *s)
{
	const u8 *at = r->p;
	unsigned int nr_addrs, i;
	int ret;

	if (!afs_dns_has(r, sizeof(struct dns_server_list_v1_server)))
		return afs_dns_refuse(r, at, -EBADMSG, "short server record");

	s->name_len	= get_unaligned_le16(r->p + 0);
	s->priority	= get_unaligned_le16(r->p + 2);
	s->weight	= get_unaligned_le16(r->p + 4);
	s->port		= get_unaligned_le16(r->p + 6);
	s->source	= min_t(u8, r->p[8], NR__dns_record_source);
	s->status	= min_t(u8, r->p[9], NR__dns_lookup_status);
	s->protocol	= r->p[10];
	nr_addrs	= r->p[11];
	s->nr_addrs	= 0;
	r->p += sizeof(struct dns_server_list_v1_server);

	if (s->name_len == 0)
		return afs_dns_refuse(r, at, -EINVAL, "empty server name");
	if (s->name_len > AFS_DNS_MAX_NAME)
		return afs_dns_refuse(r, at, -E2BIG, "server name too long");
	if (!afs_dns_has(r, s->name_len))
		return afs_dns_refuse(r, at, -EBADMSG, "server name past the end");
	for (i = 0; i < s->name_len; i++) {
		u8 c = r->p[i];

		/* The name is shown in /proc and compared as a string. */
		if (c <= ' ' || c >= 0x7f)
			return afs_dns_refuse(r, r->p + i, -EINVAL,
					      "bad character in server name");
		s->name[i] = c;
	}
	s->name[i] = 0;
	r->p += s->name_len;

	switch (s->protocol) {
	case DNS_SERVER_PROTOCOL_UNSPECIFIED:
	case DNS_SERVER_PROTOCOL_UDP:
		s->protocol = DNS_SERVER_PROTOCOL_UDP;
		break;
	default:
		return afs_dns_refuse(r, at, -EPROTONOSUPPORT, "unsupported protocol");
	}

	if (s->port == 0)
		s->port = AFS_VL_PORT;

	for (i = 0; i < nr_addrs; i++) {
		ret = afs_dns_decode_addr(r, s);
		if (ret < 0)
			return ret;
	}
	return 0;
}

static bool afs_dns_better(const struct afs_dns_server *a,
			   const struct afs_dns_server *b)
{
	return a->priority < b->priority ||
		(a->priority == b->priority && a->weight > b->weight);
}

/*
 * Merge a record into an earlier one for the same server.  @at is the record,
 * for the error report.
 */
static int afs_dns_merge_server(struct afs_dns_reader *r, const u8 *at,
				struct afs_dns_server *into,
				const struct afs_dns_server *s)
{
	int i, ret;

	for (i = 0; i < s->nr_addrs; i++) {
		ret = afs_dns_add_addr(r, at, into, &s->addrs[i]);
		if (ret < 0)
			return ret;
	}

	if (afs_dns_better(s, into)) {
		into->priority	= s->priority;
		into->weight	= s->weight;
		into->source	= s->source;
		into->status	= s->status;
	}
	return 0;
}

static struct afs_dns_server *afs_dns_find_server(struct afs_dns_vllist *out,
						  const struct afs_dns_server *s)
{
	int i;

	for (i = 0; i < out->nr_servers; i++) {
		struct afs_dns_server *p = &out->servers[i];

		if (p->port == s->port && p->name_len == s->name_len &&
		    strncasecmp(p->name, s->name, s->name_len) == 0)
			return p;
	}
	return NULL;
}

/*
 * Stable insertion sort of the servers, using the scratch record to hold the
 * one being moved.
 */
static void afs_dns_sort_servers(struct afs_dns_vllist *out)
{
	int i, j;

	for (i = 1; i < out->nr_servers; i++) {
		if (!afs_dns_better(&out->servers[i], &out->servers[i - 1]))
			continue;
		out->scratch = out->servers[i];
		for (j = i; j > 0 && afs_dns_better(&out->scratch, &out->servers[j - 1]); j--)
			;
		memmove(&out->servers[j + 1], &out->servers[j],
			(i - j) * sizeof(out->servers[0]));
		out->servers[j] = out->scratch;
	}
}

/*
 * afs_dns_decode_vllist - Decode a VL server list from the DNS upcall
 * @payload: The payload
 * @len: Its length; nothing past it is read
 * @out: Where to put the list
 *
 * The grammar and the errors are above.  On an error, @out->reason and
 * @out->offset say what was wrong and where, and the rest of @out means
 * nothing.
 *
 * Return: 0 or a negative error.
 */
static int afs_dns_decode_vllist(const void *payload, size_t len,
				 struct afs_dns_vllist *out)
{
	const struct dns_server_list_v1_header *hdr = payload;
	struct afs_dns_reader r = {
		.start	= payload,
		.p	= payload,
		.end	= payload + len,
		.out	= out,
	};
	struct afs_dns_server *s = &out->scratch, *dup;
	unsigned int nr, i;
	int ret;

	out->nr_servers = 0;
	out->reason = NULL;
	out->offset = 0;

	if (len < sizeof(*hdr))
		return afs_dns_refuse(&r, r.p, -EBADMSG, "short header");
	if (hdr->hdr.zero != 0)
		return afs_dns_refuse(&r, r.p, -EPROTONOSUPPORT, "not a binary payload");
	if (hdr->hdr.content != DNS_PAYLOAD_IS_SERVER_LIST)
		return afs_dns_refuse(&r, r.p + 1, -EPROTONOSUPPORT, "unknown content type");
	if (hdr->hdr.version != 1)
		return afs_dns_refuse(&r, r.p + 2, -EPROTONOSUPPORT, "unknown version");
	nr = hdr->nr_servers;
	if (nr > AFS_VL_MAX_SERVERS)
		return afs_dns_refuse(&r, r.p + 5, -E2BIG, "too many servers");

	out->source = min_t(u8, hdr->source, NR__dns_record_source);
	out->status = min_t(u8, hdr->status, NR__dns_lookup_status);
	r.p += sizeof(*hdr);

	for (i = 0; i < nr; i++) {
		const u8 *at = r.p;

		ret = afs_dns_decode_server(&r, s);
		if (ret < 0)
			return ret;

		dup = afs_dns_find_server(out, s);
		if (dup) {
			ret = afs_dns_merge_server(&r, at, dup, s);
			if (ret < 0)
				return ret;
		} else {
			out->servers[out->nr_servers++] = *s;
		}
	}

	if (r.p != r.end)
		return afs_dns_refuse(&r, r.p, -EBADMSG, "trailing bytes");

	afs_dns_sort_servers(out);
	return 0;
}

/*
 * Build the address list of a decoded server.
 */
static struct afs_addr_list *afs_dns_build_alist(const struct afs_dns_server *s)
{
	struct afs_addr_list *alist;
	int i;

	alist = afs_alloc_addrlist(s->nr_addrs, VL_SERVICE, s->port);
	if (!alist)
		return NULL;

	for (i = 0; i < s->nr_addrs; i++) {
		const struct afs_dns_addr *a = &s->addrs[i];

		if (a->family == AF_INET)
			afs_merge_fs_addr4(alist, a->addr[0], s->port);
		else
			afs_merge_fs_addr6(alist, (__be32 *)a->addr, s->port);
	}

	/* Start with IPv6 if there is any. */
	if (alist->nr_ipv4 < alist->nr_addrs)
		alist->preferred = alist->nr_ipv4;
	alist->source = s->source;
	alist->status = s->status;
	return alist;
}

static struct afs_vlserver *afs_find_vlserver(const struct afs_vlserver_list *vllist,
					      const struct afs_dns_server *s)
{
	int i;

	if (!vllist)
		return NULL;
	for (i = 0; i < vllist->nr_servers; i++) {
		struct afs_vlserver *p = vllist->servers[i].server;

		if (p->port == s->port && p->name_len == s->name_len &&
		    strncasecmp(p->name, s->name, s->name_len) == 0)
			return p;
	}
	return NULL;
}

/*
 * Turn a decoded list into the list a cell uses.  A server the previous list
 * also had keeps its record; if the DNS gave it no address this time, it
 * keeps the addresses it had.  A new server with no address is left out: it
 * could not be reached.  Everything is allocated before anything is changed,
 * so that running out of memory leaves the previous servers as they were.
 */
static struct afs_vlserver_list *afs_merge_vlserver_list(struct afs_net *net,
							 const struct afs_dns_vllist *dl,
							 const struct afs_vlserver_list *previous)
{
	struct afs_addr_list *alists[AFS_VL_MAX_SERVERS] = {};
	struct afs_vlserver_list *vllist;
	int i, n;

	vllist = afs_alloc_vlserver_list(dl->nr_servers);
	if (!vllist)
		return ERR_PTR(-ENOMEM);
	vllist->source = dl->source;
	vllist->status = dl->status;

	for (i = 0; i < dl->nr_servers; i++) {
		const struct afs_dns_server *s = &dl->servers[i];
		struct afs_vlserver *server = afs_find_vlserver(previous, s);

		if (server && (s->nr_addrs || rcu_access_pointer(server->addresses))) {
			server = afs_get_vlserver(server);
		} else if (s->nr_addrs) {
			server = afs_alloc_vlserver(s->name, s->name_len, s->port);
			if (!server)
				goto nomem;
		} else {
			_debug("no addresses for %s", s->name);
			continue;
		}

		n = vllist->nr_servers++;
		vllist->servers[n].server	= server;
		vllist->servers[n].priority	= s->priority;
		vllist->servers[n].weight	= s->weight;
		vllist->servers[n].source	= s->source;
		vllist->servers[n].status	= s->status;
		if (s->nr_addrs) {
			alists[n] = afs_dns_build_alist(s);
			if (!alists[n])
				goto nomem;
		}
	}

	for (i = 0; i < vllist->nr_servers; i++) {
		struct afs_vlserver *server = vllist->servers[i].server;

		if (alists[i]) {
			write_lock(&server->lock);
			alists[i] = rcu_replace_pointer(server->addresses, alists[i],
							lockdep_is_held(&server->lock));
			write_unlock(&server->lock);
			afs_put_addrlist(alists[i]);
		}
		/* The addresses may have changed: probe the server again. */
		clear_bit(AFS_VLSERVER_FL_PROBED, &server->flags);
	}
	return vllist;

nomem:
	for (i = 0; i < vllist->nr_servers; i++)
		afs_put_addrlist(alists[i]);
	afs_put_vlserverlist(net, vllist);
	return ERR_PTR(-ENOMEM);
}

/**
 * afs_extract_vlserver_list - Build a cell's VL server list from the DNS
 * @cell: The cell
 * @buffer: The binary payload the dns_resolver upcall gave
 * @buffer_size: Its length
 *
 * The payload is decoded (see afs_dns_decode_vllist() for what is accepted)
 * and merged with the cell's current list.  A refused payload is logged with
 * the reason and the byte where it went wrong; the cell's list is left
 * alone.
 *
 * Return: The new list, or -EBADMSG, -EPROTONOSUPPORT, -E2BIG or -EINVAL if
 * the payload was refused, or -ENOMEM.
 */
struct afs_vlserver_list *afs_extract_vlserver_list(struct afs_cell *cell,
						    const void *buffer,
						    size_t buffer_size)
{
	struct afs_vlserver_list *vllist, *previous;
	struct afs_dns_vllist *dl;
	int ret;

	_enter("%s,%zu", cell->name, buffer_size);

	dl = kvmalloc(sizeof(*dl), GFP_KERNEL);
	if (!dl)
		return ERR_PTR(-ENOMEM);

	ret = afs_dns_decode_vllist(buffer, buffer_size, dl);
	if (ret < 0) {
		pr_warn("kAFS: %s: VL server list from DNS refused: %s at byte %zu of %zu (%d)\n",
			cell->name, dl->reason, dl->offset, buffer_size, ret);
		kvfree(dl);
		return ERR_PTR(ret);
	}

	read_lock(&cell->vl_servers_lock);
	previous = rcu_dereference_protected(cell->vl_servers,
					     lockdep_is_held(&cell->vl_servers_lock));
	afs_get_vlserverlist(previous);
	read_unlock(&cell->vl_servers_lock);

	vllist = afs_merge_vlserver_list(cell->net, dl, previous);
	afs_put_vlserverlist(cell->net, previous);
	kvfree(dl);
	_leave(" = %d", PTR_ERR_OR_ZERO(vllist));
	return vllist;
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/vl_list_kunit.c"
#endif
