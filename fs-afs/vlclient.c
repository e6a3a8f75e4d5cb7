// SPDX-License-Identifier: GPL-2.0-or-later
/* AFS Volume Location Service client: the calls and their reply decoders.
 *
 * Copyright (C) 2002 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * A VL server is an unauthenticated network peer, so its replies are decoded
 * by pure functions, one per reply: bytes and their length in, a result or an
 * error with its reason out.  They read nothing past the length they are
 * given and allocate nothing.  The rxrpc delivery functions only gather the
 * bytes: a reply whose length depends on its contents is read in steps, each
 * as long as the reply's size function says the bytes so far need, and then
 * handed whole to the decoder.
 *
 * XDR is big-endian: every word is read with get_unaligned_be32().
 */

#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/sched.h>
#include <asm/unaligned.h>
#include "afs_fs.h"
#include "internal.h"

/* Limits beyond the protocol's own (YFS_MAXENDPOINTS, AFS_NMAXNSERVERS). */
#define AFS_VL_MAX_CAPABILITIES	196	/* Words in a capabilities reply */
#define AFS_VL_MAX_ADDRS	AFS_MAX_ADDRESSES /* Addresses of a fileserver */

#define AFS_XDR_UUID_SIZE	sizeof(struct afs_uuid__xdr)
#define AFS_VL_ADDRS_U_HDR	(AFS_XDR_UUID_SIZE + 3 * 4)
#define AFS_YFS_ENDPOINTS_HDR	(sizeof(uuid_t) + 2 * 4)

/*
 * VL.GetEntryByNameU's reply (struct afs_uvldbentry__xdr), as offsets: a name
 * of 65 chars, nServers, 13 UUIDs, 13 serverUnique, 13 serverPartition, 13
 * serverFlags, 3 volume IDs, cloneId, flags and 9 spare words.
 */
#define AFS_UVLDB_NAME		0
#define AFS_UVLDB_NR_SERVERS	(AFS_UVLDB_NAME + AFS_VLDB_MAXNAMELEN * 4)
#define AFS_UVLDB_UUID(i)	(AFS_UVLDB_NR_SERVERS + 4 + (i) * AFS_XDR_UUID_SIZE)
#define AFS_UVLDB_UNIQUE(i)	(AFS_UVLDB_UUID(AFS_NMAXNSERVERS) + (i) * 4)
#define AFS_UVLDB_PARTITION(i)	(AFS_UVLDB_UNIQUE(AFS_NMAXNSERVERS) + (i) * 4)
#define AFS_UVLDB_SFLAGS(i)	(AFS_UVLDB_PARTITION(AFS_NMAXNSERVERS) + (i) * 4)
#define AFS_UVLDB_VOLUME_ID(i)	(AFS_UVLDB_SFLAGS(AFS_NMAXNSERVERS) + (i) * 4)
#define AFS_UVLDB_CLONE_ID	AFS_UVLDB_VOLUME_ID(AFS_MAXTYPES)
#define AFS_UVLDB_FLAGS		(AFS_UVLDB_CLONE_ID + 4)
#define AFS_UVLDB_SIZE		(AFS_UVLDB_FLAGS + 4 + 9 * 4)
static_assert(sizeof(struct afs_uvldbentry__xdr) == AFS_UVLDB_SIZE);

/*
 * Why a decoder refused a reply, and the byte where it found out.
 */
struct afs_vl_fault {
	const char	*reason;
	size_t		offset;
};

static int afs_vl_refuse(struct afs_vl_fault *fault, size_t offset, int error,
			 const char *reason)
{
	fault->reason = reason;
	fault->offset = offset;
	return error;
}

static u32 afs_xdr_word(const u8 *buf, size_t offset)
{
	return get_unaligned_be32(buf + offset);
}

/*
 * An XDR char: 0 to 255, or -128 to -1 from a server whose char is signed
 * (OpenAFS encodes UUID bytes and volume names with xdr_char).
 */
static bool afs_xdr_char(u32 word, u8 *c)
{
	if (word > 0xff && word < 0xffffff80)
		return false;
	*c = word;
	return true;
}

/*
 * A UUID as VL.GetEntryByNameU and VL.GetAddrsU carry it: eleven words.
 */
static int afs_vl_decode_uuid(const u8 *buf, size_t at, uuid_t *uuid,
			      struct afs_vl_fault *fault)
{
	struct afs_uuid *u = (struct afs_uuid *)uuid;
	u32 mid = afs_xdr_word(buf, at + 4);
	u32 hi = afs_xdr_word(buf, at + 8);
	u8 c;
	int i;

