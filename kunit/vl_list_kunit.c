// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suites for the VL server lists the DNS upcall gives: the decoder
 * (afs_dns_decode), merging with a cell's previous list (afs_dns_merge).
 *
 * Included by vl_list.c, so that the static decoder can be reached.  Every
 * payload is copied into a kmalloc'd buffer of exactly its length, so that
 * KASAN reports a read of even one byte past the end.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/inet.h>
#include <linux/ctype.h>
#include <linux/prandom.h>

static const char *const afs_test_dns_sources[NR__dns_record_source + 1] = {
	"unav", "cfg", "A", "AFSDB", "SRV", "nss", "weird"
};

static const char *const afs_test_dns_statuses[NR__dns_lookup_status + 1] = {
	"no-lookup", "good", "good/bad", "bad", "not-found", "local-failure",
	"temp-failure", "ns-failure", "weird"
};

/*
 * Render a decoded list as
 *	"<source>/<status>: <name>:<port> p<prio> w<weight> <source>/<status> [<addr> ...] ..."
 * so that a table row's expected result reads as a string.
 */
static void afs_test_dns_format(const struct afs_dns_vllist *dl, char *buf,
				size_t size)
{
	size_t n;
	int i, j;

	n = scnprintf(buf, size, "%s/%s:", afs_test_dns_sources[dl->source],
		      afs_test_dns_statuses[dl->status]);
	for (i = 0; i < dl->nr_servers; i++) {
		const struct afs_dns_server *s = &dl->servers[i];

		n += scnprintf(buf + n, size - n, " %s:%u p%u w%u %s/%s [",
			       s->name, s->port, s->priority, s->weight,
			       afs_test_dns_sources[s->source],
			       afs_test_dns_statuses[s->status]);
		for (j = 0; j < s->nr_addrs; j++) {
			const struct afs_dns_addr *a = &s->addrs[j];

			if (a->family == AF_INET)
				n += scnprintf(buf + n, size - n, "%s%pI4",
					       j ? " " : "", a->addr);
			else
				n += scnprintf(buf + n, size - n, "%s%pI6c",
					       j ? " " : "", a->addr);
		}
		n += scnprintf(buf + n, size - n, "]");
	}
}

/*
 * What every decoded list must be, whatever the payload: return the first
 * thing broken, or NULL.
 */
static const char *afs_test_dns_problem(const struct afs_dns_vllist *dl)
{
	int i, j, k;

	if (dl->nr_servers > AFS_VL_MAX_SERVERS)
		return "more servers than the limit";
	if (dl->source > NR__dns_record_source || dl->status > NR__dns_lookup_status)
		return "list source or status out of range";

	for (i = 0; i < dl->nr_servers; i++) {
		const struct afs_dns_server *s = &dl->servers[i];

		if (s->name_len < 1 || s->name_len > AFS_DNS_MAX_NAME)
			return "name length out of range";
		if (s->name[s->name_len] != 0 || strlen(s->name) != s->name_len)
			return "name not terminated at its length";
		for (j = 0; j < s->name_len; j++)
			if (s->name[j] <= ' ' || s->name[j] >= 0x7f)
				return "name byte not printable ASCII";
		if (s->port == 0)
			return "port 0";
		if (s->protocol != DNS_SERVER_PROTOCOL_UDP)
			return "protocol not UDP";
		if (s->source > NR__dns_record_source || s->status > NR__dns_lookup_status)
			return "server source or status out of range";
		if (s->nr_addrs > AFS_MAX_ADDRESSES)
			return "more addresses than the limit";
		for (j = 0; j < s->nr_addrs; j++) {
			const struct afs_dns_addr *a = &s->addrs[j];

			if (a->family != AF_INET && a->family != AF_INET6)
				return "bad address family";
			for (k = 0; k < j; k++)
				if (s->addrs[k].family == a->family &&
				    memcmp(s->addrs[k].addr, a->addr,
					   a->family == AF_INET ? 4 : 16) == 0)
					return "duplicate address";
		}
		for (k = 0; k < i; k++) {
			const struct afs_dns_server *p = &dl->servers[k];

			if (p->port == s->port && p->name_len == s->name_len &&
			    strncasecmp(p->name, s->name, s->name_len) == 0)
				return "duplicate server";
		}
		if (i > 0) {
			const struct afs_dns_server *p = &dl->servers[i - 1];

			if (p->priority > s->priority ||
			    (p->priority == s->priority && p->weight < s->weight))
				return "servers out of order";
		}
	}
	return NULL;
}

/*
 * A payload built in code, for the limits and the fuzzer.
 */
struct afs_test_buf {
	u8		*data;
	size_t		len;
	size_t		size;
};

