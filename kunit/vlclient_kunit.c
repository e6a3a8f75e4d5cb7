// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for the VL reply decoders (afs_vl_decode): VL.GetEntryByNameU,
 * VL.GetAddrsU, YFSVL.GetEndpoints, VL.GetCapabilities, YFSVL.GetCellName.
 *
 * Included by vlclient.c, so that the static decoders can be reached.  Every
 * reply is decoded from a kmalloc'd buffer of exactly its length, so that
 * KASAN reports a read of even one byte past the end.  Replies are written as
 * lists of 32-bit words and put on the wire big-endian by the suite, so the
 * same rows say the same thing on a big-endian machine.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/inet.h>
#include <linux/prandom.h>
#include <linux/sort.h>

/* The UUID the rows ask about: 01020304-0506-0708-090a-0b0c0d0e0f90. */
static const uuid_t afs_test_want =
	UUID_INIT(0x01020304, 0x0506, 0x0708,
		  0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x90);

/* It as VL carries it: eleven words, bytes one to a word. */
static const u32 afs_test_want_xdr[11] = {
	0x01020304, 0x0506, 0x0708, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x90
};

/* A copy of @s that lives as long as the case. */
static char *afs_test_strdup(struct kunit *test, const char *s)
{
	char *copy = kunit_kzalloc(test, strlen(s) + 1, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, copy);
	return strcpy(copy, s);
}

static const char *afs_test_token(struct kunit *test, char **p)
{
	char *tok = strsep(p, " ");

	KUNIT_ASSERT_NOT_NULL(test, tok);
	return tok;
}

static u32 afs_test_number(struct kunit *test, const char *tok)
{
	u32 v;

	KUNIT_ASSERT_EQ_MSG(test, kstrtou32(tok, 0, &v), 0, "bad number '%s'", tok);
	return v;
}

/*
 * A reply, written as words and put on the wire big-endian:
 *
 *	N		a 32-bit number, decimal or 0x hex
 *	A.B.C.D		an IPv4 address, as one word in network byte order
 *	uuid		the UUID asked about as VL carries it: eleven words
 *	uuid16		the same as YFS carries it: sixteen bytes
 *	ip6 ADDR	an IPv6 address: four words
 *	ep4 ADDR PORT	a YFS IPv4 endpoint: type, length 8, address, port
 *	ep6 ADDR PORT	a YFS IPv6 endpoint: type, length 20, address, port
 *	chars STR	STR's bytes, NUL-padded to a word
 *	cut N		drop the last N bytes so far
 *
 * Return: the reply in a kmalloc'd buffer of exactly its length, in *_len.
 */
