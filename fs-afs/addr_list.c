// SPDX-License-Identifier: GPL-2.0-or-later
/* Server address lists: allocation, text parsing, merging and iteration.
 *
 * An address list is a refcounted array of rxrpc addresses for one server,
 * freed by RCU so that a server's list can be replaced under readers.  A list
 * is filled in once, before it is published, and never changed afterwards,
 * except for the probe masks and the preferred index.
 *
 * Lists are kept sorted, IPv4 before IPv6, and free of duplicates: the VL
 * server and fileserver code compare lists, and the probe masks index them.
 */

#include <linux/slab.h>
#include <linux/ctype.h>
#include <linux/dns_resolver.h>
#include <linux/inet.h>
#include <keys/rxrpc-type.h>
#include "internal.h"
#include "afs_fs.h"

/**
 * afs_put_addrlist - Drop a reference on an address list
 * @alist: The list, or NULL
 *
 * The list is freed after an RCU grace period when the last reference goes.
 */
void afs_put_addrlist(struct afs_addr_list *alist)
{
	if (alist && refcount_dec_and_test(&alist->usage))
		kfree_rcu(alist, rcu);
}

/**
 * afs_alloc_addrlist - Allocate an empty address list
 * @nr: The number of addresses the list must be able to hold
 * @service: The rxrpc service ID for every address in the list
 * @port: The UDP port to preset in every slot
 *
 * The capacity is capped at %AFS_MAX_ADDRESSES, the width of the probe masks;
 * merging into a full list drops the address (see afs_merge_fs_addr4()).
 *
 * Return: The list with one reference held, or NULL if out of memory.
 */
struct afs_addr_list *afs_alloc_addrlist(unsigned int nr,
					 unsigned short service,
					 unsigned short port)
{
	struct afs_addr_list *alist;
	unsigned int i;

	_enter("%u,%u,%u", nr, service, port);

	nr = min(nr, AFS_MAX_ADDRESSES);

	alist = kzalloc(struct_size(alist, addrs, nr), GFP_KERNEL);
	if (!alist)
		return NULL;

	refcount_set(&alist->usage, 1);
	alist->max_addrs = nr;

	/* Every slot carries the service, so that merging can take its
	 * template from the next free slot.
	 */
	for (i = 0; i < nr; i++) {
		struct sockaddr_rxrpc *srx = &alist->addrs[i];

		srx->srx_family			= AF_RXRPC;
		srx->srx_service		= service;
		srx->transport_type		= SOCK_DGRAM;
		srx->transport_len		= sizeof(srx->transport.sin6);
		srx->transport.sin6.sin6_family	= AF_INET6;
		srx->transport.sin6.sin6_port	= htons(port);
	}

	return alist;
}

/*
 * Order two addresses of the same family: by address, then by port, both as
 * numbers (IPv4 in host order, IPv6 bytewise).
 */
static int afs_cmp_addr(const struct sockaddr_rxrpc *a,
			const struct sockaddr_rxrpc *b)
{
	u16 a_port, b_port;

	if (a->transport.family == AF_INET) {
		u32 a_addr = ntohl(a->transport.sin.sin_addr.s_addr);
		u32 b_addr = ntohl(b->transport.sin.sin_addr.s_addr);

		if (a_addr != b_addr)
			return a_addr < b_addr ? -1 : 1;
		a_port = ntohs(a->transport.sin.sin_port);
		b_port = ntohs(b->transport.sin.sin_port);
	} else {
		int diff = memcmp(&a->transport.sin6.sin6_addr,
				  &b->transport.sin6.sin6_addr,
				  sizeof(a->transport.sin6.sin6_addr));

		if (diff)
			return diff;
		a_port = ntohs(a->transport.sin6.sin6_port);
		b_port = ntohs(b->transport.sin6.sin6_port);
	}

	return (int)a_port - (int)b_port;
}

/*
 * Insert an address into its place in a list.  @srx need only have its
 * transport filled in; the rest is taken from the list's free slot.
 *
 * Return: 0 if the address was inserted or was already there, -E2BIG if the
 * list is full.
 */