static void afs_test_put(struct afs_test_buf *b, const void *p, size_t n)
{
	if (WARN_ON(b->len + n > b->size))
		return;
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static void afs_test_put_u8(struct afs_test_buf *b, u8 v)
{
	afs_test_put(b, &v, 1);
}

/* Little-endian, a byte at a time, whatever the machine. */
static void afs_test_put_le16(struct afs_test_buf *b, u16 v)
{
	afs_test_put_u8(b, v & 0xff);
	afs_test_put_u8(b, v >> 8);
}

static void afs_test_put_hdr(struct afs_test_buf *b, u8 source, u8 status, u8 nr)
{
	u8 x[6] = { 0, DNS_PAYLOAD_IS_SERVER_LIST, 1, source, status, nr };

	afs_test_put(b, x, 6);
}

/* A server record's fixed part and its name, from @s and the given fields. */
static void afs_test_put_record(struct afs_test_buf *b,
				const struct afs_dns_server *s, u16 prio,
				u16 weight, u16 port, u8 source, u8 status,
				u8 protocol, u8 nr_addrs)
{
	afs_test_put_le16(b, s->name_len);
	afs_test_put_le16(b, prio);
	afs_test_put_le16(b, weight);
	afs_test_put_le16(b, port);
	afs_test_put_u8(b, source);
	afs_test_put_u8(b, status);
	afs_test_put_u8(b, protocol);
	afs_test_put_u8(b, nr_addrs);
	afs_test_put(b, s->name, s->name_len);
}

static void afs_test_put_server(struct afs_test_buf *b,
				const struct afs_dns_server *s, u16 port,
				u8 source, u8 status, u8 protocol, u8 nr_addrs)
{
	afs_test_put_record(b, s, s->priority, s->weight, port, source, status,
			    protocol, nr_addrs);
}

static void afs_test_put_addr(struct afs_test_buf *b, const struct afs_dns_addr *a)
{
	if (a->family == AF_INET) {
		afs_test_put_u8(b, DNS_ADDRESS_IS_IPV4);
		afs_test_put(b, a->addr, 4);
	} else {
		afs_test_put_u8(b, DNS_ADDRESS_IS_IPV6);
		afs_test_put(b, a->addr, 16);
	}
}

static struct afs_test_buf *afs_test_buf_alloc(struct kunit *test, size_t size)
{
	struct afs_test_buf *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	b->data = kunit_kzalloc(test, size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, b->data);
	b->size = size;
	return b;
}

/* Decode @len bytes from an exactly sized copy. */
static int afs_test_dns_decode(struct kunit *test, const u8 *payload,
			       size_t len, struct afs_dns_vllist *dl)
{
	u8 *copy = kmalloc(len, GFP_KERNEL);
	int ret;

	KUNIT_ASSERT_FALSE(test, ZERO_OR_NULL_PTR(copy) && len);
	if (len)
		memcpy(copy, payload, len);
	ret = afs_dns_decode_vllist(copy, len, dl);
	kfree(copy);
	return ret;
}

static struct afs_dns_vllist *afs_test_dns_alloc(struct kunit *test)
{
	struct afs_dns_vllist *dl = kunit_kzalloc(test, sizeof(*dl), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, dl);
	return dl;
}

/* A copy of @s that lives as long as the case. */
static char *afs_test_strdup(struct kunit *test, const char *s)
{
	char *copy = kunit_kzalloc(test, strlen(s) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	return strcpy(copy, s);
}

static unsigned int afs_test_num(struct kunit *test, char **p)
{
	char *tok = strsep(p, " ");
	unsigned int v;

	KUNIT_ASSERT_NOT_NULL(test, tok);
	KUNIT_ASSERT_EQ_MSG(test, kstrtouint(tok, 0, &v), 0, "bad number '%s'", tok);
	return v;
}

static const char *afs_test_word(struct kunit *test, char **p)
{
	char *tok = strsep(p, " ");

	KUNIT_ASSERT_NOT_NULL(test, tok);
	return tok;
}

/*
 * A payload, written as words (the grammar of e2e/helpers/dns-payload.c):
 *
 *	hdr SRC ST NR		the header: source, status, server records
 *	srv NAME PRIO WEIGHT PORT PROTO NADDRS
 *				a server record, source SRV and status good,
 *				and its name
 *	rec LEN PRIO WEIGHT PORT SRC ST PROTO NADDRS
 *				a server record's fixed part alone
 *	text STR		the bytes of STR
 *	a4 ADDR | a6 ADDR	an address record
 *	byte N			one byte
 *	cut N			drop the last N bytes so far
 *
 * The 16-bit fields are put little-endian a byte at a time, so that a row
 * is the same bytes on every machine.
 */
static size_t afs_test_dns_build(struct kunit *test, const char *spec, u8 *out,
				 size_t size)
{
	struct afs_test_buf b = { .data = out, .size = size };
	char *copy = afs_test_strdup(test, spec), *p = copy, *w;
	u8 addr[16];
	size_t n;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	while ((w = strsep(&p, " "))) {
		if (!*w)
			continue;
		if (strcmp(w, "hdr") == 0) {
			afs_test_put_u8(&b, 0);
			afs_test_put_u8(&b, DNS_PAYLOAD_IS_SERVER_LIST);
			afs_test_put_u8(&b, 1);
			afs_test_put_u8(&b, afs_test_num(test, &p));
			afs_test_put_u8(&b, afs_test_num(test, &p));
			afs_test_put_u8(&b, afs_test_num(test, &p));
		} else if (strcmp(w, "srv") == 0 || strcmp(w, "rec") == 0) {
			const char *name = NULL;

			if (w[0] == 's') {
				name = afs_test_word(test, &p);
				afs_test_put_le16(&b, strlen(name));
			} else {
				afs_test_put_le16(&b, afs_test_num(test, &p));
			}
			afs_test_put_le16(&b, afs_test_num(test, &p));	/* Priority */
			afs_test_put_le16(&b, afs_test_num(test, &p));	/* Weight */
			afs_test_put_le16(&b, afs_test_num(test, &p));	/* Port */
			if (name) {
				afs_test_put_u8(&b, DNS_RECORD_FROM_DNS_SRV);
				afs_test_put_u8(&b, DNS_LOOKUP_GOOD);
			} else {
				afs_test_put_u8(&b, afs_test_num(test, &p));
				afs_test_put_u8(&b, afs_test_num(test, &p));
			}
			afs_test_put_u8(&b, afs_test_num(test, &p));	/* Protocol */
			afs_test_put_u8(&b, afs_test_num(test, &p));	/* Addresses */
			if (name)
				afs_test_put(&b, name, strlen(name));
		} else if (strcmp(w, "text") == 0) {
			w = (char *)afs_test_word(test, &p);
			afs_test_put(&b, w, strlen(w));
		} else if (strcmp(w, "a4") == 0) {
			w = (char *)afs_test_word(test, &p);
			KUNIT_ASSERT_TRUE(test, in4_pton(w, -1, addr, -1, NULL));
			afs_test_put_u8(&b, DNS_ADDRESS_IS_IPV4);
			afs_test_put(&b, addr, 4);
		} else if (strcmp(w, "a6") == 0) {
			w = (char *)afs_test_word(test, &p);
			KUNIT_ASSERT_TRUE(test, in6_pton(w, -1, addr, -1, NULL));
			afs_test_put_u8(&b, DNS_ADDRESS_IS_IPV6);
			afs_test_put(&b, addr, 16);
		} else if (strcmp(w, "byte") == 0) {
			afs_test_put_u8(&b, afs_test_num(test, &p));
		} else if (strcmp(w, "cut") == 0) {
			n = afs_test_num(test, &p);
			b.len -= min(n, b.len);
		} else {
			KUNIT_FAIL(test, "unknown word '%s' in '%s'", w, spec);
			break;
		}
	}
	return b.len;
}

/*
 * The table: one row per branch of the decoder (docs/dns_vl.md maps them).
 * A row expects an error with its reason and offset, or the decoded list as
 * afs_test_dns_format() renders it.
 */
struct afs_dns_case {
	const char	*name;
	const char	*payload;
	int		error;
	const char	*reason;
	size_t		offset;
	const char	*expect;
};

static const struct afs_dns_case afs_dns_cases[] = {
	/* The header. */
	{ "empty payload", "",
	  .error = -EBADMSG, .reason = "short header", .offset = 0 },
	{ "header cut at 5 bytes", "hdr 4 1 0 cut 1",
	  .error = -EBADMSG, .reason = "short header", .offset = 0 },
	{ "text payload", "text 1.2.3.4",
	  .error = -EPROTONOSUPPORT, .reason = "not a binary payload", .offset = 0 },
	{ "unknown content type", "byte 0 byte 1 byte 1 byte 4 byte 1 byte 0",
	  .error = -EPROTONOSUPPORT, .reason = "unknown content type", .offset = 1 },
	{ "version 0", "byte 0 byte 0 byte 0 byte 4 byte 1 byte 0",
	  .error = -EPROTONOSUPPORT, .reason = "unknown version", .offset = 2 },
	{ "version 2", "byte 0 byte 0 byte 2 byte 4 byte 1 byte 0",
	  .error = -EPROTONOSUPPORT, .reason = "unknown version", .offset = 2 },
	{ "17 servers in the header", "hdr 4 1 17",
	  .error = -E2BIG, .reason = "too many servers", .offset = 5 },
	{ "no servers, not found", "hdr 0 4 0",
	  .expect = "unav/not-found:" },
	{ "list source and status beyond the known ones", "hdr 99 200 0",
	  .expect = "weird/weird:" },

	/* Server records. */
	{ "server record missing", "hdr 4 1 1",
	  .error = -EBADMSG, .reason = "short server record", .offset = 6 },
	{ "server record cut at 11 bytes", "hdr 4 1 1 srv vla 0 0 0 1 0 cut 4",
	  .error = -EBADMSG, .reason = "short server record", .offset = 6 },
	{ "empty server name", "hdr 4 1 1 rec 0 0 0 0 4 1 1 0",
	  .error = -EINVAL, .reason = "empty server name", .offset = 6 },
	{ "server name of 256 bytes", "hdr 4 1 1 rec 256 0 0 0 4 1 1 0 text v",
	  .error = -E2BIG, .reason = "server name too long", .offset = 6 },
	{ "server name past the end", "hdr 4 1 1 rec 4 0 0 0 4 1 1 0 text vla",
	  .error = -EBADMSG, .reason = "server name past the end", .offset = 6 },
	{ "NUL in server name", "hdr 4 1 1 rec 3 0 0 0 4 1 1 0 text v byte 0 text a",
	  .error = -EINVAL, .reason = "bad character in server name", .offset = 19 },
	{ "space in server name", "hdr 4 1 1 rec 3 0 0 0 4 1 1 0 text vl byte 0x20",
	  .error = -EINVAL, .reason = "bad character in server name", .offset = 20 },
	{ "DEL in server name", "hdr 4 1 1 rec 3 0 0 0 4 1 1 0 byte 0x7f text la",
	  .error = -EINVAL, .reason = "bad character in server name", .offset = 18 },
	{ "non-ASCII byte in server name",
	  "hdr 4 1 1 rec 3 0 0 0 4 1 1 0 text v byte 0xc3 text a",
	  .error = -EINVAL, .reason = "bad character in server name", .offset = 19 },
	{ "TCP protocol", "hdr 4 1 1 srv vla 0 0 0 2 0",
	  .error = -EPROTONOSUPPORT, .reason = "unsupported protocol", .offset = 6 },
	{ "protocol 3", "hdr 4 1 1 srv vla 0 0 0 3 0",
	  .error = -EPROTONOSUPPORT, .reason = "unsupported protocol", .offset = 6 },
	{ "protocol unspecified means UDP", "hdr 4 1 1 srv vla 0 0 7003 0 1 a4 10.0.0.1",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [10.0.0.1]" },
	{ "port 0 means 7003", "hdr 4 1 1 srv vla 0 0 0 1 1 a4 10.0.0.1",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [10.0.0.1]" },
	{ "port is little-endian: 59 1b is 7001",
	  "hdr 4 1 1 byte 3 byte 0 byte 0 byte 0 byte 0 byte 0 byte 0x59 byte 0x1b byte 4 byte 1 byte 1 byte 1 text vla a4 10.0.0.1",
	  .expect = "SRV/good: vla:7001 p0 w0 SRV/good [10.0.0.1]" },
	{ "server source and status beyond the known ones",
	  "hdr 4 1 1 rec 3 0 0 0 6 8 1 1 text vla a4 10.0.0.1",
	  .expect = "SRV/good: vla:7003 p0 w0 weird/weird [10.0.0.1]" },

	/* Addresses. */
	{ "address record missing", "hdr 4 1 1 srv vla 0 0 0 1 1",
	  .error = -EBADMSG, .reason = "address record past the end", .offset = 21 },
	{ "IPv4 address cut at 3 bytes", "hdr 4 1 1 srv vla 0 0 0 1 1 a4 10.0.0.1 cut 1",
	  .error = -EBADMSG, .reason = "truncated IPv4 address", .offset = 21 },
	{ "IPv6 address cut at 15 bytes", "hdr 4 1 1 srv vla 0 0 0 1 1 a6 2001:db8:: cut 1",
	  .error = -EBADMSG, .reason = "truncated IPv6 address", .offset = 21 },
	{ "unknown address type",
	  "hdr 4 1 1 srv vla 0 0 0 1 1 byte 2 byte 10 byte 0 byte 0 byte 1",
	  .error = -EPROTONOSUPPORT, .reason = "unknown address type", .offset = 21 },
	{ "second address cut short",
	  "hdr 4 1 1 srv vla 0 0 0 1 2 a4 10.0.0.1 byte 0 byte 10",
	  .error = -EBADMSG, .reason = "truncated IPv4 address", .offset = 26 },
	{ "IPv4 and IPv6 addresses, in network byte order",
	  "hdr 4 1 1 srv vla 0 0 0 1 2 a4 10.1.2.3 a6 2001:db8::1",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [10.1.2.3 2001:db8::1]" },
	{ "a repeated address counts once",
	  "hdr 4 1 1 srv vla 0 0 0 1 4 a4 10.0.0.1 a6 2001:db8::1 a4 10.0.0.1 a6 2001:db8::1",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [10.0.0.1 2001:db8::1]" },
	{ "an IPv4 address is not the IPv6 one that starts with its bytes",
	  "hdr 4 1 1 srv vla 0 0 0 1 2 a6 2001:db8:: a4 32.1.13.184",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [2001:db8:: 32.1.13.184]" },
	{ "a server with no addresses", "hdr 4 1 1 srv vla 0 0 0 1 0",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good []" },

	/* The end. */
	{ "a trailing byte", "hdr 4 1 1 srv vla 0 0 0 1 1 a4 10.0.0.1 byte 0",
	  .error = -EBADMSG, .reason = "trailing bytes", .offset = 26 },
	{ "a server record beyond the count", "hdr 4 1 1 srv vla 0 0 0 1 0 srv vlb 0 0 0 1 0",
	  .error = -EBADMSG, .reason = "trailing bytes", .offset = 21 },

	/* Records for the same server. */
	{ "records for the same server pool their addresses",
	  "hdr 4 1 2 srv vla 0 0 0 1 2 a4 10.0.0.1 a4 10.0.0.2 srv vla 0 0 0 1 2 a4 10.0.0.2 a6 2001:db8::3",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [10.0.0.1 10.0.0.2 2001:db8::3]" },
	{ "server names match without regard to case",
	  "hdr 4 1 2 srv vla 0 0 7003 1 1 a4 10.0.0.1 srv VLA 0 0 0 1 1 a4 10.0.0.2",
	  .expect = "SRV/good: vla:7003 p0 w0 SRV/good [10.0.0.1 10.0.0.2]" },
	{ "the same name on another port is another server",
	  "hdr 4 1 2 srv vla 0 0 7003 1 1 a4 10.0.0.1 srv vla 0 0 7004 1 1 a4 10.0.0.1",
	  .expect =
	  "SRV/good: vla:7003 p0 w0 SRV/good [10.0.0.1] vla:7004 p0 w0 SRV/good [10.0.0.1]",
	},
	{ "a better record for the same server gives its priority, weight, source, status",
	  "hdr 4 1 2 srv vla 10 0 0 1 1 a4 10.0.0.1 rec 3 5 1 0 3 2 1 1 text vla a4 10.0.0.2",
	  .expect = "SRV/good: vla:7003 p5 w1 AFSDB/good/bad [10.0.0.1 10.0.0.2]" },
	{ "a higher weight at the same priority is better",
	  "hdr 4 1 2 srv vla 5 1 0 1 0 rec 3 5 2 0 3 1 1 0 text vla",
	  .expect = "SRV/good: vla:7003 p5 w2 AFSDB/good []" },
	{ "a worse or equal record for the same server adds only addresses",
	  "hdr 4 1 3 srv vla 5 1 0 1 1 a4 10.0.0.1 rec 3 6 9 0 3 3 1 1 text vla a4 10.0.0.2 rec 3 5 1 0 5 3 1 0 text vla",
	  .expect = "SRV/good: vla:7003 p5 w1 SRV/good [10.0.0.1 10.0.0.2]" },

	/* Order. */
	{ "lower priority first", "hdr 4 1 2 srv vla 20 0 0 1 0 srv vlb 10 0 0 1 0",
	  .expect = "SRV/good: vlb:7003 p10 w0 SRV/good [] vla:7003 p20 w0 SRV/good []" },
	{ "same priority: higher weight first", "hdr 4 1 2 srv vla 10 1 0 1 0 srv vlb 10 2 0 1 0",
	  .expect = "SRV/good: vlb:7003 p10 w2 SRV/good [] vla:7003 p10 w1 SRV/good []" },
	{ "same priority and weight: payload order",
	  "hdr 4 1 3 srv vlb 10 5 0 1 0 srv vlc 10 5 0 1 0 srv vla 10 5 0 1 0",
	  .expect =
	  "SRV/good: vlb:7003 p10 w5 SRV/good [] vlc:7003 p10 w5 SRV/good [] vla:7003 p10 w5 SRV/good []",
	},
	{ "priority and weight are little-endian: 256 is 00 01",
	  "hdr 4 1 3 srv vla 256 0 0 1 0 srv vlb 1 1 0 1 0 srv vlc 1 256 0 1 0",
	  .expect =
	  "SRV/good: vlc:7003 p1 w256 SRV/good [] vlb:7003 p1 w1 SRV/good [] vla:7003 p256 w0 SRV/good []",
	},
	{ "an error after good records is still an error",
	  "hdr 4 1 2 srv vla 0 0 0 1 1 a4 10.0.0.1 srv vlb 0 0 0 1 1 byte 7",
	  .error = -EPROTONOSUPPORT, .reason = "unknown address type", .offset = 41 },
};

static void afs_dns_case_desc(const struct afs_dns_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_dns, afs_dns_cases, afs_dns_case_desc);

static void afs_dns_decode_table(struct kunit *test)
{
	const struct afs_dns_case *c = test->param_value;
	struct afs_dns_vllist *dl = afs_test_dns_alloc(test);
	u8 *payload = kunit_kzalloc(test, 1024, GFP_KERNEL);
	char *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	size_t len;
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, payload);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	len = afs_test_dns_build(test, c->payload, payload, 1024);
	ret = afs_test_dns_decode(test, payload, len, dl);
	KUNIT_EXPECT_EQ(test, ret, c->error);
	if (c->error) {
		KUNIT_EXPECT_STREQ(test, dl->reason ?: "(none)", c->reason);
		KUNIT_EXPECT_EQ(test, dl->offset, c->offset);
		return;
	}
	if (ret == 0) {
		KUNIT_EXPECT_NULL(test, afs_test_dns_problem(dl));
		afs_test_dns_format(dl, buf, 1024);
		KUNIT_EXPECT_STREQ(test, buf, c->expect);
	}
}

/* Server @i of a test list: name "s<i>", addresses 10.<i>.<j/256>.<j%256>. */
static void afs_test_make_server(struct afs_dns_server *s, unsigned int i,
				 unsigned int nr_addrs)
{
	unsigned int j;

	memset(s, 0, sizeof(*s));
	s->name_len = scnprintf(s->name, sizeof(s->name), "s%u", i);
	s->port = AFS_VL_PORT;
	s->source = DNS_RECORD_FROM_DNS_SRV;
	s->status = DNS_LOOKUP_GOOD;
	s->protocol = DNS_SERVER_PROTOCOL_UDP;
	s->nr_addrs = nr_addrs;
	for (j = 0; j < nr_addrs; j++) {
		s->addrs[j].family = AF_INET;
		s->addrs[j].addr[0] = htonl(0x0a000000 | (i << 16) | j);
	}
}

static void afs_dns_decode_limit_servers(struct kunit *test)
{
	struct afs_test_buf *b = afs_test_buf_alloc(test, 4096);
	struct afs_dns_vllist *dl = afs_test_dns_alloc(test);
	struct afs_dns_server *s = &dl->scratch;
	int i;

	afs_test_put_hdr(b, DNS_RECORD_FROM_DNS_SRV, DNS_LOOKUP_GOOD, AFS_VL_MAX_SERVERS);
	for (i = 0; i < AFS_VL_MAX_SERVERS; i++) {
		afs_test_make_server(s, i, 1);
		afs_test_put_server(b, s, 0, s->source, s->status, s->protocol, 1);
		afs_test_put_addr(b, &s->addrs[0]);
	}
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), 0);
	KUNIT_EXPECT_EQ(test, dl->nr_servers, AFS_VL_MAX_SERVERS);
	KUNIT_EXPECT_NULL(test, afs_test_dns_problem(dl));

	/* One more record in the same payload. */
	b->data[5] = AFS_VL_MAX_SERVERS + 1;
	afs_test_make_server(s, AFS_VL_MAX_SERVERS, 0);
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol, 0);
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), -E2BIG);
	KUNIT_EXPECT_STREQ(test, dl->reason, "too many servers");
}

static void afs_dns_decode_limit_name(struct kunit *test)
{
	struct afs_test_buf *b = afs_test_buf_alloc(test, 1024);
	struct afs_dns_vllist *dl = afs_test_dns_alloc(test);
	struct afs_dns_server *s = &dl->scratch;

	afs_test_make_server(s, 0, 0);
	memset(s->name, 'n', AFS_DNS_MAX_NAME);
	s->name_len = AFS_DNS_MAX_NAME;
	afs_test_put_hdr(b, DNS_RECORD_FROM_DNS_SRV, DNS_LOOKUP_GOOD, 1);
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol, 0);
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), 0);
	KUNIT_EXPECT_EQ(test, dl->servers[0].name_len, AFS_DNS_MAX_NAME);
	KUNIT_EXPECT_EQ(test, strlen(dl->servers[0].name), AFS_DNS_MAX_NAME);

	b->len = 0;
	afs_test_put_hdr(b, DNS_RECORD_FROM_DNS_SRV, DNS_LOOKUP_GOOD, 1);
	memset(s->name, 'n', AFS_DNS_MAX_NAME);
	s->name_len = AFS_DNS_MAX_NAME + 1;	/* One byte past s->name's NUL */
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol, 0);
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), -E2BIG);
	KUNIT_EXPECT_STREQ(test, dl->reason, "server name too long");
}