static u8 *afs_test_xdr(struct kunit *test, const char *spec, size_t *_len)
{
	char *copy = afs_test_strdup(test, spec), *p = copy, *w;
	u8 *out = kunit_kzalloc(test, 4096, GFP_KERNEL), *buf;
	size_t len = 0, n;
	u8 addr[16];
	int i;

	KUNIT_ASSERT_NOT_NULL(test, copy);
	KUNIT_ASSERT_NOT_NULL(test, out);
	while ((w = strsep(&p, " "))) {
		KUNIT_ASSERT_LT(test, len, 4096 - 64);
		if (!*w) {
			continue;
		} else if (strcmp(w, "uuid") == 0) {
			for (i = 0; i < ARRAY_SIZE(afs_test_want_xdr); i++, len += 4)
				put_unaligned_be32(afs_test_want_xdr[i], out + len);
		} else if (strcmp(w, "uuid16") == 0) {
			memcpy(out + len, &afs_test_want, 16);
			len += 16;
		} else if (strcmp(w, "ip6") == 0) {
			KUNIT_ASSERT_TRUE(test, in6_pton(afs_test_token(test, &p), -1,
							 out + len, -1, NULL));
			len += 16;
		} else if (strcmp(w, "ep4") == 0 || strcmp(w, "ep6") == 0) {
			bool v6 = w[2] == '6';

			put_unaligned_be32(v6 ? YFS_ENDPOINT_IPV6 : YFS_ENDPOINT_IPV4, out + len);
			put_unaligned_be32(v6 ? 20 : 8, out + len + 4);
			len += 8;
			w = (char *)afs_test_token(test, &p);
			if (v6)
				KUNIT_ASSERT_TRUE(test, in6_pton(w, -1, out + len, -1, NULL));
			else
				KUNIT_ASSERT_TRUE(test, in4_pton(w, -1, out + len, -1, NULL));
			len += v6 ? 16 : 4;
			put_unaligned_be32(afs_test_number(test, afs_test_token(test, &p)),
					   out + len);
			len += 4;
		} else if (strcmp(w, "chars") == 0) {
			w = (char *)afs_test_token(test, &p);
			n = strlen(w);
			memcpy(out + len, w, n);
			memset(out + len + n, 0, round_up(n, 4) - n);
			len += round_up(n, 4);
		} else if (strcmp(w, "cut") == 0) {
			n = afs_test_number(test, afs_test_token(test, &p));
			len -= min(n, len);
		} else if (strchr(w, '.')) {
			KUNIT_ASSERT_TRUE(test, in4_pton(w, -1, addr, -1, NULL));
			memcpy(out + len, addr, 4);
			len += 4;
		} else {
			put_unaligned_be32(afs_test_number(test, w), out + len);
			len += 4;
		}
	}

	buf = kmalloc(len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(test, ZERO_OR_NULL_PTR(buf) && len);
	if (len)
		memcpy(buf, out, len);
	*_len = len;
	return buf;
}

/* An address list as "10.0.0.1+7000 [2001:db8::1]+7001 ...", version first. */
static void afs_test_format_addrs(const struct afs_addr_list *alist, char *buf,
				  size_t size)
{
	size_t n;
	int i;

	n = scnprintf(buf, size, "v%u:", alist->version);
	for (i = 0; i < alist->nr_addrs; i++) {
		const struct sockaddr_rxrpc *srx = &alist->addrs[i];

		if (srx->transport.family == AF_INET)
			n += scnprintf(buf + n, size - n, " %pI4+%u",
				       &srx->transport.sin.sin_addr,
				       ntohs(srx->transport.sin.sin_port));
		else
			n += scnprintf(buf + n, size - n, " [%pI6c]+%u",
				       &srx->transport.sin6.sin6_addr,
				       ntohs(srx->transport.sin6.sin6_port));
	}
}

/*
 * The rows of the decoders whose replies are lists of words.
 */
struct afs_vl_words_case {
	const char	*name;
	const char	*reply;		/* As afs_test_xdr() reads it */
	int		error;
	const char	*reason;
	size_t		offset;
	const char	*expect;
};

static void afs_vl_words_case_desc(const struct afs_vl_words_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

static void afs_test_expect_fault(struct kunit *test,
				  const struct afs_vl_words_case *c, int ret,
				  const struct afs_vl_fault *fault)
{
	KUNIT_EXPECT_EQ(test, ret, c->error);
	if (ret == c->error) {
		KUNIT_EXPECT_STREQ(test, fault->reason ?: "(none)", c->reason);
		KUNIT_EXPECT_EQ(test, fault->offset, c->offset);
	}
}

/* VL.GetAddrsU. */
static const struct afs_vl_words_case afs_vl_addrs_u_cases[] = {
	{ "empty reply", "",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 0 },
	{ "header cut short", "uuid 5 0 0 cut 1",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 55 },
	{ "no addresses", "uuid 5 0 0", .expect = "v5:" },
	{ "addresses in network byte order, uniquifier big-endian",
	  "uuid 0x01020304 2 2 10.1.2.3 192.168.0.1",
	  .expect = "v16909060: 10.1.2.3+7000 192.168.0.1+7000" },
	{ "a repeated address counts once", "uuid 5 3 3 10.0.0.2 10.0.0.1 10.0.0.2",
	  .expect = "v5: 10.0.0.1+7000 10.0.0.2+7000" },
	{ "addresses cut short", "uuid 5 2 2 10.0.0.1 10.0.0.2 cut 2",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 62 },
	{ "a trailing word", "uuid 5 1 1 10.0.0.1 0",
	  .error = -EBADMSG, .reason = "trailing bytes", .offset = 60 },
	{ "nentries and count disagree", "uuid 5 2 1 10.0.0.1",
	  .error = -EBADMSG, .reason = "nentries and the address count disagree",
	  .offset = 48 },
	{ "count over the limit of 64 (32 on 32-bit)", "uuid 5 65 65",
	  .error = -E2BIG, .reason = "too many addresses", .offset = 52 },
	{ "count 2^30 (count * 4 would wrap)", "uuid 5 0x40000000 0x40000000",
	  .error = -E2BIG, .reason = "too many addresses", .offset = 52 },
	{ "UUID byte sign-extended, from a server with a signed char",
	  "0x01020304 0x0506 0x0708 0x09 0x0a 0x0b 0x0c 0x0d 0x0e 0x0f 0xffffff90 5 0 0",
	  .expect = "v5:" },
	{ "another server's UUID",
	  "0x01020304 0x0506 0x0708 0x09 0x0a 0x0b 0x0c 0x0d 0x0e 0x0f 0x91 5 0 0",
	  .error = -EBADMSG, .reason = "not the UUID asked about", .offset = 0 },
	{ "UUID time_mid over 16 bits",
	  "0x01020304 0x10506 0x0708 0x09 0x0a 0x0b 0x0c 0x0d 0x0e 0x0f 0x90 5 0 0",
	  .error = -ERANGE, .reason = "UUID field out of range", .offset = 0 },
	{ "UUID time_hi over 16 bits",
	  "0x01020304 0x0506 0x10708 0x09 0x0a 0x0b 0x0c 0x0d 0x0e 0x0f 0x90 5 0 0",
	  .error = -ERANGE, .reason = "UUID field out of range", .offset = 0 },
	{ "UUID byte over 8 bits",
	  "0x01020304 0x0506 0x0708 0x09 0x10a 0x0b 0x0c 0x0d 0x0e 0x0f 0x90 5 0 0",
	  .error = -ERANGE, .reason = "UUID byte out of range", .offset = 0 },
};

KUNIT_ARRAY_PARAM(afs_vl_addrs_u, afs_vl_addrs_u_cases, afs_vl_words_case_desc);

static void afs_vl_decode_addrs_u_table(struct kunit *test)
{
	const struct afs_vl_words_case *c = test->param_value;
	struct afs_vl_fault fault = {};
	struct afs_addr_list *alist;
	char *out;
	size_t len;
	u8 *buf = afs_test_xdr(test, c->reply, &len);
	int ret;

	ret = afs_vl_decode_addrs_u(buf, len, &afs_test_want, NULL, &fault);
	if (c->error) {
		afs_test_expect_fault(test, c, ret, &fault);
		kfree(buf);
		return;
	}
	KUNIT_ASSERT_GE(test, ret, 0);
	alist = afs_alloc_addrlist(ret, FS_SERVICE, AFS_FS_PORT);
	KUNIT_ASSERT_NOT_NULL(test, alist);
	KUNIT_EXPECT_EQ(test, afs_vl_decode_addrs_u(buf, len, &afs_test_want, alist, &fault),
			ret);
	out = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	afs_test_format_addrs(alist, out, 1024);
	KUNIT_EXPECT_STREQ(test, out, c->expect);
	afs_put_addrlist(alist);
	kfree(buf);
}

/* YFSVL.GetEndpoints. */
static const struct afs_vl_words_case afs_vl_endpoints_cases[] = {
	{ "empty reply", "",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 0 },
	{ "header cut short", "uuid16 5 0 cut 1",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 23 },
	{ "volume endpoint count missing", "uuid16 5 0",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 24 },
	{ "no endpoints", "uuid16 5 0 0", .expect = "v5:" },
	{ "IPv4 and IPv6 endpoints with their ports, volume endpoints skipped",
	  "uuid16 0x01020304 2 ep6 2001:db8::1 7000 ep4 10.1.2.3 7001 1 ep4 10.0.0.9 7005",
	  .expect = "v16909060: 10.1.2.3+7001 [2001:db8::1]+7000" },
	{ "the same address on two ports is two endpoints",
	  "uuid16 5 3 ep4 10.0.0.1 7001 ep4 10.0.0.1 7000 ep4 10.0.0.1 7001 0",
	  .expect = "v5: 10.0.0.1+7000 10.0.0.1+7001" },
	{ "port 65535", "uuid16 5 1 ep4 10.0.0.1 65535 0",
	  .expect = "v5: 10.0.0.1+65535" },
	{ "port 65536 (0 as 16 bits)", "uuid16 5 1 ep4 10.0.0.1 65536 0",
	  .error = -ERANGE, .reason = "port out of range", .offset = 24 },
	{ "port 0", "uuid16 5 1 ep6 2001:db8::1 0 0",
	  .error = -ERANGE, .reason = "port out of range", .offset = 24 },
	{ "17 fileserver endpoints", "uuid16 5 17",
	  .error = -E2BIG, .reason = "too many endpoints", .offset = 20 },
	{ "17 volume endpoints", "uuid16 5 0 17",
	  .error = -E2BIG, .reason = "too many endpoints", .offset = 24 },
	{ "unknown fileserver endpoint type", "uuid16 5 1 2 8 10.0.0.1 7000 0",
	  .error = -EPROTONOSUPPORT, .reason = "unknown endpoint type", .offset = 24 },
	{ "unknown volume endpoint type", "uuid16 5 0 2 ep4 10.0.0.1 7005 7 8",
	  .error = -EPROTONOSUPPORT, .reason = "unknown endpoint type", .offset = 44 },
	{ "IPv4 endpoint of length 20", "uuid16 5 1 0 20 10.0.0.1 7000 0",
	  .error = -EBADMSG, .reason = "IPv4 endpoint length is not 8", .offset = 28 },
	{ "IPv6 endpoint of length 8", "uuid16 5 1 1 8 ip6 2001:db8::1 7000 0",
	  .error = -EBADMSG, .reason = "IPv6 endpoint length is not 20", .offset = 28 },
	{ "volume endpoint with a bad port", "uuid16 5 0 1 ep4 10.0.0.1 0x17005",
	  .error = -ERANGE, .reason = "port out of range", .offset = 28 },
	{ "volume IPv4 endpoint of length 20", "uuid16 5 0 1 0 20 10.0.0.1 7005",
	  .error = -EBADMSG, .reason = "IPv4 endpoint length is not 8", .offset = 32 },
	{ "volume endpoint cut short", "uuid16 5 0 1 ep4 10.0.0.1 7005 cut 1",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 43 },
	{ "fileserver endpoint cut short", "uuid16 5 1 ep6 2001:db8::1 7000 cut 1",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 51 },
	{ "endpoint type missing", "uuid16 5 2 ep4 10.0.0.1 7000",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 40 },
	{ "a trailing word", "uuid16 5 1 ep4 10.0.0.1 7000 0 0",
	  .error = -EBADMSG, .reason = "trailing bytes", .offset = 44 },
	{ "another server's UUID", "0x01020304 0x05060708 0x090a0b0c 0x0d0e0f91 5 0 0",
	  .error = -EBADMSG, .reason = "not the UUID asked about", .offset = 0 },
};

KUNIT_ARRAY_PARAM(afs_vl_endpoints, afs_vl_endpoints_cases, afs_vl_words_case_desc);

static void afs_vl_decode_endpoints_table(struct kunit *test)
{
	const struct afs_vl_words_case *c = test->param_value;
	struct afs_vl_fault fault = {};
	struct afs_addr_list *alist;
	char *out;
	size_t len;
	u8 *buf = afs_test_xdr(test, c->reply, &len);
	int ret;

	ret = afs_yfsvl_decode_endpoints(buf, len, &afs_test_want, NULL, &fault);
	if (c->error) {
		afs_test_expect_fault(test, c, ret, &fault);
		kfree(buf);
		return;
	}
	KUNIT_ASSERT_GE(test, ret, 0);
	alist = afs_alloc_addrlist(ret, FS_SERVICE, AFS_FS_PORT);
	KUNIT_ASSERT_NOT_NULL(test, alist);
	KUNIT_EXPECT_EQ(test, afs_yfsvl_decode_endpoints(buf, len, &afs_test_want,
							 alist, &fault), ret);
	out = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	afs_test_format_addrs(alist, out, 1024);
	KUNIT_EXPECT_STREQ(test, out, c->expect);
	afs_put_addrlist(alist);
	kfree(buf);
}

/* VL.GetCapabilities: the first word, in hex. */
static const struct afs_vl_words_case afs_vl_caps_cases[] = {
	{ "empty reply", "",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 0 },
	{ "count cut short", "0 cut 1",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 3 },
	{ "no words", "0", .expect = "0" },
	{ "two words, the first big-endian", "2 0x01020304 0xffffffff", .expect = "1020304" },
	{ "words cut short", "2 1 2 cut 3",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 9 },
	{ "a trailing word", "1 1 2",
	  .error = -EBADMSG, .reason = "trailing bytes", .offset = 8 },
	{ "197 words", "197",
	  .error = -E2BIG, .reason = "too many capability words", .offset = 0 },
	{ "count 2^30 (count * 4 would wrap)", "0x40000000",
	  .error = -E2BIG, .reason = "too many capability words", .offset = 0 },
};

KUNIT_ARRAY_PARAM(afs_vl_caps, afs_vl_caps_cases, afs_vl_words_case_desc);

static void afs_vl_decode_caps_table(struct kunit *test)
{
	const struct afs_vl_words_case *c = test->param_value;
	struct afs_vl_fault fault = {};
	char out[16];
	size_t len;
	u8 *buf = afs_test_xdr(test, c->reply, &len);
	u32 caps = 0xdeadbeef;
	int ret;

	ret = afs_vl_decode_capabilities(buf, len, &caps, &fault);
	kfree(buf);
	if (c->error) {
		afs_test_expect_fault(test, c, ret, &fault);
		return;
	}
	KUNIT_EXPECT_EQ(test, ret, 0);
	scnprintf(out, sizeof(out), "%x", caps);
	KUNIT_EXPECT_STREQ(test, out, c->expect);
}

/* YFSVL.GetCellName. */
static const struct afs_vl_words_case afs_vl_cell_name_cases[] = {
	{ "empty reply", "",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 0 },
	{ "a name of 4", "4 chars abcd", .expect = "abcd" },
	{ "a name of 5, padded", "5 chars abcde", .expect = "abcde" },
	{ "padding not looked at", "5 chars abcd 0x65010203", .expect = "abcde" },
	{ "padding cut short", "5 chars abcde cut 1",
	  .error = -EBADMSG, .reason = "reply cut short", .offset = 11 },
	{ "a trailing word", "4 chars abcd 0",
	  .error = -EBADMSG, .reason = "trailing bytes", .offset = 8 },
	{ "empty name", "0",
	  .error = -EBADMSG, .reason = "empty cell name", .offset = 0 },
	{ "NUL in the name", "4 0x61006364",
	  .error = -EBADMSG, .reason = "bad character in cell name", .offset = 5 },
	{ "space in the name", "4 0x61626320",
	  .error = -EBADMSG, .reason = "bad character in cell name", .offset = 7 },
	{ "DEL in the name", "4 0x6162637f",
	  .error = -EBADMSG, .reason = "bad character in cell name", .offset = 7 },
	{ "non-ASCII byte in the name", "4 0x61e26364",
	  .error = -EBADMSG, .reason = "bad character in cell name", .offset = 5 },
	{ "name over 256", "257",
	  .error = -E2BIG, .reason = "cell name too long", .offset = 0 },
};

KUNIT_ARRAY_PARAM(afs_vl_cell_name, afs_vl_cell_name_cases, afs_vl_words_case_desc);

static void afs_vl_decode_cell_name_table(struct kunit *test)
{
	const struct afs_vl_words_case *c = test->param_value;
	struct afs_vl_fault fault = {};
	char *name = kunit_kzalloc(test, YFS_VL_MAXCELLNAME + 1, GFP_KERNEL);
	size_t len;
	u8 *buf = afs_test_xdr(test, c->reply, &len);
	int ret;

	KUNIT_ASSERT_NOT_NULL(test, name);
	ret = afs_yfsvl_decode_cell_name(buf, len, name, &fault);
	kfree(buf);
	if (c->error) {
		afs_test_expect_fault(test, c, ret, &fault);
		return;
	}
	KUNIT_EXPECT_EQ(test, ret, strlen(c->expect));
	KUNIT_EXPECT_STREQ(test, name, c->expect);
}

/* The longest name. */
static void afs_vl_decode_cell_name_limit(struct kunit *test)
{
	char *name = kunit_kzalloc(test, YFS_VL_MAXCELLNAME + 1, GFP_KERNEL);
	char *spec = kunit_kzalloc(test, YFS_VL_MAXCELLNAME + 16, GFP_KERNEL);
	struct afs_vl_fault fault = {};
	size_t len;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, name);
	KUNIT_ASSERT_NOT_NULL(test, spec);
	len = scnprintf(spec, YFS_VL_MAXCELLNAME + 16, "%u chars ", YFS_VL_MAXCELLNAME);
	memset(spec + len, 'x', YFS_VL_MAXCELLNAME);
	buf = afs_test_xdr(test, spec, &len);
	KUNIT_EXPECT_EQ(test, len, 4 + YFS_VL_MAXCELLNAME);
	KUNIT_EXPECT_EQ(test, afs_yfsvl_decode_cell_name(buf, len, name, &fault),
			YFS_VL_MAXCELLNAME);
	KUNIT_EXPECT_EQ(test, strlen(name), YFS_VL_MAXCELLNAME);
	kfree(buf);
}

/*
 * VL.GetEntryByNameU: replies built from a row's description, since the
 * reply is 1,200 bytes.  Server i has UUID ...-0000000000<i>, serverUnique
 * 100 + i; the volume IDs are 0x20000001..3.
 */
#define AFS_TEST_RW	AFS_VLSF_RWVOL
#define AFS_TEST_RO	AFS_VLSF_ROVOL
#define AFS_TEST_BK	AFS_VLSF_BACKVOL
#define AFS_TEST_NEW	AFS_VLSF_NEWREPSITE
#define AFS_TEST_DONT	AFS_VLSF_DONTUSE
#define AFS_TEST_EXIST	(AFS_VLF_RWEXISTS | AFS_VLF_ROEXISTS)

struct afs_vl_entry_case {
	const char	*name;
	const char	*volname;	/* NULL: "vol" */
	u32		nr_servers;
	u32		sflags[AFS_NMAXNSERVERS];
	u32		vlflags;
	size_t		patch_at;	/* A word to set, if patch_at */
	u32		patch;
	int		len_delta;	/* Bytes added to or cut from the end */
	int		error;
	const char	*reason;
	size_t		offset;
	const char	*expect;
};

/*
 * The reply's layout, counted from the protocol rather than taken from the
 * decoder: 65 name words, nServers, 13 UUIDs of 11 words (node[5] is the
 * last), 13 serverUnique, 13 serverPartition, 13 serverFlags, 3 volume IDs,
 * cloneId, flags and 9 spare words.
 */
#define AFS_TEST_UVLDB_NAME(i)		((i) * 4)
#define AFS_TEST_UVLDB_NR_SERVERS	260
#define AFS_TEST_UVLDB_UUID(i)		(264 + (i) * 44)
#define AFS_TEST_UVLDB_UNIQUE(i)	(836 + (i) * 4)
#define AFS_TEST_UVLDB_SFLAGS(i)	(940 + (i) * 4)
#define AFS_TEST_UVLDB_VOLUME_ID(i)	(992 + (i) * 4)
#define AFS_TEST_UVLDB_FLAGS		1008
#define AFS_TEST_UVLDB_SIZE		1048

static const struct afs_vl_entry_case afs_vl_entry_cases[] = {
	{ "one RW server", .nr_servers = 1, .sflags = { AFS_TEST_RW },
	  .vlflags = AFS_VLF_RWEXISTS,
	  .expect = "vol [RW] #0 RW u100" },
	{ "RW server, backup exists", .nr_servers = 1, .sflags = { AFS_TEST_RW },
	  .vlflags = AFS_VLF_RWEXISTS | AFS_VLF_BACKEXISTS,
	  .expect = "vol [RW BK] #0 RW|BK u100" },
	{ "RW and RO on one server, RO on another", .nr_servers = 2,
	  .sflags = { AFS_TEST_RW | AFS_TEST_RO, AFS_TEST_RO }, .vlflags = AFS_TEST_EXIST,
	  .expect = "vol [RW RO] #0 RW|RO u100 #1 RO u101" },
	{ "a server with only BACKVOL is skipped", .nr_servers = 2,
	  .sflags = { AFS_TEST_BK, AFS_TEST_RW },
	  .vlflags = AFS_VLF_RWEXISTS | AFS_VLF_BACKEXISTS,
	  .expect = "vol [RW BK] #1 RW|BK u101" },
	{ "a server with no flags is skipped", .nr_servers = 2,
	  .sflags = { 0, AFS_TEST_RO }, .vlflags = AFS_VLF_ROEXISTS,
	  .expect = "vol [RO] #1 RO u101" },
	{ "DONTUSE is skipped", .nr_servers = 2,
	  .sflags = { AFS_TEST_RO | AFS_TEST_DONT, AFS_TEST_RO }, .vlflags = AFS_VLF_ROEXISTS,
	  .expect = "vol [RO] #1 RO u101" },
	{ "NEWREPSITE: only new sites are used", .nr_servers = 3,
	  .sflags = { AFS_TEST_RW | AFS_TEST_RO, AFS_TEST_RO | AFS_TEST_NEW, AFS_TEST_RO },
	  .vlflags = AFS_TEST_EXIST,
	  .expect = "vol [RW RO] #1 RO u101" },
	{ "NEWREPSITE with DONTUSE does not count", .nr_servers = 2,
	  .sflags = { AFS_TEST_RO, AFS_TEST_RO | AFS_TEST_NEW | AFS_TEST_DONT },
	  .vlflags = AFS_VLF_ROEXISTS,
	  .expect = "vol [RO] #0 RO u100" },
	{ "unknown server flag bits are ignored", .nr_servers = 1,
	  .sflags = { AFS_TEST_RW | 0xffff0000 }, .vlflags = AFS_VLF_RWEXISTS,
	  .expect = "vol [RW] #0 RW u100" },
	{ "servers past nServers are ignored", .nr_servers = 1,
	  .sflags = { AFS_TEST_RW, AFS_TEST_RO }, .vlflags = AFS_TEST_EXIST,
	  .expect = "vol [RW RO] #0 RW u100" },
	{ "13 servers", .nr_servers = 13,
	  .sflags = { [0 ... 12] = AFS_TEST_RO }, .vlflags = AFS_VLF_ROEXISTS,
	  .expect =
	  "vol [RO] #0 RO u100 #1 RO u101 #2 RO u102 #3 RO u103 #4 RO u104 #5 RO u105 #6 RO u106 #7 RO u107 #8 RO u108 #9 RO u109 #10 RO u110 #11 RO u111 #12 RO u112",
	},
	{ "14 servers", .nr_servers = 14, .vlflags = AFS_VLF_ROEXISTS,
	  .error = -E2BIG, .reason = "more than 13 servers", .offset = AFS_TEST_UVLDB_NR_SERVERS },
	{ "no volume exists: no medium", .nr_servers = 1, .sflags = { AFS_TEST_RW },
	  .expect = "vol [] no medium #0 RW u100" },
	{ "a 64-character name",
	  .volname = "0123456789012345678901234567890123456789012345678901234567890123",
	  .nr_servers = 0, .vlflags = AFS_VLF_RWEXISTS,
	  .expect = "0123456789012345678901234567890123456789012345678901234567890123 [RW]" },
	{ "a name not terminated in 65 words", .nr_servers = 0, .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_NAME(64), .patch = 'x',
	  .volname = "0123456789012345678901234567890123456789012345678901234567890123",
	  .error = -EBADMSG, .reason = "name not terminated", .offset = 0 },
	{ "empty name", .volname = "", .vlflags = AFS_VLF_RWEXISTS,
	  .error = -EBADMSG, .reason = "empty name", .offset = 0 },
	{ "name character over 8 bits", .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_NAME(1), .patch = 0x16f,
	  .error = -ERANGE, .reason = "name character out of range",
	  .offset = AFS_TEST_UVLDB_NAME(1) },
	{ "name character sign-extended", .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_NAME(1), .patch = 0xffffffe9,
	  .expect = "v\\xe9l [RW]" },
	{ "a used server's UUID out of range", .nr_servers = 1, .sflags = { AFS_TEST_RW },
	  .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_UUID(0) + 40, .patch = 0x100,
	  .error = -ERANGE, .reason = "UUID byte out of range",
	  .offset = AFS_TEST_UVLDB_UUID(0) },
	{ "a used server's UUID time_mid over 16 bits", .nr_servers = 1,
	  .sflags = { AFS_TEST_RW }, .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_UUID(0) + 4, .patch = 0x10000,
	  .error = -ERANGE, .reason = "UUID field out of range",
	  .offset = AFS_TEST_UVLDB_UUID(0) },
	{ "a used server's UUID time_hi over 16 bits", .nr_servers = 1,
	  .sflags = { AFS_TEST_RW }, .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_UUID(0) + 8, .patch = 0x10000,
	  .error = -ERANGE, .reason = "UUID field out of range",
	  .offset = AFS_TEST_UVLDB_UUID(0) },
	{ "a skipped server's UUID is not looked at", .nr_servers = 2,
	  .sflags = { AFS_TEST_DONT, AFS_TEST_RW }, .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_UUID(0) + 40, .patch = 0x100,
	  .expect = "vol [RW] #1 RW u101" },
	{ "UUID bytes sign-extended", .nr_servers = 1, .sflags = { AFS_TEST_RW },
	  .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_UUID(0) + 40, .patch = 0xffffff80,
	  .expect = "vol [RW] #128 RW u100 node5 80" },
	{ "volume IDs and serverUnique are big-endian", .nr_servers = 1,
	  .sflags = { AFS_TEST_RW }, .vlflags = AFS_VLF_RWEXISTS,
	  .patch_at = AFS_TEST_UVLDB_UNIQUE(0), .patch = 0x01020304,
	  .expect = "vol [RW] #0 RW u16909060" },
	{ "reply cut short", .vlflags = AFS_VLF_RWEXISTS, .len_delta = -1,
	  .error = -EBADMSG, .reason = "reply cut short",
	  .offset = AFS_TEST_UVLDB_SIZE - 1 },
	{ "a trailing byte", .vlflags = AFS_VLF_RWEXISTS, .len_delta = 1,
	  .error = -EBADMSG, .reason = "trailing bytes",
	  .offset = AFS_TEST_UVLDB_SIZE },
};

static void afs_vl_entry_case_desc(const struct afs_vl_entry_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_vl_entry, afs_vl_entry_cases, afs_vl_entry_case_desc);

static void afs_test_put_word(u8 *buf, size_t at, u32 v)
{
	put_unaligned_be32(v, buf + at);
}

/* A reply, in a buffer of @size bytes (at least the whole entry). */
static void afs_test_build_entry(u8 *buf, size_t size, const char *volname,
				 u32 nr_servers, const u32 *sflags,
				 const u32 *unique, u32 vlflags)
{
	int i, j;

	memset(buf, 0, size);
	for (i = 0; volname[i]; i++)
		afs_test_put_word(buf, AFS_TEST_UVLDB_NAME(i), (u8)volname[i]);
	afs_test_put_word(buf, AFS_TEST_UVLDB_NR_SERVERS, nr_servers);
	for (i = 0; i < AFS_NMAXNSERVERS; i++) {
		size_t uuid = AFS_TEST_UVLDB_UUID(i);

		afs_test_put_word(buf, uuid + 0, 0x01020304);
		afs_test_put_word(buf, uuid + 4, 0x0506);
		afs_test_put_word(buf, uuid + 8, 0x0708);
		for (j = 0; j < 7; j++)
			afs_test_put_word(buf, uuid + 12 + j * 4, 0);
		afs_test_put_word(buf, uuid + 40, i);		/* node[5] */
		afs_test_put_word(buf, AFS_TEST_UVLDB_UNIQUE(i), unique[i]);
		afs_test_put_word(buf, AFS_TEST_UVLDB_SFLAGS(i), sflags[i]);
	}
	for (i = 0; i < AFS_MAXTYPES; i++)
		afs_test_put_word(buf, AFS_TEST_UVLDB_VOLUME_ID(i), 0x20000001 + i);
	afs_test_put_word(buf, AFS_TEST_UVLDB_FLAGS, vlflags);
}

/* An entry as "<name> [RW RO BK] no medium #<i> RW|RO|BK u<unique> ...". */
static void afs_test_format_entry(const struct afs_vldb_entry *e, char *buf, size_t size)
{
	size_t n;
	int i;

	/* The name's bytes as they are, others as \xNN: %pE would leave
	 * Latin-1 letters alone, which the kernel's ctype calls printable.
	 */
	n = 0;
	for (i = 0; i < e->name_len; i++) {
		unsigned char c = e->name[i];

		n += scnprintf(buf + n, size - n,
			       c > ' ' && c < 0x7f ? "%c" : "\\x%02x", c);
	}
	n += scnprintf(buf + n, size - n, " [%s%s%s",
		      test_bit(AFS_VLDB_HAS_RW, &e->flags) ? "RW" : "",
		      test_bit(AFS_VLDB_HAS_RO, &e->flags) ?
		      (test_bit(AFS_VLDB_HAS_RW, &e->flags) ? " RO" : "RO") : "",
		      test_bit(AFS_VLDB_HAS_BAK, &e->flags) ? " BK" : "");
	n += scnprintf(buf + n, size - n, "]%s",
		       e->error == -ENOMEDIUM ? " no medium" : "");
	for (i = 0; i < e->nr_servers; i++) {
		const struct afs_uuid *u = (const struct afs_uuid *)&e->fs_server[i];
		u8 m = e->fs_mask[i];

		n += scnprintf(buf + n, size - n, " #%u %s%s%s%s%s u%u", u->node[5] & 0xff,
			       m & AFS_VOL_VTM_RW ? "RW" : "",
			       (m & AFS_VOL_VTM_RW) && (m & ~AFS_VOL_VTM_RW) ? "|" : "",
			       m & AFS_VOL_VTM_RO ? "RO" : "",
			       m & AFS_VOL_VTM_RO && m & AFS_VOL_VTM_BAK ? "|" : "",
			       m & AFS_VOL_VTM_BAK ? "BK" : "",
			       e->addr_version[i]);
		if ((u8)u->node[5] >= 0x80)
			n += scnprintf(buf + n, size - n, " node5 %02x", (u8)u->node[5]);
	}
}

static void afs_vl_decode_entry_table(struct kunit *test)
{
	const struct afs_vl_entry_case *c = test->param_value;
	size_t len = AFS_TEST_UVLDB_SIZE + c->len_delta;
	size_t full = AFS_TEST_UVLDB_SIZE + 4;
	struct afs_vldb_entry *entry = kunit_kzalloc(test, sizeof(*entry), GFP_KERNEL);
	struct afs_vl_fault fault = {};
	u32 unique[AFS_NMAXNSERVERS];
	u8 *whole = kunit_kzalloc(test, full, GFP_KERNEL), *buf;
	char *out = kunit_kzalloc(test, 1024, GFP_KERNEL);
	int i, ret;

	KUNIT_ASSERT_NOT_NULL(test, entry);
	KUNIT_ASSERT_NOT_NULL(test, whole);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (i = 0; i < AFS_NMAXNSERVERS; i++)
		unique[i] = 100 + i;
	afs_test_build_entry(whole, full, c->volname ?: "vol", c->nr_servers,
			     c->sflags, unique, c->vlflags);
	if (c->patch_at)
		afs_test_put_word(whole, c->patch_at, c->patch);

	buf = kmemdup(whole, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	ret = afs_vl_decode_entry(buf, len, entry, &fault);
	kfree(buf);
	KUNIT_EXPECT_EQ(test, ret, c->error);
	if (c->error) {
		KUNIT_EXPECT_STREQ(test, fault.reason ?: "(none)", c->reason);
		KUNIT_EXPECT_EQ(test, fault.offset, c->offset);
		return;
	}
	KUNIT_EXPECT_TRUE(test, test_bit(AFS_VLDB_QUERY_VALID, &entry->flags));
	KUNIT_EXPECT_EQ(test, test_bit(AFS_VLDB_QUERY_ERROR, &entry->flags),
			entry->error == -ENOMEDIUM);
	KUNIT_EXPECT_EQ(test, entry->vid[0], 0x20000001);
	KUNIT_EXPECT_EQ(test, entry->vid[2], 0x20000003);
	afs_test_format_entry(entry, out, 1024);
	KUNIT_EXPECT_STREQ(test, out, c->expect);
}

/*
 * The fuzzers.  Each makes a random reply from a known result (the oracle),
 * then leaves it alone or mutates it, as the DNS payload fuzzer does:
 *
 *	intact		must decode to the known result
 *	truncated	any shorter prefix must give -EBADMSG, "reply cut short"
 *	extended	bytes added must give -EBADMSG, "trailing bytes", at the
 *			original length
 *	corrupted	1 to 4 bytes changed: a documented error, or a result
 *			that keeps every invariant
 *
 * Every input is decoded from a kmalloc'd buffer of exactly its length.
 */
#define AFS_TEST_VL_FUZZ_ROUNDS	100000

/* An address the fuzzers put in a reply. */
struct afs_test_ep {
	bool		v6;
	u8		addr[16];
	u16		port;
};

#define AFS_TEST_MAX_EPS AFS_VL_MAX_ADDRS
static_assert(YFS_MAXENDPOINTS <= AFS_TEST_MAX_EPS);

enum afs_test_vl_mutation {
	AFS_TEST_VL_INTACT,
	AFS_TEST_VL_TRUNCATED,
	AFS_TEST_VL_EXTENDED,
	AFS_TEST_VL_CORRUPTED,
	AFS_TEST_VL_NR_MUTATIONS
};

static const char *const afs_test_vl_mutations[] = {
	"intact", "truncated", "extended", "corrupted"
};

struct afs_test_vl_fuzz {
	struct kunit		*test;
	struct rnd_state	rnd;
	u8			*data;		/* The reply being built */
	size_t			len, size;
	size_t			full;		/* Its length before mutation */
	enum afs_test_vl_mutation mutation;
	unsigned int		counts[AFS_TEST_VL_NR_MUTATIONS];
	unsigned int		accepted, refused;
	unsigned int		errors[4];	/* EBADMSG, EPROTONOSUPPORT, E2BIG, ERANGE */
	u64			start;
	struct afs_test_ep	eps[AFS_TEST_MAX_EPS];	/* The known addresses */
	struct afs_test_ep	sorted[AFS_TEST_MAX_EPS];
};

static u32 afs_test_vl_rnd(struct afs_test_vl_fuzz *z, u32 n)
{
	return prandom_u32_state(&z->rnd) % n;
}

static void afs_test_vl_word(struct afs_test_vl_fuzz *z, u32 v)
{
	if (WARN_ON(z->len + 4 > z->size))
		return;
	put_unaligned_be32(v, z->data + z->len);
	z->len += 4;
}

static void afs_test_vl_fuzz_init(struct kunit *test, struct afs_test_vl_fuzz *z,
				  u64 seed, size_t size)
{
	memset(z, 0, sizeof(*z));
	z->test = test;
	z->size = size + 8;
	z->data = kunit_kzalloc(test, z->size, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, z->data);
	prandom_seed_state(&z->rnd, seed);
	z->start = ktime_get_ns();
}

/* Mutate the reply just built; return an exactly sized copy of it. */
static u8 *afs_test_vl_mutate(struct afs_test_vl_fuzz *z)
{
	u32 r = afs_test_vl_rnd(z, 100);
	u8 *copy;
	int k;

	z->full = z->len;
	if (r < 40) {
		z->mutation = AFS_TEST_VL_INTACT;
	} else if (r < 55) {
		z->mutation = AFS_TEST_VL_TRUNCATED;
		z->len = afs_test_vl_rnd(z, z->full);
	} else if (r < 65) {
		z->mutation = AFS_TEST_VL_EXTENDED;
		for (k = 1 + afs_test_vl_rnd(z, 8); k > 0; k--)
			z->data[z->len++] = prandom_u32_state(&z->rnd);
	} else {
		z->mutation = AFS_TEST_VL_CORRUPTED;
		for (k = 1 + afs_test_vl_rnd(z, 4); k > 0 && z->full; k--) {
			size_t at = afs_test_vl_rnd(z, z->full);

			/* Most of the time, a whole word: counts and types. */
			if (afs_test_vl_rnd(z, 2))
				put_unaligned_be32(afs_test_vl_rnd(z, 4) ?
						   afs_test_vl_rnd(z, 64) :
						   prandom_u32_state(&z->rnd),
						   z->data + (at & ~3));
			else
				z->data[at] ^= BIT(afs_test_vl_rnd(z, 8));
		}
	}
	z->counts[z->mutation]++;

	copy = kmalloc(z->len, GFP_KERNEL);
	KUNIT_ASSERT_FALSE(z->test, ZERO_OR_NULL_PTR(copy) && z->len);
	if (z->len)
		memcpy(copy, z->data, z->len);
	return copy;
}

/*
 * Judge a decode: @problem is what the decoder's result broke, given that
 * it succeeded (the caller's oracle or invariants).  @fault is cleared for
 * the next round, so that a reason left from an earlier input cannot answer
 * for this one.  Return false to stop.
 */
static bool afs_test_vl_judge(struct afs_test_vl_fuzz *z, int round, int ret,
			      struct afs_vl_fault *fault, const char *problem)
{
	if (ret >= 0)
		z->accepted++;
	else
		z->refused++;
	switch (ret) {
	case -EBADMSG:
		z->errors[0]++;
		break;
	case -EPROTONOSUPPORT:
		z->errors[1]++;
		break;
	case -E2BIG:
		z->errors[2]++;
		break;
	case -ERANGE:
		z->errors[3]++;
		break;
	}

	switch (z->mutation) {
	case AFS_TEST_VL_INTACT:
		if (ret < 0)
			problem = fault->reason ?: "refused with no reason";
		break;
	case AFS_TEST_VL_TRUNCATED:
		problem = ret != -EBADMSG || strcmp(fault->reason ?: "", "reply cut short") ?
			"a prefix was not cut short" : NULL;
		break;
	case AFS_TEST_VL_EXTENDED:
		problem = ret != -EBADMSG || fault->offset != z->full ||
			strcmp(fault->reason ?: "", "trailing bytes") ?
			"added bytes were not trailing bytes" : NULL;
		break;
	default:
		if (ret >= 0)
			break;
		if (ret != -EBADMSG && ret != -EPROTONOSUPPORT &&
		    ret != -E2BIG && ret != -ERANGE)
			problem = "an undocumented error";
		else if (!fault->reason || fault->offset > z->len)
			problem = "no reason, or an offset past the end";
		else
			problem = NULL;
		break;
	}

	if (problem) {
		KUNIT_FAIL(z->test, "round %d, %s reply of %zu bytes (from %zu): %d, %s",
			   round, afs_test_vl_mutations[z->mutation], z->len,
			   z->full, ret, problem);
		print_hex_dump(KERN_INFO, "reply: ", DUMP_PREFIX_OFFSET, 16, 4,
			       z->data, min_t(size_t, z->len, 256), false);
		return false;
	}
	memset(fault, 0, sizeof(*fault));
	return true;
}

static void afs_test_vl_fuzz_report(struct afs_test_vl_fuzz *z, int rounds)
{
	kunit_info(z->test, "%d inputs in %llu ms: %u intact, %u truncated, %u extended, %u corrupted; %u accepted, %u refused (%u EBADMSG, %u EPROTONOSUPPORT, %u E2BIG, %u ERANGE)\n",
		   rounds, div_u64(ktime_get_ns() - z->start, NSEC_PER_MSEC),
		   z->counts[0], z->counts[1], z->counts[2], z->counts[3],
		   z->accepted, z->refused, z->errors[0], z->errors[1],
		   z->errors[2], z->errors[3]);
	/* Corrupted inputs must reach both outcomes, or they test little. */
	KUNIT_EXPECT_GT(z->test, z->accepted, z->counts[AFS_TEST_VL_INTACT]);
	KUNIT_EXPECT_GT(z->test, z->refused,
			z->counts[AFS_TEST_VL_TRUNCATED] + z->counts[AFS_TEST_VL_EXTENDED]);
}

/* An address list must be sorted, distinct, and of the one family order. */
static const char *afs_test_vl_alist_problem(const struct afs_addr_list *alist)
{
	int i;

	if (alist->nr_addrs > alist->max_addrs || alist->nr_ipv4 > alist->nr_addrs)
		return "counts out of range";
	for (i = 0; i < alist->nr_addrs; i++) {
		const struct sockaddr_rxrpc *srx = &alist->addrs[i];
		bool v4 = i < alist->nr_ipv4;

		if (srx->transport.family != (v4 ? AF_INET : AF_INET6))
			return "family out of order";
		if ((v4 ? srx->transport.sin.sin_port : srx->transport.sin6.sin6_port) == 0)
			return "port 0";
		if (srx->srx_service != FS_SERVICE)
			return "not the fileserver service";
	}
	return NULL;
}

static int afs_test_ep_cmp(const void *a, const void *b)
{
	const struct afs_test_ep *x = a, *y = b;
	int diff;

	if (x->v6 != y->v6)
		return x->v6 ? 1 : -1;
	diff = memcmp(x->addr, y->addr, x->v6 ? 16 : 4);
	if (diff)
		return diff;
	return (int)x->port - (int)y->port;
}

/*
 * Compare a decoded list with the expected one, made here from the known
 * addresses: IPv4 first, each family in ascending order of address then
 * port, repeats once.
 */
static const char *afs_test_vl_compare(struct afs_test_vl_fuzz *z, int nr,
				       const struct afs_addr_list *alist, u32 version)
{
	struct afs_test_ep *sorted = z->sorted;
	int i, n = 0;

	memcpy(sorted, z->eps, nr * sizeof(*sorted));
	sort(sorted, nr, sizeof(*sorted), afs_test_ep_cmp, NULL);
	for (i = 0; i < nr; i++)
		if (n == 0 || afs_test_ep_cmp(&sorted[n - 1], &sorted[i]) != 0)
			sorted[n++] = sorted[i];

	if (alist->version != version)
		return "version (uniquifier)";
	if (alist->nr_addrs != n)
		return "number of addresses";
	for (i = 0; i < n; i++) {
		const struct sockaddr_rxrpc *srx = &alist->addrs[i];

		if (!sorted[i].v6) {
			if (srx->transport.family != AF_INET ||
			    memcmp(&srx->transport.sin.sin_addr, sorted[i].addr, 4) ||
			    ntohs(srx->transport.sin.sin_port) != sorted[i].port)
				return "IPv4 address";
		} else {
			if (srx->transport.family != AF_INET6 ||
			    memcmp(&srx->transport.sin6.sin6_addr, sorted[i].addr, 16) ||
			    ntohs(srx->transport.sin6.sin6_port) != sorted[i].port)
				return "IPv6 address";
		}
	}
	return NULL;
}

static void afs_test_vl_want_xdr(struct afs_test_vl_fuzz *z)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(afs_test_want_xdr); i++) {
		u32 w = afs_test_want_xdr[i];

		/* Bytes from a server with a signed char, sometimes. */
		if (i >= 3 && w >= 0x80 && afs_test_vl_rnd(z, 2))
			w |= 0xffffff00;
		afs_test_vl_word(z, w);
	}
}