static int afs_insert_addr(struct afs_addr_list *alist,
			   const struct sockaddr_rxrpc *srx)
{
	bool ipv4 = srx->transport.family == AF_INET;
	unsigned int i = ipv4 ? 0 : alist->nr_ipv4;
	unsigned int stop = ipv4 ? alist->nr_ipv4 : alist->nr_addrs;
	struct sockaddr_rxrpc entry;

	for (; i < stop; i++) {
		int diff = afs_cmp_addr(srx, &alist->addrs[i]);

		if (diff == 0)
			return 0;
		if (diff < 0)
			break;
	}

	if (alist->nr_addrs >= alist->max_addrs)
		return -E2BIG;

	entry.srx_family	= AF_RXRPC;
	entry.srx_service	= alist->addrs[alist->nr_addrs].srx_service;
	entry.transport_type	= SOCK_DGRAM;
	entry.transport_len	= ipv4 ? sizeof(entry.transport.sin) :
					 sizeof(entry.transport.sin6);
	entry.transport		= srx->transport;

	memmove(&alist->addrs[i + 1], &alist->addrs[i],
		(alist->nr_addrs - i) * sizeof(alist->addrs[0]));
	alist->addrs[i] = entry;
	alist->nr_addrs++;
	if (ipv4)
		alist->nr_ipv4++;
	return 0;
}

static void afs_set_addr4(struct sockaddr_rxrpc *srx, __be32 addr, u16 port)
{
	memset(&srx->transport, 0, sizeof(srx->transport));
	srx->transport.sin.sin_family = AF_INET;
	srx->transport.sin.sin_port = htons(port);
	srx->transport.sin.sin_addr.s_addr = addr;
}

static void afs_set_addr6(struct sockaddr_rxrpc *srx, const __be32 *addr,
			  u16 port)
{
	memset(&srx->transport, 0, sizeof(srx->transport));
	srx->transport.sin6.sin6_family = AF_INET6;
	srx->transport.sin6.sin6_port = htons(port);
	memcpy(&srx->transport.sin6.sin6_addr, addr,
	       sizeof(srx->transport.sin6.sin6_addr));
}

static void afs_merge_addr(struct afs_addr_list *alist,
			   const struct sockaddr_rxrpc *srx)
{
	if (afs_insert_addr(alist, srx) == -E2BIG)
		pr_warn_ratelimited("kAFS: Address list full (%u), dropped %pISpc\n",
				    alist->max_addrs, &srx->transport);
}

/**
 * afs_merge_fs_addr4 - Merge an IPv4 address into an address list
 * @alist: The list, not yet published
 * @xdr: The address, in network byte order
 * @port: The UDP port, in host byte order
 *
 * The address is put in its sorted place unless already present.  If the
 * list is full the address is dropped with a rate-limited warning: servers
 * never need more than %AFS_MAX_ADDRESSES.
 */
void afs_merge_fs_addr4(struct afs_addr_list *alist, __be32 xdr, u16 port)
{
	struct sockaddr_rxrpc srx;

	afs_set_addr4(&srx, xdr, port);
	afs_merge_addr(alist, &srx);
}

/**
 * afs_merge_fs_addr6 - Merge an IPv6 address into an address list
 * @alist: The list, not yet published
 * @xdr: The address, 16 bytes in network byte order
 * @port: The UDP port, in host byte order
 *
 * As afs_merge_fs_addr4(), for IPv6.
 */
void afs_merge_fs_addr6(struct afs_addr_list *alist, __be32 *xdr, u16 port)
{
	struct sockaddr_rxrpc srx;

	afs_set_addr6(&srx, xdr, port);
	afs_merge_addr(alist, &srx);
}

/*
 * Text address lists come from the rootcell module parameter, from "add"
 * commands written to /proc/net/afs/cells and from plain-text DNS upcall
 * results.  The grammar:
 *
 *	list  = entry *(delim entry)
 *	entry = addr ["+" port]
 *	addr  = ipv4 | "[" ipv6 "]" | ipv6
 *	port  = 1*DIGIT			; decimal, 1 to 65535
 *
 * A ':' delimiter is read as ',' when the text holds a ',' or no '.', so that
 * a list of bare IPv6 addresses can still be given; otherwise a bare IPv6
 * address would be split at its colons and rejected.
 *
 * Everything else is rejected with -EINVAL: an empty entry (a leading,
 * trailing or doubled delimiter), whitespace, a NUL, an IPv4 address in
 * brackets, a scope ID, port 0, or anything but a delimiter after an entry.
 * More distinct addresses than %AFS_MAX_ADDRESSES give -E2BIG rather than a
 * list that silently lost some.
 */
#define AFS_ADDR_TEXT_MAX	INET6_ADDRSTRLEN

static bool afs_text_to_addr4(const char *p, const char *end,
			      struct sockaddr_rxrpc *srx, u16 port)
{
	const char *stop;
	__be32 addr;