/* The limit is on distinct addresses, over all the records of a server. */
static void afs_dns_decode_limit_addrs(struct kunit *test)
{
	struct afs_test_buf *b = afs_test_buf_alloc(test, 8192);
	struct afs_dns_vllist *dl = afs_test_dns_alloc(test);
	struct afs_dns_server *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	size_t at;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, s);

	/* AFS_MAX_ADDRESSES distinct, each twice: 2 * 64 records on 64-bit. */
	afs_test_make_server(s, 1, AFS_MAX_ADDRESSES);
	afs_test_put_hdr(b, DNS_RECORD_FROM_DNS_SRV, DNS_LOOKUP_GOOD, 1);
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol,
			    2 * AFS_MAX_ADDRESSES);
	for (i = 0; i < 2 * AFS_MAX_ADDRESSES; i++)
		afs_test_put_addr(b, &s->addrs[i % AFS_MAX_ADDRESSES]);
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), 0);
	KUNIT_EXPECT_EQ(test, dl->servers[0].nr_addrs, AFS_MAX_ADDRESSES);

	/* One more distinct address. */
	b->len = 0;
	afs_test_put_hdr(b, DNS_RECORD_FROM_DNS_SRV, DNS_LOOKUP_GOOD, 1);
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol,
			    AFS_MAX_ADDRESSES + 1);
	for (i = 0; i < AFS_MAX_ADDRESSES; i++)
		afs_test_put_addr(b, &s->addrs[i]);
	at = b->len;
	s->addrs[0].addr[0] = htonl(0x0b000001);
	afs_test_put_addr(b, &s->addrs[0]);
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), -E2BIG);
	KUNIT_EXPECT_STREQ(test, dl->reason, "too many addresses");
	KUNIT_EXPECT_EQ(test, dl->offset, at);

	/* The same server in two records whose addresses overflow together. */
	afs_test_make_server(s, 1, AFS_MAX_ADDRESSES);
	b->len = 0;
	afs_test_put_hdr(b, DNS_RECORD_FROM_DNS_SRV, DNS_LOOKUP_GOOD, 2);
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol,
			    AFS_MAX_ADDRESSES);
	for (i = 0; i < AFS_MAX_ADDRESSES; i++)
		afs_test_put_addr(b, &s->addrs[i]);
	at = b->len;
	afs_test_put_server(b, s, 0, s->source, s->status, s->protocol, 1);
	s->addrs[0].addr[0] = htonl(0x0b000001);
	afs_test_put_addr(b, &s->addrs[0]);
	KUNIT_EXPECT_EQ(test, afs_test_dns_decode(test, b->data, b->len, dl), -E2BIG);
	KUNIT_EXPECT_STREQ(test, dl->reason, "too many addresses");
	KUNIT_EXPECT_EQ(test, dl->offset, at);
}