static void afs_vl_decode_addrs_u_fuzz(struct kunit *test)
{
	struct afs_test_vl_fuzz *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	struct afs_test_ep *eps = z ? z->eps : NULL;
	struct afs_addr_list *alist;
	struct afs_vl_fault fault = {};
	const char *problem;
	int i, j, nr, ret;
	u32 version;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, z);
	afs_test_vl_fuzz_init(test, z, 0x61646472, AFS_VL_ADDRS_U_HDR + AFS_VL_MAX_ADDRS * 4);
	alist = afs_alloc_addrlist(AFS_VL_MAX_ADDRS, FS_SERVICE, AFS_FS_PORT);
	KUNIT_ASSERT_NOT_NULL(test, alist);

	for (i = 0; i < AFS_TEST_VL_FUZZ_ROUNDS; i++) {
		nr = afs_test_vl_rnd(z, 8) ? afs_test_vl_rnd(z, 5) :
					     afs_test_vl_rnd(z, AFS_VL_MAX_ADDRS + 1);
		version = prandom_u32_state(&z->rnd);
		z->len = 0;
		afs_test_vl_want_xdr(z);
		afs_test_vl_word(z, version);
		afs_test_vl_word(z, nr);
		afs_test_vl_word(z, nr);
		for (j = 0; j < nr; j++) {
			u32 a = afs_test_vl_rnd(z, 4) ? 0x0a000000 | afs_test_vl_rnd(z, 8) :
							prandom_u32_state(&z->rnd);

			eps[j].v6 = false;
			put_unaligned_be32(a, eps[j].addr);
			eps[j].port = AFS_FS_PORT;
			afs_test_vl_word(z, a);
		}

		buf = afs_test_vl_mutate(z);
		ret = afs_vl_decode_addrs_u(buf, z->len, &afs_test_want, NULL, &fault);
		problem = NULL;
		if (ret >= 0) {
			alist->nr_addrs = 0;
			alist->nr_ipv4 = 0;
			alist->version = 0;
			if (afs_vl_decode_addrs_u(buf, z->len, &afs_test_want, alist,
						  &fault) != ret)
				problem = "a second decode differs";
			else if (z->mutation == AFS_TEST_VL_INTACT)
				problem = afs_test_vl_compare(z, nr, alist, version);
			else
				problem = afs_test_vl_alist_problem(alist);
		}
		kfree(buf);
		if (!afs_test_vl_judge(z, i, ret, &fault, problem))
			break;
	}
	afs_test_vl_fuzz_report(z, i);
	afs_put_addrlist(alist);
}