	if (mid > 0xffff || hi > 0xffff)
		return afs_vl_refuse(fault, at, -ERANGE, "UUID field out of range");
	u->time_low = cpu_to_be32(afs_xdr_word(buf, at));
	u->time_mid = cpu_to_be16(mid);
	u->time_hi_and_version = cpu_to_be16(hi);
	for (i = 0; i < 8; i++) {
		if (!afs_xdr_char(afs_xdr_word(buf, at + 12 + i * 4), &c))
			return afs_vl_refuse(fault, at, -ERANGE, "UUID byte out of range");
		if (i == 0)
			u->clock_seq_hi_and_reserved = c;
		else if (i == 1)
			u->clock_seq_low = c;
		else
			u->node[i - 2] = c;
	}
	return 0;
}

/*
 * The size check that every variable-length reply ends with: @size is what
 * the reply's own bytes say it must be.
 */
static int afs_vl_check_size(int size, size_t len, struct afs_vl_fault *fault)
{
	if (size < 0)
		return size;
	if (len < size)
		return afs_vl_refuse(fault, len, -EBADMSG, "reply cut short");
	if (len > size)
		return afs_vl_refuse(fault, size, -EBADMSG, "trailing bytes");
	return 0;
}

/*
 * VL.GetEntryByNameU: a fixed-size struct afs_uvldbentry__xdr.
 *
 * The name must be NUL-terminated within its 65 words and not empty; at most
 * 13 servers; every UUID field in range.  Servers flagged DONTUSE are
 * skipped; if any usable server is flagged NEWREPSITE (a release is under
 * way), only those are used.  A server with RWVOL holds the RW volume, and
 * the backup too if the entry says one exists; ROVOL, the RO volume; a server
 * with neither is skipped.  An entry with no volume at all is valid but
 * records -ENOMEDIUM.
 */
static int afs_vl_decode_entry(const void *buf, size_t len,
			       struct afs_vldb_entry *entry,
			       struct afs_vl_fault *fault)
{
	u32 nr_servers, vlflags, sflags;
	bool new_only = false;
	int i, n, ret;
	u8 c;

	if (len < AFS_UVLDB_SIZE)
		return afs_vl_refuse(fault, len, -EBADMSG, "reply cut short");
	if (len > AFS_UVLDB_SIZE)
		return afs_vl_refuse(fault, AFS_UVLDB_SIZE, -EBADMSG, "trailing bytes");

	memset(entry, 0, sizeof(*entry));
	for (i = 0; i < AFS_VLDB_MAXNAMELEN; i++) {
		size_t at = AFS_UVLDB_NAME + i * 4;

		if (!afs_xdr_char(afs_xdr_word(buf, at), &c))
			return afs_vl_refuse(fault, at, -ERANGE, "name character out of range");
		if (c == 0)
			break;
		entry->name[i] = c;
	}
	if (i == AFS_VLDB_MAXNAMELEN)
		return afs_vl_refuse(fault, AFS_UVLDB_NAME, -EBADMSG, "name not terminated");
	if (i == 0)
		return afs_vl_refuse(fault, AFS_UVLDB_NAME, -EBADMSG, "empty name");
	entry->name_len = i;

	nr_servers = afs_xdr_word(buf, AFS_UVLDB_NR_SERVERS);
	if (nr_servers > AFS_NMAXNSERVERS)
		return afs_vl_refuse(fault, AFS_UVLDB_NR_SERVERS, -E2BIG,
				     "more than 13 servers");

	vlflags = afs_xdr_word(buf, AFS_UVLDB_FLAGS);
	for (i = 0; i < nr_servers; i++) {
		sflags = afs_xdr_word(buf, AFS_UVLDB_SFLAGS(i));
		if ((sflags & (AFS_VLSF_NEWREPSITE | AFS_VLSF_DONTUSE)) ==
		    AFS_VLSF_NEWREPSITE)
			new_only = true;
	}

	for (i = 0; i < nr_servers; i++) {
		u8 mask = 0;

		sflags = afs_xdr_word(buf, AFS_UVLDB_SFLAGS(i));
		if (sflags & AFS_VLSF_DONTUSE)
			continue;
		if (new_only && !(sflags & AFS_VLSF_NEWREPSITE))
			continue;
		if (sflags & AFS_VLSF_RWVOL) {
			mask |= AFS_VOL_VTM_RW;
			if (vlflags & AFS_VLF_BACKEXISTS)
				mask |= AFS_VOL_VTM_BAK;
		}
		if (sflags & AFS_VLSF_ROVOL)
			mask |= AFS_VOL_VTM_RO;
		if (!mask)
			continue;

		n = entry->nr_servers;
		ret = afs_vl_decode_uuid(buf, AFS_UVLDB_UUID(i), &entry->fs_server[n], fault);
		if (ret < 0)
			return ret;
		entry->fs_mask[n] = mask;
		entry->addr_version[n] = afs_xdr_word(buf, AFS_UVLDB_UNIQUE(i));
		entry->nr_servers++;
	}

	for (i = 0; i < AFS_MAXTYPES; i++)
		entry->vid[i] = afs_xdr_word(buf, AFS_UVLDB_VOLUME_ID(i));