	if (end - p >= AFS_ADDR_TEXT_MAX ||
	    !in4_pton(p, end - p, (u8 *)&addr, -1, &stop) || stop != end)
		return false;
	afs_set_addr4(srx, addr, port);
	return true;
}

static bool afs_text_to_addr6(const char *p, const char *end,
			      struct sockaddr_rxrpc *srx, u16 port)
{
	const char *stop;
	__be32 addr[4];

	if (end - p >= AFS_ADDR_TEXT_MAX ||
	    !in6_pton(p, end - p, (u8 *)addr, -1, &stop) || stop != end)
		return false;
	afs_set_addr6(srx, addr, port);
	return true;
}

/*
 * Parse one entry from *_p and step over it and the delimiter after it.
 */
static int afs_parse_text_entry(const char **_p, const char *end, char delim,
				u16 default_port, struct sockaddr_rxrpc *srx)
{
	const char *p = *_p, *q;
	unsigned int port = default_port;

	if (p == end || *p == delim)
		return -EINVAL;	/* Empty entry */

	if (*p == '[') {
		q = memchr(p + 1, ']', end - (p + 1));
		if (!q || !afs_text_to_addr6(p + 1, q, srx, port))
			return -EINVAL;
		p = q + 1;
	} else {
		for (q = p; q < end && *q != '+' && *q != delim; q++)
			;
		if (!afs_text_to_addr4(p, q, srx, port) &&
		    !afs_text_to_addr6(p, q, srx, port))
			return -EINVAL;
		p = q;
	}

	if (p < end && *p == '+') {
		p++;
		if (p == end || !isdigit(*p))
			return -EINVAL;
		port = 0;
		do {
			port = port * 10 + (*p - '0');
			if (port > 65535)
				return -EINVAL;
			p++;
		} while (p < end && isdigit(*p));
		if (port == 0)
			return -EINVAL;
		if (srx->transport.family == AF_INET)
			srx->transport.sin.sin_port = htons(port);
		else
			srx->transport.sin6.sin6_port = htons(port);
	}

	if (p < end) {
		if (*p != delim)
			return -EINVAL;
		p++;
		if (p == end)
			return -EINVAL;	/* Trailing delimiter */
	}

	*_p = p;
	return 0;
}

/*
 * Parse a whole text list.  With no @alist, just check it and count its
 * entries; with one, merge the entries into it.
 *
 * Return: The number of entries, or a negative error.
 */
static int afs_parse_text_list(const char *text, size_t len, char delim,
			       u16 port, struct afs_addr_list *alist)
{
	const char *p = text, *end = text + len;
	struct sockaddr_rxrpc srx;
	int nr = 0, ret;

	do {
		ret = afs_parse_text_entry(&p, end, delim, port, &srx);
		if (ret < 0)
			return ret;
		if (alist) {
			ret = afs_insert_addr(alist, &srx);
			if (ret < 0)
				return ret;
		}
		nr++;
	} while (p < end);

	return nr;
}

/**
 * afs_parse_text_addrs - Parse a text list of VL server addresses
 * @net: The network namespace
 * @text: The text, not necessarily NUL-terminated
 * @len: The length of @text
 * @delim: The delimiter between entries, ',' or ':' (see above)
 * @service: The rxrpc service ID to give the addresses
 * @port: The port for addresses that do not name one
 *
 * The addresses are given to a single VL server record named "<dummy>".
 *
 * Return: The VL server list, -EDESTADDRREQ if @len is 0, -EINVAL if the text
 * is malformed, -E2BIG if it holds more than %AFS_MAX_ADDRESSES distinct
 * addresses, or -ENOMEM.
 */