static void afs_vl_decode_endpoints_fuzz(struct kunit *test)
{
	struct afs_test_vl_fuzz *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	struct afs_test_ep *eps = z ? z->eps : NULL;
	struct afs_addr_list *alist;
	struct afs_vl_fault fault = {};
	const char *problem;
	int i, j, k, nr, nr_vol, ret;
	u32 version;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, z);
	afs_test_vl_fuzz_init(test, z, 0x79667376, AFS_YFS_ENDPOINTS_MAX);
	alist = afs_alloc_addrlist(YFS_MAXENDPOINTS, FS_SERVICE, AFS_FS_PORT);
	KUNIT_ASSERT_NOT_NULL(test, alist);

	for (i = 0; i < AFS_TEST_VL_FUZZ_ROUNDS; i++) {
		nr = afs_test_vl_rnd(z, 4) ? afs_test_vl_rnd(z, 4) :
					     afs_test_vl_rnd(z, YFS_MAXENDPOINTS + 1);
		nr_vol = afs_test_vl_rnd(z, 4) ? afs_test_vl_rnd(z, 3) :
						 afs_test_vl_rnd(z, YFS_MAXENDPOINTS + 1);
		version = prandom_u32_state(&z->rnd);
		z->len = 0;
		for (k = 0; k < 4; k++)
			afs_test_vl_word(z, get_unaligned_be32(&afs_test_want.b[k * 4]));
		afs_test_vl_word(z, version);
		afs_test_vl_word(z, nr);
		for (j = 0; j < nr + nr_vol; j++) {
			struct afs_test_ep ep = {};

			if (j == nr)
				afs_test_vl_word(z, nr_vol);
			ep.v6 = afs_test_vl_rnd(z, 2);
			ep.port = afs_test_vl_rnd(z, 2) ? 7000 + afs_test_vl_rnd(z, 3) :
							  1 + afs_test_vl_rnd(z, 65535);
			/* Few distinct addresses, so that repeats happen. */
			ep.addr[0] = ep.v6 ? 0x20 : 10;
			ep.addr[afs_test_vl_rnd(z, ep.v6 ? 16 : 4)] = afs_test_vl_rnd(z, 4);
			afs_test_vl_word(z, ep.v6 ? YFS_ENDPOINT_IPV6 : YFS_ENDPOINT_IPV4);
			afs_test_vl_word(z, ep.v6 ? 20 : 8);
			for (k = 0; k < (ep.v6 ? 4 : 1); k++)
				afs_test_vl_word(z, get_unaligned_be32(&ep.addr[k * 4]));
			afs_test_vl_word(z, ep.port);
			if (j < nr)
				eps[j] = ep;
		}
		if (nr_vol == 0)
			afs_test_vl_word(z, 0);

		buf = afs_test_vl_mutate(z);
		ret = afs_yfsvl_decode_endpoints(buf, z->len, &afs_test_want, NULL, &fault);
		problem = NULL;
		if (ret >= 0) {
			alist->nr_addrs = 0;
			alist->nr_ipv4 = 0;
			alist->version = 0;
			if (afs_yfsvl_decode_endpoints(buf, z->len, &afs_test_want, alist,
						       &fault) != ret)
				problem = "a second decode differs";
			else if (z->mutation == AFS_TEST_VL_INTACT)
				problem = afs_test_vl_compare(z, nr, alist, version);
			else
				problem = afs_test_vl_alist_problem(alist);
		}
		kfree(buf);
		if (!afs_test_vl_judge(z, i, ret, &fault, problem))
			break;
	}
	afs_test_vl_fuzz_report(z, i);
	afs_put_addrlist(alist);
}