	if (vlflags & AFS_VLF_RWEXISTS)
		__set_bit(AFS_VLDB_HAS_RW, &entry->flags);
	if (vlflags & AFS_VLF_ROEXISTS)
		__set_bit(AFS_VLDB_HAS_RO, &entry->flags);
	if (vlflags & AFS_VLF_BACKEXISTS)
		__set_bit(AFS_VLDB_HAS_BAK, &entry->flags);
	if (!(vlflags & (AFS_VLF_RWEXISTS | AFS_VLF_ROEXISTS | AFS_VLF_BACKEXISTS))) {
		entry->error = -ENOMEDIUM;
		__set_bit(AFS_VLDB_QUERY_ERROR, &entry->flags);
	}
	__set_bit(AFS_VLDB_QUERY_VALID, &entry->flags);
	return 0;
}

/*
 * VL.GetAddrsU:
 *
 *	uuid(44) uniquifier(4) nentries(4) count(4) count*address(4)
 *
 * The UUID must be the one asked about, nentries must equal count, and count
 * be at most %AFS_VL_MAX_ADDRS.  The addresses are IPv4, in network byte
 * order; repeats count once.
 */
static int afs_vl_addrs_u_size(const void *buf, size_t len)
{
	u32 count;

	if (len < AFS_VL_ADDRS_U_HDR)
		return AFS_VL_ADDRS_U_HDR;
	count = afs_xdr_word(buf, AFS_VL_ADDRS_U_HDR - 4);
	if (count > AFS_VL_MAX_ADDRS)
		return -E2BIG;
	return AFS_VL_ADDRS_U_HDR + count * 4;
}

/*
 * Decode a whole GetAddrsU reply; with no @alist, only check it.
 * Return: the number of address records, or an error.
 */
static int afs_vl_decode_addrs_u(const void *buf, size_t len, const uuid_t *want,
				 struct afs_addr_list *alist,
				 struct afs_vl_fault *fault)
{
	int size = afs_vl_addrs_u_size(buf, len), ret, i;
	u32 nentries, count;
	uuid_t uuid;

	if (size == -E2BIG)
		return afs_vl_refuse(fault, AFS_VL_ADDRS_U_HDR - 4, -E2BIG,
				     "too many addresses");
	ret = afs_vl_check_size(size, len, fault);
	if (ret < 0)
		return ret;

	ret = afs_vl_decode_uuid(buf, 0, &uuid, fault);
	if (ret < 0)
		return ret;
	if (!uuid_equal(&uuid, want))
		return afs_vl_refuse(fault, 0, -EBADMSG, "not the UUID asked about");

	nentries = afs_xdr_word(buf, AFS_XDR_UUID_SIZE + 4);
	count = afs_xdr_word(buf, AFS_XDR_UUID_SIZE + 8);
	if (nentries != count)
		return afs_vl_refuse(fault, AFS_XDR_UUID_SIZE + 4, -EBADMSG,
				     "nentries and the address count disagree");
	if (!alist)
		return count;
	if (WARN_ON(alist->max_addrs < count))
		return -E2BIG;

	alist->version = afs_xdr_word(buf, AFS_XDR_UUID_SIZE);
	for (i = 0; i < count; i++)
		afs_merge_fs_addr4(alist,
				   cpu_to_be32(afs_xdr_word(buf, AFS_VL_ADDRS_U_HDR + i * 4)),
				   AFS_FS_PORT);
	return count;
}

/*
 * YFSVL.GetEndpoints:
 *
 *	endpoint = type(4)=0 len(4)=8 ipv4(4) port(4)
 *		 | type(4)=1 len(4)=20 ipv6(16) port(4)
 *	reply    = uuid(16) uniquifier(4) nfs(4) nfs*endpoint nvol(4)
 *		   nvol*endpoint
 *
 * The UUID is opaque and must be the one asked about; at most
 * %YFS_MAXENDPOINTS of each kind; the length must be the type's; the port
 * 1 to 65535.  Only the fileserver endpoints are used.
 */
static int afs_yfs_endpoint_size(u32 type)
{
	switch (type) {
	case YFS_ENDPOINT_IPV4:
		return 4 + 4 + 4 + 4;
	case YFS_ENDPOINT_IPV6:
		return 4 + 4 + 16 + 4;
	default:
		return -EPROTONOSUPPORT;
	}
}

/*
 * Walk @nr endpoints from *_at, as far as @len allows, leaving *_at at the
 * first endpoint not walked.  Return: 0 if all were walked, the size needed
 * to go on, or -EPROTONOSUPPORT for an unknown type.
 */
static int afs_yfs_walk_endpoints(const void *buf, size_t len, size_t *_at,
				  u32 nr)
{
	int size;

	for (; nr > 0; nr--) {
		if (len < *_at + 4)
			return *_at + 4;
		size = afs_yfs_endpoint_size(afs_xdr_word(buf, *_at));
		if (size < 0)
			return size;
		*_at += size;
	}
	return 0;
}