/*
 * The fuzzer.  Each round makes a random list (the oracle), encodes it, with
 * variations that must not change what it decodes to (port 0 for 7003,
 * protocol unspecified for UDP, repeated addresses, a server split over two
 * records, a source or status past the known ones for "weird"), and then
 * either leaves the payload alone or mutates it:
 *
 *	intact		must decode to the list
 *	truncated	any shorter prefix must give -EBADMSG
 *	extended	any bytes added must give -EBADMSG, "trailing bytes", at
 *			the original length
 *	corrupted	1 to 4 bytes changed: an error the decoder documents, or
 *			a list that keeps every invariant
 *
 * Every input is decoded from a kmalloc'd buffer of exactly its length.
 */
#define AFS_TEST_DNS_FUZZ_ROUNDS	100000

enum afs_test_mutation {
	AFS_TEST_INTACT,
	AFS_TEST_TRUNCATED,
	AFS_TEST_EXTENDED,
	AFS_TEST_CORRUPTED,
	AFS_TEST_NR_MUTATIONS
};

static const char *const afs_test_mutations[AFS_TEST_NR_MUTATIONS] = {
	"intact", "truncated", "extended", "corrupted"
};

static u32 afs_test_rnd(struct rnd_state *rnd, u32 n)
{
	return prandom_u32_state(rnd) % n;
}