static void afs_vl_decode_caps_fuzz(struct kunit *test)
{
	struct afs_test_vl_fuzz *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	struct afs_vl_fault fault = {};
	const char *problem;
	u32 caps, first;
	int i, j, nr, ret;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, z);
	afs_test_vl_fuzz_init(test, z, 0x63617073, 4 + AFS_VL_MAX_CAPABILITIES * 4);

	for (i = 0; i < AFS_TEST_VL_FUZZ_ROUNDS; i++) {
		nr = afs_test_vl_rnd(z, 4) ? afs_test_vl_rnd(z, 4) :
					     afs_test_vl_rnd(z, AFS_VL_MAX_CAPABILITIES + 1);
		first = prandom_u32_state(&z->rnd);
		z->len = 0;
		afs_test_vl_word(z, nr);
		for (j = 0; j < nr; j++)
			afs_test_vl_word(z, j ? prandom_u32_state(&z->rnd) : first);

		buf = afs_test_vl_mutate(z);
		caps = 0xdeadbeef;
		ret = afs_vl_decode_capabilities(buf, z->len, &caps, &fault);
		kfree(buf);
		problem = NULL;
		if (ret >= 0 && z->mutation == AFS_TEST_VL_INTACT &&
		    caps != (nr ? first : 0))
			problem = "the first word";
		if (!afs_test_vl_judge(z, i, ret, &fault, problem))
			break;
	}
	afs_test_vl_fuzz_report(z, i);
}