/*
 * Return: the size of the whole reply if @len bytes say what it is, else a
 * size larger than @len that is needed to go on, or an error with *_bad at
 * the faulty word: -E2BIG for too many endpoints, -EPROTONOSUPPORT for an
 * unknown endpoint type.
 */
static int afs_yfsvl_endpoints_size(const void *buf, size_t len, size_t *_bad)
{
	size_t at = AFS_YFS_ENDPOINTS_HDR;
	u32 nr;
	int pass, ret;

	if (len < at)
		return at;
	for (pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (len < at + 4)
				return at + 4;
			at += 4;
		}
		nr = afs_xdr_word(buf, at - 4);
		if (nr > YFS_MAXENDPOINTS) {
			*_bad = at - 4;
			return -E2BIG;
		}
		ret = afs_yfs_walk_endpoints(buf, len, &at, nr);
		if (ret != 0) {
			*_bad = at;
			return ret;
		}
	}
	return at;
}

static int afs_yfs_decode_endpoint(const void *buf, size_t at,
				   struct afs_addr_list *alist,
				   struct afs_vl_fault *fault)
{
	u32 type = afs_xdr_word(buf, at);
	u32 elen = afs_xdr_word(buf, at + 4);
	u32 port;
	__be32 addr[4];

	if (type == YFS_ENDPOINT_IPV4) {
		if (elen != 8)
			return afs_vl_refuse(fault, at + 4, -EBADMSG,
					     "IPv4 endpoint length is not 8");
		port = afs_xdr_word(buf, at + 12);
	} else {
		if (elen != 20)
			return afs_vl_refuse(fault, at + 4, -EBADMSG,
					     "IPv6 endpoint length is not 20");
		port = afs_xdr_word(buf, at + 24);
	}
	if (port == 0 || port > 65535)
		return afs_vl_refuse(fault, at, -ERANGE, "port out of range");
	if (!alist)
		return 0;

	if (type == YFS_ENDPOINT_IPV4) {
		afs_merge_fs_addr4(alist, cpu_to_be32(afs_xdr_word(buf, at + 8)), port);
	} else {
		memcpy(addr, buf + at + 8, sizeof(addr));
		afs_merge_fs_addr6(alist, addr, port);
	}
	return 0;
}

/*
 * Decode a whole GetEndpoints reply; with no @alist, only check it.
 * Return: the number of fileserver endpoints, or an error.
 */
static int afs_yfsvl_decode_endpoints(const void *buf, size_t len,
				      const uuid_t *want,
				      struct afs_addr_list *alist,
				      struct afs_vl_fault *fault)
{
	size_t at = AFS_YFS_ENDPOINTS_HDR, bad = 0;
	int size = afs_yfsvl_endpoints_size(buf, len, &bad), ret, pass;
	u32 nr, nr_fs = 0;

	if (size == -E2BIG)
		return afs_vl_refuse(fault, bad, -E2BIG, "too many endpoints");
	if (size == -EPROTONOSUPPORT)
		return afs_vl_refuse(fault, bad, -EPROTONOSUPPORT,
				     "unknown endpoint type");
	ret = afs_vl_check_size(size, len, fault);
	if (ret < 0)
		return ret;

	if (memcmp(buf, want, sizeof(*want)) != 0)
		return afs_vl_refuse(fault, 0, -EBADMSG, "not the UUID asked about");

	for (pass = 0; pass < 2; pass++) {
		nr = afs_xdr_word(buf, at - 4);
		if (pass == 0)
			nr_fs = nr;
		for (; nr > 0; nr--) {
			ret = afs_yfs_decode_endpoint(buf, at, pass == 0 ? alist : NULL,
						      fault);
			if (ret < 0)
				return ret;
			at += afs_yfs_endpoint_size(afs_xdr_word(buf, at));
		}
		at += 4;
	}

	if (!alist)
		return nr_fs;
	if (WARN_ON(alist->max_addrs < nr_fs))
		return -E2BIG;
	alist->version = afs_xdr_word(buf, sizeof(uuid_t));
	return nr_fs;
}

/*
 * VL.GetCapabilities: count(4) count*word(4), count at most
 * %AFS_VL_MAX_CAPABILITIES.  Nothing uses the capabilities yet; the first
 * word is given back.
 */
static int afs_vl_capabilities_size(const void *buf, size_t len)
{
	u32 count;

	if (len < 4)
		return 4;
	count = afs_xdr_word(buf, 0);
	if (count > AFS_VL_MAX_CAPABILITIES)
		return -E2BIG;
	return 4 + count * 4;
}

static int afs_vl_decode_capabilities(const void *buf, size_t len, u32 *caps,
				      struct afs_vl_fault *fault)
{
	int size = afs_vl_capabilities_size(buf, len), ret;