static void afs_test_random_server(struct rnd_state *rnd,
				   struct afs_dns_server *s, unsigned int i)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";
	unsigned int j, nr, len;

	memset(s, 0, sizeof(*s));
	/* The first character makes the name unique, whatever the case. */
	len = afs_test_rnd(rnd, 10) ? 1 + afs_test_rnd(rnd, 20) :
				      1 + afs_test_rnd(rnd, AFS_DNS_MAX_NAME);
	s->name[0] = 'a' + i;
	for (j = 1; j < len; j++)
		s->name[j] = chars[afs_test_rnd(rnd, sizeof(chars) - 1)];
	s->name_len = len;

	s->port = afs_test_rnd(rnd, 4) ? AFS_VL_PORT : prandom_u32_state(rnd) | 1;
	/* Mostly small values, so that ties are common; some past 255. */
	s->priority = afs_test_rnd(rnd, 4) ? afs_test_rnd(rnd, 3) : prandom_u32_state(rnd);
	s->weight = afs_test_rnd(rnd, 4) ? afs_test_rnd(rnd, 3) : prandom_u32_state(rnd);
	s->source = min_t(u32, afs_test_rnd(rnd, NR__dns_record_source + 2),
			  NR__dns_record_source);
	s->status = min_t(u32, afs_test_rnd(rnd, NR__dns_lookup_status + 2),
			  NR__dns_lookup_status);
	s->protocol = DNS_SERVER_PROTOCOL_UDP;

	switch (afs_test_rnd(rnd, 20)) {
	case 0:
		nr = AFS_MAX_ADDRESSES;
		break;
	case 1 ... 3:
		nr = afs_test_rnd(rnd, AFS_MAX_ADDRESSES + 1);
		break;
	default:
		nr = afs_test_rnd(rnd, 5);
		break;
	}
	/* Distinct by construction: the server and the index are in them. */
	for (j = 0; j < nr; j++) {
		struct afs_dns_addr *a = &s->addrs[j];

		if (afs_test_rnd(rnd, 2)) {
			a->family = AF_INET;
			a->addr[0] = htonl(0x0a000000 | (i << 16) | (j << 8) |
					   afs_test_rnd(rnd, 256));
		} else {
			a->family = AF_INET6;
			a->addr[0] = htonl(0x20010db8);
			a->addr[1] = prandom_u32_state(rnd);
			a->addr[2] = prandom_u32_state(rnd);
			a->addr[3] = htonl((i << 16) | j);
		}
	}
	s->nr_addrs = nr;
}

/*
 * Encode addresses [from, to) of @s as one record, repeating some.  The
 * record's own fields are given, so that a second record for the same server
 * can differ from the first in what must not matter.
 */
static void afs_test_encode_record(struct rnd_state *rnd, struct afs_test_buf *b,
				   const struct afs_dns_server *s,
				   unsigned int from, unsigned int to,
				   u16 prio, u16 weight, u8 source, u8 status)
{
	unsigned int j, nr = 0, repeat[AFS_MAX_ADDRESSES];
	u16 port = s->port;
	u8 src = source, st = status;

	for (j = from; j < to; j++)
		repeat[j] = afs_test_rnd(rnd, 8) == 0;
	for (j = from; j < to; j++)
		nr += 1 + repeat[j];

	if (port == AFS_VL_PORT && afs_test_rnd(rnd, 2))
		port = 0;
	if (src == NR__dns_record_source)
		src += afs_test_rnd(rnd, 256 - NR__dns_record_source);
	if (st == NR__dns_lookup_status)
		st += afs_test_rnd(rnd, 256 - NR__dns_lookup_status);

	afs_test_put_record(b, s, prio, weight, port, src, st,
			    afs_test_rnd(rnd, 2) ? DNS_SERVER_PROTOCOL_UDP :
						   DNS_SERVER_PROTOCOL_UNSPECIFIED,
			    nr);
	for (j = from; j < to; j++) {
		afs_test_put_addr(b, &s->addrs[j]);
		if (repeat[j])
			afs_test_put_addr(b, &s->addrs[j]);
	}
}