/* What the decoder promises of a name it accepts: printable ASCII, no space. */
static bool afs_test_cell_name_printable(const char *name)
{
	const unsigned char *p;

	for (p = (const unsigned char *)name; *p; p++)
		if (*p <= ' ' || *p >= 0x7f)
			return false;
	return true;
}

static void afs_vl_decode_cell_name_fuzz(struct kunit *test)
{
	static const char chars[] =
		"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-_";
	struct afs_test_vl_fuzz *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	char *known = kunit_kzalloc(test, YFS_VL_MAXCELLNAME + 4, GFP_KERNEL);
	char *name = kunit_kzalloc(test, YFS_VL_MAXCELLNAME + 1, GFP_KERNEL);
	struct afs_vl_fault fault = {};
	const char *problem;
	int i, j, nr, ret;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, z);
	KUNIT_ASSERT_NOT_NULL(test, known);
	KUNIT_ASSERT_NOT_NULL(test, name);
	afs_test_vl_fuzz_init(test, z, 0x63656c6c, 4 + YFS_VL_MAXCELLNAME);

	for (i = 0; i < AFS_TEST_VL_FUZZ_ROUNDS; i++) {
		nr = afs_test_vl_rnd(z, 4) ? 1 + afs_test_vl_rnd(z, 20) :
					     1 + afs_test_vl_rnd(z, YFS_VL_MAXCELLNAME);
		memset(known, 0, YFS_VL_MAXCELLNAME + 4);
		for (j = 0; j < nr; j++)
			known[j] = chars[afs_test_vl_rnd(z, sizeof(chars) - 1)];
		z->len = 0;
		afs_test_vl_word(z, nr);
		for (j = 0; j < nr; j += 4)
			afs_test_vl_word(z, get_unaligned_be32(&known[j]));

		buf = afs_test_vl_mutate(z);
		ret = afs_yfsvl_decode_cell_name(buf, z->len, name, &fault);
		kfree(buf);
		problem = NULL;
		if (ret >= 0) {
			if (z->mutation == AFS_TEST_VL_INTACT &&
			    (ret != nr || strcmp(name, known)))
				problem = "the name";
			else if (strlen(name) != ret)
				problem = "the name's length";
			else if (!afs_test_cell_name_printable(name))
				problem = "a byte of the name";
		}
		if (!afs_test_vl_judge(z, i, ret, &fault, problem))
			break;
	}
	afs_test_vl_fuzz_report(z, i);
}