	if (size == -E2BIG)
		return afs_vl_refuse(fault, 0, -E2BIG, "too many capability words");
	ret = afs_vl_check_size(size, len, fault);
	if (ret < 0)
		return ret;
	*caps = len > 4 ? afs_xdr_word(buf, 4) : 0;
	return 0;
}

/*
 * YFSVL.GetCellName: namesz(4) name(namesz) padding to a word.  The name is
 * 1 to %YFS_VL_MAXCELLNAME printable ASCII characters; the padding is not
 * looked at.
 */
static int afs_yfsvl_cell_name_size(const void *buf, size_t len)
{
	u32 namesz;

	if (len < 4)
		return 4;
	namesz = afs_xdr_word(buf, 0);
	if (namesz > YFS_VL_MAXCELLNAME)
		return -E2BIG;
	return 4 + round_up(namesz, 4);
}

/*
 * Decode a cell name reply into @name (%YFS_VL_MAXCELLNAME + 1 bytes), or
 * only check it if @name is NULL.  Return: the name's length or an error.
 */
static int afs_yfsvl_decode_cell_name(const void *buf, size_t len, char *name,
				      struct afs_vl_fault *fault)
{
	int size = afs_yfsvl_cell_name_size(buf, len), ret, i;
	u32 namesz;

	if (size == -E2BIG)
		return afs_vl_refuse(fault, 0, -E2BIG, "cell name too long");
	ret = afs_vl_check_size(size, len, fault);
	if (ret < 0)
		return ret;

	namesz = afs_xdr_word(buf, 0);
	if (namesz == 0)
		return afs_vl_refuse(fault, 0, -EBADMSG, "empty cell name");
	for (i = 0; i < namesz; i++) {
		u8 c = ((const u8 *)buf)[4 + i];

		if (c <= ' ' || c >= 0x7f)
			return afs_vl_refuse(fault, 4 + i, -EBADMSG,
					     "bad character in cell name");
		if (name)
			name[i] = c;
	}
	if (name)
		name[i] = 0;
	return namesz;
}

/*
 * Delivery.  A refused reply is logged with its reason and fails the call
 * with -EBADMSG, which aborts it with RXGEN_CC_UNMARSHAL.
 */
static int afs_vl_bad_reply(struct afs_call *call, int error,
			    const struct afs_vl_fault *fault)
{
	pr_warn_ratelimited("kAFS: %s reply refused: %s at byte %zu (%d)\n",
			    call->type->name, fault->reason, fault->offset, error);
	call->unmarshalling_error = true;
	return -EBADMSG;
}

/*
 * Gather a reply whose size its own bytes tell into call->buffer
 * (call->reply_max bytes).  @size says, from the bytes so far, how many the
 * reply needs; once it says no more, check that nothing follows.  call->count
 * holds the bytes gathered, call->count2 the bytes being read.
 *
 * Return: 0 when the whole reply is in call->buffer, -EAGAIN to be called
 * again, or an error.  A size error is left for the decoder to report.
 */
static int afs_vl_gather(struct afs_call *call,
			 int (*size)(const void *buf, size_t len))
{
	int need, ret;

	for (;;) {
		switch (call->unmarshall) {
		case 0:
			need = size(call->buffer, call->count);
			if (need < 0 || need == call->count) {
				afs_extract_discard(call, 0);
				call->unmarshall = 2;
				continue;
			}
			if (WARN_ON(need > call->reply_max))
				return -EIO;
			afs_extract_begin(call, call->buffer + call->count,
					  need - call->count);
			call->count2 = need;
			call->unmarshall = 1;
			fallthrough;
		case 1:
			ret = afs_extract_data(call, true);
			if (ret < 0)
				return ret;
			call->count = call->count2;
			call->unmarshall = 0;
			continue;
		case 2:
			/* A size error: stop reading, the decoder says why. */
			if (size(call->buffer, call->count) < 0)
				return 0;
			ret = afs_extract_data(call, false);
			if (ret < 0)
				return ret;
			call->unmarshall = 3;
			fallthrough;
		default:
			return 0;
		}
	}
}

/*
 * Make a call to the server and address the cursor chose, and wait for it.
 * The call's error, abort code and whether the server answered are left in
 * the cursor for rotation to judge.  Returns the reply (the call's ret0) or
 * a negative error.
 */
static long afs_vl_call(struct afs_vl_cursor *vc, struct afs_call *call)
{
	call->key = vc->key;
	call->max_lifespan = AFS_VL_MAX_LIFESPAN;
	trace_afs_make_vl_call(call);
	afs_make_call(&vc->ac, call, GFP_KERNEL);
	return afs_wait_for_call_to_complete(call, &vc->ac);
}

/*
 * Deliver reply data to a VL.GetEntryByNameU call.
 */
static int afs_deliver_vl_get_entry_by_name_u(struct afs_call *call)
{
	struct afs_vl_fault fault;
	int ret;

	_enter("");

	ret = afs_transfer_reply(call);
	if (ret < 0)
		return ret;

	ret = afs_vl_decode_entry(call->buffer, call->reply_max, call->ret_vldb, &fault);
	if (ret < 0)
		return afs_vl_bad_reply(call, ret, &fault);
	_leave(" = 0 [done]");
	return 0;
}