struct afs_test_split {
	unsigned int	server;
	unsigned int	from;		/* Addresses from here are in a second record */
};

/*
 * Make a random list in @known, in payload order, and its payload in @b.
 */
static void afs_test_random_payload(struct rnd_state *rnd,
				    struct afs_dns_vllist *known,
				    struct afs_test_buf *b)
{
	struct afs_test_split splits[AFS_VL_MAX_SERVERS];
	unsigned int nr, nr_splits = 0, nr_records, i;
	u8 source, status;

	nr = afs_test_rnd(rnd, 8) ? afs_test_rnd(rnd, 5) :
				    afs_test_rnd(rnd, AFS_VL_MAX_SERVERS + 1);
	known->nr_servers = nr;
	known->source = min_t(u32, afs_test_rnd(rnd, NR__dns_record_source + 2),
			      NR__dns_record_source);
	known->status = min_t(u32, afs_test_rnd(rnd, NR__dns_lookup_status + 2),
			      NR__dns_lookup_status);
	for (i = 0; i < nr; i++) {
		afs_test_random_server(rnd, &known->servers[i], i);
		if (nr + nr_splits < AFS_VL_MAX_SERVERS &&
		    known->servers[i].nr_addrs >= 2 && afs_test_rnd(rnd, 4) == 0) {
			splits[nr_splits].server = i;
			splits[nr_splits].from =
				1 + afs_test_rnd(rnd, known->servers[i].nr_addrs - 1);
			nr_splits++;
		}
	}
	nr_records = nr + nr_splits;

	source = known->source;
	if (source == NR__dns_record_source)
		source += afs_test_rnd(rnd, 256 - NR__dns_record_source);
	status = known->status;
	if (status == NR__dns_lookup_status)
		status += afs_test_rnd(rnd, 256 - NR__dns_lookup_status);

	b->len = 0;
	afs_test_put_hdr(b, source, status, nr_records);
	for (i = 0; i < nr; i++) {
		const struct afs_dns_server *s = &known->servers[i];
		unsigned int to = s->nr_addrs, k;

		for (k = 0; k < nr_splits; k++)
			if (splits[k].server == i)
				to = splits[k].from;
		afs_test_encode_record(rnd, b, s, 0, to, s->priority, s->weight,
				       s->source, s->status);
	}

	/* The second records come after every first one, worse or equal, and
	 * with the name's case changed: they may add addresses, nothing else.
	 */
	for (i = 0; i < nr_splits; i++) {
		struct afs_dns_server *s = &known->servers[splits[i].server];
		char saved = s->name[0];
		u16 prio = s->priority, weight = s->weight;

		if (prio < U16_MAX && afs_test_rnd(rnd, 2))
			prio += 1 + afs_test_rnd(rnd, U16_MAX - prio);
		else if (weight > 0 && afs_test_rnd(rnd, 2))
			weight -= 1 + afs_test_rnd(rnd, weight);
		s->name[0] = toupper(saved);
		afs_test_encode_record(rnd, b, s, splits[i].from, s->nr_addrs,
				       prio, weight,
				       afs_test_rnd(rnd, NR__dns_record_source),
				       afs_test_rnd(rnd, NR__dns_lookup_status));
		s->name[0] = saved;
	}
}

/*
 * The order the decoder must give: priority, low first; weight, high first;
 * then the payload order.  Written as a selection of the least, by index,
 * to be unlike the decoder's insertion sort.
 */
static void afs_test_expected_order(const struct afs_dns_vllist *known, u8 *order)
{
	bool taken[AFS_VL_MAX_SERVERS] = {};
	int i, j, best;

	for (i = 0; i < known->nr_servers; i++) {
		best = -1;
		for (j = 0; j < known->nr_servers; j++) {
			const struct afs_dns_server *s = &known->servers[j];

			if (taken[j])
				continue;
			if (best < 0 ||
			    s->priority < known->servers[best].priority ||
			    (s->priority == known->servers[best].priority &&
			     s->weight > known->servers[best].weight))
				best = j;
		}
		taken[best] = true;
		order[i] = best;
	}
}

/* Where the decoded list differs from the known one, or NULL. */
static const char *afs_test_dns_diff(const struct afs_dns_vllist *known,
				     const struct afs_dns_vllist *got)
{
	u8 order[AFS_VL_MAX_SERVERS];
	int i, j;

	if (got->source != known->source || got->status != known->status)
		return "list source or status";
	if (got->nr_servers != known->nr_servers)
		return "number of servers";
	afs_test_expected_order(known, order);
	for (i = 0; i < known->nr_servers; i++) {
		const struct afs_dns_server *k = &known->servers[order[i]];
		const struct afs_dns_server *g = &got->servers[i];

		if (g->name_len != k->name_len || memcmp(g->name, k->name, k->name_len))
			return "name or order";
		if (g->port != k->port)
			return "port";
		if (g->priority != k->priority || g->weight != k->weight)
			return "priority or weight";
		if (g->source != k->source || g->status != k->status)
			return "server source or status";
		if (g->protocol != DNS_SERVER_PROTOCOL_UDP)
			return "protocol";
		if (g->nr_addrs != k->nr_addrs)
			return "number of addresses";
		for (j = 0; j < k->nr_addrs; j++)
			if (g->addrs[j].family != k->addrs[j].family ||
			    memcmp(g->addrs[j].addr, k->addrs[j].addr,
				   sizeof(k->addrs[j].addr)))
				return "address";
	}
	return NULL;
}

static bool afs_test_dns_error_known(int error)
{
	return error == -EBADMSG || error == -EPROTONOSUPPORT ||
		error == -E2BIG || error == -EINVAL;
}