/*
 * GetEntryByNameU: random flags on random servers; the expected entry is
 * worked out here from the rules in the decoder's comment.
 */
static const char *afs_test_entry_compare(const struct afs_vldb_entry *e,
					  const char *volname, u32 nr_servers,
					  const u32 *sflags, const u32 *unique,
					  u32 vlflags)
{
	bool new_only = false;
	int i, n = 0;

	if (e->name_len != strlen(volname) || memcmp(e->name, volname, e->name_len))
		return "name";
	for (i = 0; i < nr_servers; i++)
		if ((sflags[i] & AFS_VLSF_NEWREPSITE) && !(sflags[i] & AFS_VLSF_DONTUSE))
			new_only = true;
	for (i = 0; i < nr_servers; i++) {
		u8 mask = 0;

		if ((sflags[i] & AFS_VLSF_DONTUSE) ||
		    (new_only && !(sflags[i] & AFS_VLSF_NEWREPSITE)))
			continue;
		if (sflags[i] & AFS_VLSF_RWVOL)
			mask |= AFS_VOL_VTM_RW |
				(vlflags & AFS_VLF_BACKEXISTS ? AFS_VOL_VTM_BAK : 0);
		if (sflags[i] & AFS_VLSF_ROVOL)
			mask |= AFS_VOL_VTM_RO;
		if (!mask)
			continue;
		if (n >= e->nr_servers)
			return "too few servers";
		if (e->fs_mask[n] != mask || e->addr_version[n] != unique[i] ||
		    ((const struct afs_uuid *)&e->fs_server[n])->node[5] != i)
			return "a server";
		n++;
	}
	if (n != e->nr_servers)
		return "too many servers";
	if (test_bit(AFS_VLDB_HAS_RW, &e->flags) != !!(vlflags & AFS_VLF_RWEXISTS) ||
	    test_bit(AFS_VLDB_HAS_RO, &e->flags) != !!(vlflags & AFS_VLF_ROEXISTS) ||
	    test_bit(AFS_VLDB_HAS_BAK, &e->flags) != !!(vlflags & AFS_VLF_BACKEXISTS))
		return "volume flags";
	if (e->vid[0] != 0x20000001 || e->vid[1] != 0x20000002 || e->vid[2] != 0x20000003)
		return "volume IDs";
	return NULL;
}