static void afs_destroy_vl_get_entry_by_name_u(struct afs_call *call)
{
	kfree(call->ret_vldb);
	afs_flat_call_destructor(call);
}

/*
 * VL.GetEntryByNameU operation type.
 */
static const struct afs_call_type afs_vl_get_entry_by_name_u_type = {
	.name		= "VL.GetEntryByNameU",
	.op		= VLGETENTRYBYNAMEU,
	.deliver	= afs_deliver_vl_get_entry_by_name_u,
	.destructor	= afs_destroy_vl_get_entry_by_name_u,
};

/**
 * afs_vl_get_entry_by_name_u - Look up a volume's VLDB entry by name or ID
 * @vc: The VL server cursor, with a server and address chosen
 * @volname: The volume name, or its ID in decimal
 * @volnamesz: The length of @volname
 *
 * Return: The entry, or an error; the error is also left in the cursor for
 * rotation to judge.
 */
struct afs_vldb_entry *afs_vl_get_entry_by_name_u(struct afs_vl_cursor *vc,
						  const char *volname,
						  int volnamesz)
{
	struct afs_vldb_entry *entry;
	struct afs_call *call;
	size_t reqsz, padsz;
	__be32 *bp;

	_enter("");

	padsz = (4 - (volnamesz & 3)) & 3;
	reqsz = 8 + volnamesz + padsz;

	entry = kzalloc(sizeof(*entry), GFP_KERNEL);
	if (!entry)
		return ERR_PTR(-ENOMEM);

	call = afs_alloc_flat_call(vc->cell->net, &afs_vl_get_entry_by_name_u_type,
				   reqsz, AFS_UVLDB_SIZE);
	if (!call) {
		kfree(entry);
		return ERR_PTR(-ENOMEM);
	}

	call->ret_vldb = entry;

	/* Marshall the parameters */
	bp = call->request;
	*bp++ = htonl(VLGETENTRYBYNAMEU);
	*bp++ = htonl(volnamesz);
	memcpy(bp, volname, volnamesz);
	if (padsz > 0)
		memset((void *)bp + volnamesz, 0, padsz);

	return (struct afs_vldb_entry *)afs_vl_call(vc, call);
}

/*
 * A GetAddrsU request: the opcode and a ListAddrByAttributes of Mask,
 * ipaddr, index, spare and the UUID.
 */
#define AFS_VL_ADDRS_U_REQ_UUID	(4 + 4 * 4)
#define AFS_VL_ADDRS_U_REQ_SIZE	(AFS_VL_ADDRS_U_REQ_UUID + AFS_XDR_UUID_SIZE)

/*
 * The UUID a GetAddrsU request asked about, back from its XDR form.
 */
static void afs_vl_addrs_u_want(const struct afs_call *call, uuid_t *want)
{
	struct afs_vl_fault fault;

	/* We encoded it ourselves: it cannot be out of range. */
	WARN_ON(afs_vl_decode_uuid(call->request, AFS_VL_ADDRS_U_REQ_UUID, want, &fault) < 0);
}

/*
 * Deliver reply data to a VL.GetAddrsU call.
 */
static int afs_deliver_vl_get_addrs_u(struct afs_call *call)
{
	struct afs_addr_list *alist;
	struct afs_vl_fault fault;
	uuid_t want;
	int ret;

	_enter("{%u,%u}", call->unmarshall, call->count);

	ret = afs_vl_gather(call, afs_vl_addrs_u_size);
	if (ret < 0)
		return ret;

	afs_vl_addrs_u_want(call, &want);
	ret = afs_vl_decode_addrs_u(call->buffer, call->count, &want, NULL, &fault);
	if (ret < 0)
		return afs_vl_bad_reply(call, ret, &fault);

	alist = afs_alloc_addrlist(ret, FS_SERVICE, AFS_FS_PORT);
	if (!alist)
		return -ENOMEM;
	afs_vl_decode_addrs_u(call->buffer, call->count, &want, alist, &fault);
	call->ret_alist = alist;
	_leave(" = 0 [done]");
	return 0;
}

static void afs_vl_get_addrs_u_destructor(struct afs_call *call)
{
	afs_put_addrlist(call->ret_alist);
	return afs_flat_call_destructor(call);
}

/*
 * VL.GetAddrsU operation type.
 */
static const struct afs_call_type afs_vl_get_addrs_u_type = {
	.name		= "VL.GetAddrsU",
	.op		= VLGETADDRSU,
	.deliver	= afs_deliver_vl_get_addrs_u,
	.destructor	= afs_vl_get_addrs_u_destructor,
};