static void afs_dns_decode_fuzz(struct kunit *test)
{
	struct afs_test_buf *b = afs_test_buf_alloc(test, 65536);
	struct afs_dns_vllist *known, *got;
	unsigned int counts[AFS_TEST_NR_MUTATIONS] = {};
	unsigned int accepted = 0, refused = 0, reasons[5] = {};
	struct rnd_state rnd;
	const char *problem;
	size_t full;
	u64 start = ktime_get_ns();
	int i, k, ret;

	known = kvzalloc(sizeof(*known), GFP_KERNEL);
	got = kvzalloc(sizeof(*got), GFP_KERNEL);
	if (!known || !got) {
		kvfree(known);
		kvfree(got);
		KUNIT_FAIL(test, "no memory");
		return;
	}
	prandom_seed_state(&rnd, 0x646e7376);	/* Fixed: failures reproduce. */

	for (i = 0; i < AFS_TEST_DNS_FUZZ_ROUNDS; i++) {
		enum afs_test_mutation m;
		u32 r = afs_test_rnd(&rnd, 100);

		afs_test_random_payload(&rnd, known, b);
		full = b->len;
		m = r < 40 ? AFS_TEST_INTACT : r < 55 ? AFS_TEST_TRUNCATED :
			r < 65 ? AFS_TEST_EXTENDED : AFS_TEST_CORRUPTED;
		switch (m) {
		case AFS_TEST_INTACT:
			break;
		case AFS_TEST_TRUNCATED:
			b->len = afs_test_rnd(&rnd, full);
			break;
		case AFS_TEST_EXTENDED:
			for (k = 1 + afs_test_rnd(&rnd, 8); k > 0; k--)
				afs_test_put_u8(b, prandom_u32_state(&rnd));
			break;
		default:
			for (k = 1 + afs_test_rnd(&rnd, 4); k > 0; k--) {
				/* Half the time, in the header or a record's first bytes. */
				size_t at = afs_test_rnd(&rnd, 2) ?
					afs_test_rnd(&rnd, min_t(size_t, full, 32)) :
					afs_test_rnd(&rnd, full);

				b->data[at] = afs_test_rnd(&rnd, 2) ?
					prandom_u32_state(&rnd) :
					b->data[at] ^ BIT(afs_test_rnd(&rnd, 8));
			}
			break;
		}
		counts[m]++;

		/* No reason from an earlier round may answer for this one. */
		got->reason = NULL;
		got->offset = 0;
		ret = afs_test_dns_decode(test, b->data, b->len, got);
		if (ret == 0)
			accepted++;
		else
			refused++;
		if (ret == -EBADMSG)
			reasons[0]++;
		else if (ret == -EPROTONOSUPPORT)
			reasons[1]++;
		else if (ret == -E2BIG)
			reasons[2]++;
		else if (ret == -EINVAL)
			reasons[3]++;

		switch (m) {
		case AFS_TEST_INTACT:
			problem = !ret ? afs_test_dns_diff(known, got) :
				got->reason ?: "refused with no reason";
			break;
		case AFS_TEST_TRUNCATED:
			problem = ret != -EBADMSG ? "a prefix was not -EBADMSG" : NULL;
			break;
		case AFS_TEST_EXTENDED:
			problem = ret != -EBADMSG || got->offset != full ||
				strcmp(got->reason ?: "", "trailing bytes") ?
				"added bytes were not trailing bytes" : NULL;
			break;
		default:
			if (ret == 0)
				problem = afs_test_dns_problem(got);
			else if (!afs_test_dns_error_known(ret))
				problem = "an undocumented error";
			else if (!got->reason || got->offset > b->len)
				problem = "no reason, or an offset past the end";
			else
				problem = NULL;
			break;
		}
		if (problem) {
			KUNIT_FAIL(test, "round %d, %s payload of %zu bytes (from %zu): %d, %s",
				   i, afs_test_mutations[m], b->len, full, ret, problem);
			print_hex_dump(KERN_INFO, "payload: ", DUMP_PREFIX_OFFSET,
				       16, 1, b->data, min_t(size_t, b->len, 256), false);
			break;
		}
	}

	kunit_info(test, "%d inputs in %llu ms: %u intact, %u truncated, %u extended, %u corrupted; %u accepted, %u refused (%u EBADMSG, %u EPROTONOSUPPORT, %u E2BIG, %u EINVAL)\n",
		   i, div_u64(ktime_get_ns() - start, NSEC_PER_MSEC),
		   counts[0], counts[1], counts[2], counts[3], accepted, refused,
		   reasons[0], reasons[1], reasons[2], reasons[3]);
	/* The corrupted inputs must reach both outcomes, or they test little. */
	KUNIT_EXPECT_GT(test, accepted, counts[AFS_TEST_INTACT]);
	for (k = 0; k < 4; k++)
		KUNIT_EXPECT_GT(test, reasons[k], 0);
	kvfree(known);
	kvfree(got);
}

static struct kunit_case afs_dns_decode_cases[] = {
	KUNIT_CASE_PARAM(afs_dns_decode_table, afs_dns_gen_params),
	KUNIT_CASE(afs_dns_decode_limit_servers),
	KUNIT_CASE(afs_dns_decode_limit_name),
	KUNIT_CASE(afs_dns_decode_limit_addrs),
	KUNIT_CASE(afs_dns_decode_fuzz),
	{}
};

static struct kunit_suite afs_dns_decode_suite = {
	.name = "afs_dns_decode",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_dns_decode_cases,
};

/*
 * Merging with a cell's previous list, through afs_extract_vlserver_list().
 * The cell is a bare record: the merge touches only its name, its VL server
 * list and that list's lock.  The previous list, built here by hand, has vla
 * (10.0.0.1) and vlb (10.0.0.2).
 */
struct afs_dns_merge_fixture {
	struct afs_cell			*cell;
	struct afs_vlserver_list	*previous;
	struct afs_vlserver		*vla, *vlb;
	struct afs_addr_list		*vla_alist;
	struct afs_vlserver_list	*result;
};

static struct afs_vlserver *afs_test_vlserver(const char *name, __be32 addr)
{
	struct afs_vlserver *server = afs_alloc_vlserver(name, strlen(name), AFS_VL_PORT);
	struct afs_addr_list *alist;

	if (!server)
		return NULL;
	alist = afs_alloc_addrlist(1, VL_SERVICE, AFS_VL_PORT);
	if (!alist) {
		afs_put_vlserver(NULL, server);
		return NULL;
	}
	afs_merge_fs_addr4(alist, addr, AFS_VL_PORT);
	rcu_assign_pointer(server->addresses, alist);
	set_bit(AFS_VLSERVER_FL_PROBED, &server->flags);
	return server;
}

static int afs_dns_merge_init(struct kunit *test)
{
	struct afs_dns_merge_fixture *f;
	struct afs_vlserver_list *vllist;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;
	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	if (!f->cell)
		return -ENOMEM;
	f->cell->name = (char *)"dns.example";
	f->cell->name_len = strlen(f->cell->name);
	rwlock_init(&f->cell->vl_servers_lock);

	vllist = afs_alloc_vlserver_list(2);
	if (!vllist)
		return -ENOMEM;
	f->previous = vllist;
	f->vla = afs_test_vlserver("vla", htonl(0x0a000001));
	f->vlb = afs_test_vlserver("vlb", htonl(0x0a000002));
	if (!f->vla || !f->vlb)
		return -ENOMEM;
	vllist->servers[0].server = afs_get_vlserver(f->vla);
	vllist->servers[1].server = afs_get_vlserver(f->vlb);
	vllist->nr_servers = 2;
	vllist->source = DNS_RECORD_FROM_DNS_SRV;
	vllist->status = DNS_LOOKUP_GOOD;
	f->vla_alist = rcu_access_pointer(f->vla->addresses);
	rcu_assign_pointer(f->cell->vl_servers, vllist);
	return 0;
}

static void afs_dns_merge_exit(struct kunit *test)
{
	struct afs_dns_merge_fixture *f = test->priv;

	afs_kunit_failslab_end(test);

	if (!f)
		return;
	if (!IS_ERR_OR_NULL(f->result))
		afs_put_vlserverlist(NULL, f->result);
	if (f->previous) {
		/* The cell still has the list it had, which alone holds it. */
		KUNIT_EXPECT_PTR_EQ(test, rcu_access_pointer(f->cell->vl_servers),
				    f->previous);
		KUNIT_EXPECT_EQ(test, refcount_read(&f->previous->ref), 1);
		afs_put_vlserverlist(NULL, f->previous);
	}
	/* Just the fixture's references left. */
	if (f->vla)
		KUNIT_EXPECT_EQ(test, refcount_read(&f->vla->ref), 1);
	if (f->vlb)
		KUNIT_EXPECT_EQ(test, refcount_read(&f->vlb->ref), 1);
	afs_put_vlserver(NULL, f->vla);
	afs_put_vlserver(NULL, f->vlb);
	rcu_barrier();
}