struct afs_vlserver_list *afs_parse_text_addrs(struct afs_net *net,
					       const char *text, size_t len,
					       char delim,
					       unsigned short service,
					       unsigned short port)
{
	struct afs_vlserver_list *vllist;
	struct afs_addr_list *alist;
	int nr, ret;

	_enter("%*.*s,%c", (int)len, (int)len, text, delim);

	if (!len)
		return ERR_PTR(-EDESTADDRREQ);

	if (delim == ':' && (memchr(text, ',', len) || !memchr(text, '.', len)))
		delim = ',';

	nr = afs_parse_text_list(text, len, delim, port, NULL);
	if (nr < 0)
		return ERR_PTR(nr);

	vllist = afs_alloc_vlserver_list(1);
	if (!vllist)
		return ERR_PTR(-ENOMEM);

	ret = -ENOMEM;
	vllist->nr_servers = 1;
	vllist->servers[0].server = afs_alloc_vlserver("<dummy>", 7, AFS_VL_PORT);
	if (!vllist->servers[0].server)
		goto error;

	alist = afs_alloc_addrlist(nr, service, port);
	if (!alist)
		goto error;

	/* The text was checked above, so only the size can fail now. */
	ret = afs_parse_text_list(text, len, delim, port, alist);
	if (ret < 0) {
		afs_put_addrlist(alist);
		goto error;
	}

	rcu_assign_pointer(vllist->servers[0].server->addresses, alist);
	_leave(" = [nr %u]", alist->nr_addrs);
	return vllist;

error:
	afs_put_vlserverlist(net, vllist);
	_leave(" = %d", ret);
	return ERR_PTR(ret);
}

/**
 * afs_dns_query - Look up a cell's VL servers through the DNS resolver
 * @cell: The cell
 * @_expiry: Where to store the time the result expires
 *
 * The upcall answers in the binary VL server list format or, from older
 * resolvers, as comma-separated address text.
 *
 * Return: The VL server list, or an error.
 */
struct afs_vlserver_list *afs_dns_query(struct afs_cell *cell,
					time64_t *_expiry)
{
	struct afs_vlserver_list *vllist;
	char *result = NULL;
	int ret;

	_enter("%s", cell->name);

	ret = dns_query(cell->net->net, "afsdb", cell->name, cell->name_len,
			"srv=1", &result, _expiry, true);
	if (ret < 0)
		return ERR_PTR(ret);

	if (*_expiry == 0)
		*_expiry = ktime_get_real_seconds() + 60;

	/* The binary format starts with a zero byte. */
	if (ret > 1 && result[0] == 0)
		vllist = afs_extract_vlserver_list(cell, result, ret);
	else
		vllist = afs_parse_text_addrs(cell->net, result, ret, ',',
					      VL_SERVICE, AFS_VL_PORT);
	kfree(result);
	if (IS_ERR(vllist) && vllist != ERR_PTR(-ENOMEM))
		pr_err("Failed to parse DNS data %ld\n", PTR_ERR(vllist));

	return vllist;
}

/**
 * afs_iterate_addresses - Choose the next address for a cursor to try
 * @ac: The cursor
 *
 * The candidates are the addresses that have responded to a probe and that
 * have neither failed nor already been tried by this cursor.  The list's
 * preferred address goes first if it is a candidate, then the candidates in
 * index order.
 *
 * Return: true with @ac->index set, or false if no candidate is left or the
 * cursor has no list.
 */
bool afs_iterate_addresses(struct afs_addr_cursor *ac)
{
	struct afs_addr_list *alist = ac->alist;
	unsigned long candidates;
	unsigned int index;

	if (!alist)
		return false;

	ac->nr_iterations++;

	candidates = READ_ONCE(alist->responded);
	candidates &= ~(READ_ONCE(alist->failed) | ac->tried);
	if (alist->nr_addrs < BITS_PER_LONG)
		candidates &= BIT(alist->nr_addrs) - 1;
	_enter("%lx,%lx,%d", candidates, ac->tried, ac->index);
	if (!candidates)
		return false;

	index = READ_ONCE(alist->preferred);
	if (index >= BITS_PER_LONG || !test_bit(index, &candidates))
		index = __ffs(candidates);

	ac->index = index;
	__set_bit(index, &ac->tried);
	ac->responded = false;
	return true;
}

/**
 * afs_end_cursor - Finish with an address cursor
 * @ac: The cursor
 *
 * If the current address answered and the preferred one had been tried
 * before it (and so presumably did not answer), the current one becomes the
 * list's preferred address.  The cursor's reference on the list is dropped.
 *
 * Return: The cursor's error.
 */
int afs_end_cursor(struct afs_addr_cursor *ac)
{
	struct afs_addr_list *alist = ac->alist;

	if (alist) {
		unsigned int preferred = READ_ONCE(alist->preferred);

		if (ac->responded &&
		    ac->index != preferred &&
		    preferred < BITS_PER_LONG &&
		    test_bit(preferred, &ac->tried))
			WRITE_ONCE(alist->preferred, ac->index);
		afs_put_addrlist(alist);
		ac->alist = NULL;
	}

	return ac->error;
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/addr_list_kunit.c"
#endif