static const char *afs_test_entry_problem(const struct afs_vldb_entry *e)
{
	int i;

	if (e->name_len < 1 || e->name_len > AFS_MAXVOLNAME ||
	    e->name[e->name_len] != 0 || strlen(e->name) != e->name_len)
		return "name";
	if (e->nr_servers > AFS_NMAXNSERVERS)
		return "number of servers";
	for (i = 0; i < e->nr_servers; i++)
		if (!e->fs_mask[i] ||
		    e->fs_mask[i] & ~(AFS_VOL_VTM_RW | AFS_VOL_VTM_RO | AFS_VOL_VTM_BAK))
			return "a server's mask";
	if (!test_bit(AFS_VLDB_QUERY_VALID, &e->flags) ||
	    test_bit(AFS_VLDB_QUERY_ERROR, &e->flags) != (e->error == -ENOMEDIUM))
		return "entry flags";
	return NULL;
}

static void afs_vl_decode_entry_fuzz(struct kunit *test)
{
	static const u32 flag_bits[] = {
		AFS_VLSF_NEWREPSITE, AFS_VLSF_ROVOL, AFS_VLSF_RWVOL,
		AFS_VLSF_BACKVOL, AFS_VLSF_UUID, AFS_VLSF_DONTUSE,
	};
	struct afs_test_vl_fuzz *z = kunit_kzalloc(test, sizeof(*z), GFP_KERNEL);
	struct afs_vldb_entry *entry = kunit_kzalloc(test, sizeof(*entry), GFP_KERNEL);
	char *volname = kunit_kzalloc(test, AFS_MAXVOLNAME + 1, GFP_KERNEL);
	u32 sflags[AFS_NMAXNSERVERS], unique[AFS_NMAXNSERVERS], nr, vlflags;
	struct afs_vl_fault fault = {};
	const char *problem;
	int i, j, k, ret;
	u8 *buf;

	KUNIT_ASSERT_NOT_NULL(test, z);
	KUNIT_ASSERT_NOT_NULL(test, entry);
	KUNIT_ASSERT_NOT_NULL(test, volname);
	afs_test_vl_fuzz_init(test, z, 0x656e7472, AFS_TEST_UVLDB_SIZE);

	for (i = 0; i < AFS_TEST_VL_FUZZ_ROUNDS; i++) {
		k = 1 + afs_test_vl_rnd(z, AFS_MAXVOLNAME);
		for (j = 0; j < k; j++)
			volname[j] = 'a' + afs_test_vl_rnd(z, 26);
		volname[k] = 0;
		nr = afs_test_vl_rnd(z, AFS_NMAXNSERVERS + 1);
		for (j = 0; j < AFS_NMAXNSERVERS; j++) {
			sflags[j] = 0;
			for (k = 0; k < ARRAY_SIZE(flag_bits); k++)
				if (afs_test_vl_rnd(z, k == 5 || k == 0 ? 6 : 2) == 0)
					sflags[j] |= flag_bits[k];
			unique[j] = prandom_u32_state(&z->rnd);
		}
		vlflags = 0;
		if (afs_test_vl_rnd(z, 8))
			vlflags |= AFS_VLF_RWEXISTS;
		if (afs_test_vl_rnd(z, 2))
			vlflags |= AFS_VLF_ROEXISTS;
		if (afs_test_vl_rnd(z, 2))
			vlflags |= AFS_VLF_BACKEXISTS;

		afs_test_build_entry(z->data, z->size, volname, nr, sflags, unique, vlflags);
		z->len = AFS_TEST_UVLDB_SIZE;

		buf = afs_test_vl_mutate(z);
		ret = afs_vl_decode_entry(buf, z->len, entry, &fault);
		kfree(buf);
		problem = NULL;
		if (ret >= 0) {
			if (z->mutation == AFS_TEST_VL_INTACT)
				problem = afs_test_entry_compare(entry, volname, nr, sflags,
								 unique, vlflags);
			else
				problem = afs_test_entry_problem(entry);
		}
		if (!afs_test_vl_judge(z, i, ret, &fault, problem))
			break;
	}
	afs_test_vl_fuzz_report(z, i);
}

static struct kunit_case afs_vl_decode_cases[] = {
	KUNIT_CASE_PARAM(afs_vl_decode_entry_table, afs_vl_entry_gen_params),
	KUNIT_CASE_PARAM(afs_vl_decode_addrs_u_table, afs_vl_addrs_u_gen_params),
	KUNIT_CASE_PARAM(afs_vl_decode_endpoints_table, afs_vl_endpoints_gen_params),
	KUNIT_CASE_PARAM(afs_vl_decode_caps_table, afs_vl_caps_gen_params),
	KUNIT_CASE_PARAM(afs_vl_decode_cell_name_table, afs_vl_cell_name_gen_params),
	KUNIT_CASE(afs_vl_decode_cell_name_limit),
	KUNIT_CASE(afs_vl_decode_entry_fuzz),
	KUNIT_CASE(afs_vl_decode_addrs_u_fuzz),
	KUNIT_CASE(afs_vl_decode_endpoints_fuzz),
	KUNIT_CASE(afs_vl_decode_caps_fuzz),
	KUNIT_CASE(afs_vl_decode_cell_name_fuzz),
	{}
};

static struct kunit_suite afs_vl_decode_suite = {
	.name = "afs_vl_decode",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_vl_decode_cases,
};

kunit_test_suites(&afs_vl_decode_suite);