static struct afs_vlserver_list *afs_test_extract(struct kunit *test, const char *spec)
{
	struct afs_dns_merge_fixture *f = test->priv;
	u8 *payload = kunit_kzalloc(test, 1024, GFP_KERNEL), *copy;
	size_t len;

	KUNIT_ASSERT_NOT_NULL(test, payload);
	len = afs_test_dns_build(test, spec, payload, 1024);
	copy = kmemdup(payload, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, copy);
	f->result = afs_extract_vlserver_list(f->cell, copy, len);
	kfree(copy);
	return f->result;
}

static struct afs_addr_list *afs_test_alist(struct afs_vlserver *server)
{
	return rcu_access_pointer(server->addresses);
}

/* A listed server keeps its record, matched without regard to case. */
static void afs_dns_merge_keeps_records(struct kunit *test)
{
	struct afs_dns_merge_fixture *f = test->priv;
	struct afs_vlserver_list *vllist =
		afs_test_extract(test,
				 "hdr 4 1 2 srv VLA 10 0 0 1 2 a4 10.0.0.9 a6 2001:db8::9 rec 3 5 0 7004 3 2 1 1 text vlc a4 10.0.0.3");
	struct afs_addr_list *alist;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vllist);
	KUNIT_ASSERT_EQ(test, vllist->nr_servers, 2);
	KUNIT_EXPECT_EQ(test, (int)vllist->source, DNS_RECORD_FROM_DNS_SRV);
	KUNIT_EXPECT_EQ(test, (int)vllist->status, DNS_LOOKUP_GOOD);

	/* vlc first: priority 5. */
	KUNIT_EXPECT_STREQ(test, vllist->servers[0].server->name, "vlc");
	KUNIT_EXPECT_EQ(test, vllist->servers[0].server->port, 7004);
	KUNIT_EXPECT_EQ(test, vllist->servers[0].priority, 5);
	KUNIT_EXPECT_EQ(test, (int)vllist->servers[0].source, DNS_RECORD_FROM_DNS_AFSDB);
	KUNIT_EXPECT_EQ(test, (int)vllist->servers[0].status, DNS_LOOKUP_GOOD_WITH_BAD);
	alist = afs_test_alist(vllist->servers[0].server);
	KUNIT_ASSERT_NOT_NULL(test, alist);
	KUNIT_EXPECT_EQ(test, alist->nr_addrs, 1);
	KUNIT_EXPECT_EQ(test, alist->addrs[0].srx_service, VL_SERVICE);
	KUNIT_EXPECT_EQ(test, ntohs(alist->addrs[0].transport.sin.sin_port), 7004);
	KUNIT_EXPECT_EQ(test, (int)alist->source, DNS_RECORD_FROM_DNS_AFSDB);

	/* The same vla record, with the new addresses, IPv6 preferred. */
	KUNIT_EXPECT_PTR_EQ(test, vllist->servers[1].server, f->vla);
	KUNIT_EXPECT_EQ(test, vllist->servers[1].priority, 10);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->vla->ref), 3);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->vlb->ref), 2);
	alist = afs_test_alist(f->vla);
	KUNIT_ASSERT_NOT_NULL(test, alist);
	KUNIT_EXPECT_PTR_NE(test, alist, f->vla_alist);
	KUNIT_EXPECT_EQ(test, alist->nr_addrs, 2);
	KUNIT_EXPECT_EQ(test, alist->nr_ipv4, 1);
	KUNIT_EXPECT_EQ(test, alist->preferred, 1);
	KUNIT_EXPECT_EQ(test, alist->addrs[0].transport.sin.sin_addr.s_addr, htonl(0x0a000009));
	/* Probe it again: its addresses changed. */
	KUNIT_EXPECT_FALSE(test, test_bit(AFS_VLSERVER_FL_PROBED, &f->vla->flags));
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VLSERVER_FL_PROBED, &f->vlb->flags));
}

/* The DNS gave a known server no address: it keeps the ones it had. */
static void afs_dns_merge_no_addresses_keeps_old(struct kunit *test)
{
	struct afs_dns_merge_fixture *f = test->priv;
	struct afs_addr_list *old = afs_test_alist(f->vlb);
	struct afs_vlserver_list *vllist = afs_test_extract(test, "hdr 4 1 1 srv vlb 0 0 0 1 0");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vllist);
	KUNIT_ASSERT_EQ(test, vllist->nr_servers, 1);
	KUNIT_EXPECT_PTR_EQ(test, vllist->servers[0].server, f->vlb);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_alist(f->vlb), old);
}

/* A new server with no address could not be reached: it is left out. */
static void afs_dns_merge_new_without_addresses_left_out(struct kunit *test)
{
	struct afs_dns_merge_fixture *f = test->priv;
	struct afs_vlserver_list *vllist =
		afs_test_extract(test, "hdr 4 1 2 srv vlc 0 0 0 1 0 srv vla 1 0 0 1 1 a4 10.0.0.1");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vllist);
	KUNIT_ASSERT_EQ(test, vllist->nr_servers, 1);
	KUNIT_EXPECT_PTR_EQ(test, vllist->servers[0].server, f->vla);
}

/* No servers, "not found": an empty list the cell will not take. */
static void afs_dns_merge_not_found(struct kunit *test)
{
	struct afs_vlserver_list *vllist = afs_test_extract(test, "hdr 0 4 0");

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vllist);
	KUNIT_EXPECT_EQ(test, vllist->nr_servers, 0);
	KUNIT_EXPECT_EQ(test, (int)vllist->status, DNS_LOOKUP_GOT_NOT_FOUND);
}

/* A refused payload changes nothing: not the list, not a server. */
static void afs_dns_merge_refused_changes_nothing(struct kunit *test)
{
	struct afs_dns_merge_fixture *f = test->priv;
	struct afs_vlserver_list *vllist =
		afs_test_extract(test,
				 "hdr 4 1 2 srv vla 0 0 0 1 1 a4 10.0.0.9 srv vlb 0 0 0 1 1 a4 10.0.0.2 cut 2");

	KUNIT_EXPECT_EQ(test, PTR_ERR(vllist), -EBADMSG);
	KUNIT_EXPECT_PTR_EQ(test, afs_test_alist(f->vla), f->vla_alist);
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VLSERVER_FL_PROBED, &f->vla->flags));
	KUNIT_EXPECT_EQ(test, refcount_read(&f->vla->ref), 2);
}

static struct kunit_case afs_dns_merge_cases[] = {
	KUNIT_CASE(afs_dns_merge_keeps_records),
	KUNIT_CASE(afs_dns_merge_no_addresses_keeps_old),
	KUNIT_CASE(afs_dns_merge_new_without_addresses_left_out),
	KUNIT_CASE(afs_dns_merge_not_found),
	KUNIT_CASE(afs_dns_merge_refused_changes_nothing),
	{}
};

static struct kunit_suite afs_dns_merge_suite = {
	.name = "afs_dns_merge",
	.init = afs_dns_merge_init,
	.exit = afs_dns_merge_exit,
	.test_cases = afs_dns_merge_cases,
};

kunit_test_suites(&afs_dns_decode_suite, &afs_dns_merge_suite);