/**
 * afs_vl_get_addrs_u - Get a fileserver's addresses by its UUID
 * @vc: The VL server cursor, with a server and address chosen
 * @uuid: The fileserver's UUID
 *
 * Return: The fileserver's address list, or an error; a reply about another
 * UUID is an error.
 */
struct afs_addr_list *afs_vl_get_addrs_u(struct afs_vl_cursor *vc,
					 const uuid_t *uuid)
{
	const struct afs_uuid *u = (const struct afs_uuid *)uuid;
	struct afs_call *call;
	__be32 *bp;
	int i;

	_enter("");

	call = afs_alloc_flat_call(vc->cell->net, &afs_vl_get_addrs_u_type,
				   AFS_VL_ADDRS_U_REQ_SIZE,
				   AFS_VL_ADDRS_U_HDR + AFS_VL_MAX_ADDRS * 4);
	if (!call)
		return ERR_PTR(-ENOMEM);

	/* Marshall the parameters */
	bp = call->request;
	*bp++ = htonl(VLGETADDRSU);
	*bp++ = htonl(AFS_VLADDR_UUID);		/* Match by UUID */
	*bp++ = 0;				/* ipaddr */
	*bp++ = 0;				/* index */
	*bp++ = 0;				/* spare */
	*bp++ = u->time_low;
	*bp++ = htonl(ntohs(u->time_mid));
	*bp++ = htonl(ntohs(u->time_hi_and_version));
	*bp++ = htonl((u8)u->clock_seq_hi_and_reserved);
	*bp++ = htonl((u8)u->clock_seq_low);
	for (i = 0; i < 6; i++)
		*bp++ = htonl((u8)u->node[i]);

	return (struct afs_addr_list *)afs_vl_call(vc, call);
}

/*
 * Deliver reply data to an VL.GetCapabilities operation.
 */
static int afs_deliver_vl_get_capabilities(struct afs_call *call)
{
	struct afs_vl_fault fault;
	u32 caps;
	int ret;

	_enter("{%u,%u}", call->unmarshall, call->count);

	ret = afs_vl_gather(call, afs_vl_capabilities_size);
	if (ret < 0)
		return ret;

	ret = afs_vl_decode_capabilities(call->buffer, call->count, &caps, &fault);
	if (ret < 0)
		return afs_vl_bad_reply(call, ret, &fault);
	_leave(" = 0 [caps %x]", caps);
	return 0;
}

static void afs_destroy_vl_get_capabilities(struct afs_call *call)
{
	afs_put_vlserver(call->net, call->vlserver);
	afs_flat_call_destructor(call);
}

/*
 * VL.GetCapabilities operation type
 */
static const struct afs_call_type afs_vl_get_capabilities_type = {
	.name		= "VL.GetCapabilities",
	.op		= VLGETCAPABILITIES,
	.deliver	= afs_deliver_vl_get_capabilities,
	.done		= afs_vlserver_probe_result,
	.destructor	= afs_destroy_vl_get_capabilities,
};

/**
 * afs_vl_get_capabilities - Probe a VL server, asking for the YFS upgrade
 * @net: The network namespace
 * @ac: The address cursor, with the address to probe chosen
 * @key: The key to use
 * @server: The VL server
 * @server_index: The server's index in its list
 *
 * The call is asynchronous; afs_vlserver_probe_result() gets its result.
 * The service upgrade it asks for tells whether the server speaks YFS.
 *
 * Return: The call, with a reference the caller must drop, or an error.
 */
struct afs_call *afs_vl_get_capabilities(struct afs_net *net,
					 struct afs_addr_cursor *ac,
					 struct key *key,
					 struct afs_vlserver *server,
					 unsigned int server_index)
{
	struct afs_call *call;
	__be32 *bp;

	_enter("");

	call = afs_alloc_flat_call(net, &afs_vl_get_capabilities_type, 1 * 4,
				   4 + AFS_VL_MAX_CAPABILITIES * 4);
	if (!call)
		return ERR_PTR(-ENOMEM);

	call->key = key;
	call->vlserver = afs_get_vlserver(server);
	call->server_index = server_index;
	call->upgrade = true;
	call->async = true;
	call->max_lifespan = AFS_PROBE_MAX_LIFESPAN;

	/* marshall the parameters */
	bp = call->request;
	*bp++ = htonl(VLGETCAPABILITIES);

	/* Can't take a ref on server */
	trace_afs_make_vl_call(call);
	afs_make_call(ac, call, GFP_KERNEL);
	return call;
}

static int afs_yfsvl_endpoints_need(const void *buf, size_t len)
{
	size_t bad;

	return afs_yfsvl_endpoints_size(buf, len, &bad);
}

/*
 * Deliver reply data to a YFSVL.GetEndpoints call.
 */
static int afs_deliver_yfsvl_get_endpoints(struct afs_call *call)
{
	const uuid_t *want = call->request + 8;
	struct afs_addr_list *alist;
	struct afs_vl_fault fault;
	int ret;

	_enter("{%u,%u}", call->unmarshall, call->count);

	ret = afs_vl_gather(call, afs_yfsvl_endpoints_need);
	if (ret < 0)
		return ret;

	ret = afs_yfsvl_decode_endpoints(call->buffer, call->count, want, NULL, &fault);
	if (ret < 0)
		return afs_vl_bad_reply(call, ret, &fault);

	alist = afs_alloc_addrlist(ret, FS_SERVICE, AFS_FS_PORT);
	if (!alist)
		return -ENOMEM;
	afs_yfsvl_decode_endpoints(call->buffer, call->count, want, alist, &fault);
	call->ret_alist = alist;
	_leave(" = 0 [done]");
	return 0;
}

/*
 * YFSVL.GetEndpoints operation type.
 */
static const struct afs_call_type afs_yfsvl_get_endpoints_type = {
	.name		= "YFSVL.GetEndpoints",
	.op		= YVLGETENDPOINTS,
	.deliver	= afs_deliver_yfsvl_get_endpoints,
	.destructor	= afs_vl_get_addrs_u_destructor,
};

/* The largest GetEndpoints reply the decoder accepts. */
#define AFS_YFS_ENDPOINTS_MAX	(AFS_YFS_ENDPOINTS_HDR + 4 + \
				 2 * YFS_MAXENDPOINTS * (4 + 4 + 16 + 4))

/**
 * afs_yfsvl_get_endpoints - Get a fileserver's endpoints by its UUID (YFS)
 * @vc: The VL server cursor, with a YFS server and address chosen
 * @uuid: The fileserver's UUID
 *
 * Return: The fileserver's address list, IPv6 included, or an error; a reply
 * about another UUID is an error.
 */
struct afs_addr_list *afs_yfsvl_get_endpoints(struct afs_vl_cursor *vc,
					      const uuid_t *uuid)
{
	struct afs_call *call;
	__be32 *bp;

	_enter("");

	call = afs_alloc_flat_call(vc->cell->net, &afs_yfsvl_get_endpoints_type,
				   sizeof(__be32) * 2 + sizeof(*uuid),
				   AFS_YFS_ENDPOINTS_MAX);
	if (!call)
		return ERR_PTR(-ENOMEM);

	/* Marshall the parameters */
	bp = call->request;
	*bp++ = htonl(YVLGETENDPOINTS);
	*bp++ = htonl(YFS_SERVER_UUID);
	memcpy(bp, uuid, sizeof(*uuid)); /* Type opr_uuid */

	return (struct afs_addr_list *)afs_vl_call(vc, call);
}

/*
 * Deliver reply data to a YFSVL.GetCellName operation.
 */
static int afs_deliver_yfsvl_get_cell_name(struct afs_call *call)
{
	struct afs_vl_fault fault;
	char *cell_name;
	int ret;

	_enter("{%u,%u}", call->unmarshall, call->count);

	ret = afs_vl_gather(call, afs_yfsvl_cell_name_size);
	if (ret < 0)
		return ret;

	ret = afs_yfsvl_decode_cell_name(call->buffer, call->count, NULL, &fault);
	if (ret < 0)
		return afs_vl_bad_reply(call, ret, &fault);

	cell_name = kmalloc(ret + 1, GFP_KERNEL);
	if (!cell_name)
		return -ENOMEM;
	afs_yfsvl_decode_cell_name(call->buffer, call->count, cell_name, &fault);
	call->ret_str = cell_name;
	_leave(" = 0 [done]");
	return 0;
}

static void afs_destroy_yfsvl_get_cell_name(struct afs_call *call)
{
	kfree(call->ret_str);
	afs_flat_call_destructor(call);
}

/*
 * YFSVL.GetCellName operation type
 */
static const struct afs_call_type afs_yfsvl_get_cell_name_type = {
	.name		= "YFSVL.GetCellName",
	.op		= YVLGETCELLNAME,
	.deliver	= afs_deliver_yfsvl_get_cell_name,
	.destructor	= afs_destroy_yfsvl_get_cell_name,
};

/**
 * afs_yfsvl_get_cell_name - Ask a YFS VL server for its cell's name
 * @vc: The VL server cursor, with a YFS server and address chosen
 *
 * Used to tell whether a new cell is an alias of one already known.
 *
 * Return: The name, NUL-terminated, which the caller must free, or an error.
 */
char *afs_yfsvl_get_cell_name(struct afs_vl_cursor *vc)
{
	struct afs_call *call;
	__be32 *bp;

	_enter("");

	call = afs_alloc_flat_call(vc->cell->net, &afs_yfsvl_get_cell_name_type,
				   1 * 4, 4 + YFS_VL_MAXCELLNAME);
	if (!call)
		return ERR_PTR(-ENOMEM);

	/* marshall the parameters */
	bp = call->request;
	*bp++ = htonl(YVLGETCELLNAME);

	return (char *)afs_vl_call(vc, call);
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/vlclient_kunit.c"
#endif
