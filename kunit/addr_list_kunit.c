// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suites for the address lists: text parsing, merging and iteration.
 *
 * Included by addr_list.c, so that the static helpers can be reached.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/prandom.h>
#include <linux/sort.h>

#define AFS_TEST_SERVICE	52	/* VL_SERVICE */
#define AFS_TEST_PORT	7003	/* AFS_VL_PORT */

/*
 * Render a list as text: "a.b.c.d+port" and "[v6]+port", comma-separated, so
 * that the expected result of a parse case reads as a string.
 */
static void afs_test_format_alist(const struct afs_addr_list *alist,
				  char *buf, size_t size)
{
	size_t n = 0;
	int i;

	buf[0] = 0;
	for (i = 0; i < alist->nr_addrs; i++) {
		const struct sockaddr_rxrpc *srx = &alist->addrs[i];
		const char *sep = i ? "," : "";

		if (srx->transport.family == AF_INET)
			n += scnprintf(buf + n, size - n, "%s%pI4+%u", sep,
				       &srx->transport.sin.sin_addr,
				       ntohs(srx->transport.sin.sin_port));
		else
			n += scnprintf(buf + n, size - n, "%s[%pI6c]+%u", sep,
				       &srx->transport.sin6.sin6_addr,
				       ntohs(srx->transport.sin6.sin6_port));
	}
}

/*
 * The test's own idea of an address's place in a list: family (IPv4 first),
 * then the address bytes, then the port bytes, all as they sit in memory in
 * network order, compared bytewise.  This never reads an address as a
 * host-order integer, so it means the same on every arch, and it shares no
 * code with afs_cmp_addr().
 */
#define AFS_TEST_KEY_LEN	(1 + 16 + 2)

static void afs_test_srx_key(const struct sockaddr_rxrpc *srx, u8 *key)
{
	const u8 *addr, *port;
	size_t len;

	memset(key, 0, AFS_TEST_KEY_LEN);
	if (srx->transport.family == AF_INET) {
		addr = (const u8 *)&srx->transport.sin.sin_addr;
		port = (const u8 *)&srx->transport.sin.sin_port;
		len = 4;
	} else {
		key[0] = 1;
		addr = (const u8 *)&srx->transport.sin6.sin6_addr;
		port = (const u8 *)&srx->transport.sin6.sin6_port;
		len = 16;
	}
	memcpy(key + 1, addr, len);
	key[17] = port[0];
	key[18] = port[1];
}

static int afs_test_cmp_srx(const struct sockaddr_rxrpc *a,
			    const struct sockaddr_rxrpc *b)
{
	u8 ka[AFS_TEST_KEY_LEN], kb[AFS_TEST_KEY_LEN];

	afs_test_srx_key(a, ka);
	afs_test_srx_key(b, kb);
	return memcmp(ka, kb, AFS_TEST_KEY_LEN);
}

/*
 * The invariants every list must keep, whatever was merged into it: return
 * the first one broken, or NULL.
 */
static const char *afs_test_alist_problem(const struct afs_addr_list *alist)
{
	int i;

	if (alist->max_addrs > AFS_MAX_ADDRESSES)
		return "capacity over AFS_MAX_ADDRESSES";
	if (alist->nr_addrs > alist->max_addrs)
		return "more addresses than capacity";
	if (alist->nr_ipv4 > alist->nr_addrs)
		return "nr_ipv4 over nr_addrs";

	for (i = 0; i < alist->nr_addrs; i++) {
		const struct sockaddr_rxrpc *srx = &alist->addrs[i];
		bool ipv4 = i < alist->nr_ipv4;

		if (srx->srx_family != AF_RXRPC ||
		    srx->transport_type != SOCK_DGRAM)
			return "not an rxrpc datagram address";
		if (srx->transport.family != (ipv4 ? AF_INET : AF_INET6))
			return "family does not match nr_ipv4";
		if (srx->transport_len != (ipv4 ? sizeof(srx->transport.sin) :
					   sizeof(srx->transport.sin6)))
			return "wrong transport_len";
		if (i > 0 && afs_test_cmp_srx(&alist->addrs[i - 1], srx) >= 0)
			return "out of order or duplicated";
	}
	return NULL;
}

static void afs_test_check_alist(struct kunit *test,
				 const struct afs_addr_list *alist)
{
	const char *problem = afs_test_alist_problem(alist);

	KUNIT_EXPECT_NULL_MSG(test, problem, "bad list: %s", problem);
}

/*
 * Parse suite: one row per input.  A row expects either an error or the
 * parsed list as afs_test_format_alist() renders it.
 */
struct afs_test_parse_case {
	const char	*text;
	size_t		len;		/* 0: strlen(text) */
	char		delim;
	int		error;
	const char	*expect;
};

#define AFS_TEST_OK(t, d, e)	{ .text = (t), .delim = (d), .expect = (e) }
#define AFS_TEST_BAD(t, d, err)	{ .text = (t), .delim = (d), .error = (err) }

static const struct afs_test_parse_case afs_test_parse_cases[] = {
	/* Families, brackets and ports. */
	AFS_TEST_OK("1.2.3.4",			',', "1.2.3.4+7003"),
	AFS_TEST_OK("1.2.3.4+7001",		',', "1.2.3.4+7001"),
	AFS_TEST_OK("[::1]",			',', "[::1]+7003"),
	AFS_TEST_OK("::1",			',', "[::1]+7003"),
	AFS_TEST_OK("[2001:db8::1]+7001",	',', "[2001:db8::1]+7001"),
	AFS_TEST_OK("2001:db8::1+7001",		',', "[2001:db8::1]+7001"),
	AFS_TEST_OK("[::ffff:1.2.3.4]",		',', "[::ffff:1.2.3.4]+7003"),
	/* in6_pton() bounds a group's value, not its digits. */
	AFS_TEST_OK("::00001",			',', "[::1]+7003"),
	AFS_TEST_OK("[0abcd::1]",		',', "[abcd::1]+7003"),
	AFS_TEST_BAD("[1abcd::1]",		',', -EINVAL),
	AFS_TEST_OK("0.0.0.0",			',', "0.0.0.0+7003"),
	AFS_TEST_OK("255.255.255.255+65535",	',', "255.255.255.255+65535"),
	AFS_TEST_BAD("1.2.3.4+0",		',', -EINVAL),
	AFS_TEST_OK("1.2.3.4+1",			',', "1.2.3.4+1"),
	AFS_TEST_OK("1.2.3.4+65535",		',', "1.2.3.4+65535"),
	AFS_TEST_BAD("1.2.3.4+65536",		',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4+99999999999999999999", ',', -EINVAL),
	AFS_TEST_OK("1.2.3.4+007001",		',', "1.2.3.4+7001"),
	AFS_TEST_OK("010.001.002.003",		',', "10.1.2.3+7003"),
	AFS_TEST_BAD("1.2.3.4+",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4++7001",		',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4+x",		',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4+70a1",		',', -EINVAL),
	AFS_TEST_BAD("+7001",			',', -EINVAL),

	/* Delimiters, and when ':' becomes ','. */
	AFS_TEST_OK("1.2.3.4,5.6.7.8",		',', "1.2.3.4+7003,5.6.7.8+7003"),
	AFS_TEST_OK("1.2.3.4:5.6.7.8",		':', "1.2.3.4+7003,5.6.7.8+7003"),
	AFS_TEST_OK("1.2.3.4,5.6.7.8",		':', "1.2.3.4+7003,5.6.7.8+7003"),
	AFS_TEST_OK("::1",			':', "[::1]+7003"),
	AFS_TEST_OK("::1,::2",			':', "[::1]+7003,[::2]+7003"),
	AFS_TEST_OK("1.2.3.4:[::1]+7001",	':', "1.2.3.4+7003,[::1]+7001"),
	AFS_TEST_OK("1.2.3.4+7001:5.6.7.8",	':', "1.2.3.4+7001,5.6.7.8+7003"),
	AFS_TEST_BAD("1.2.3.4:::1",		':', -EINVAL),
	AFS_TEST_BAD("1.2.3.4;5.6.7.8",		',', -EINVAL),

	/* Ordering and duplicates. */
	AFS_TEST_OK("5.6.7.8,1.2.3.4",		',', "1.2.3.4+7003,5.6.7.8+7003"),
	AFS_TEST_OK("[::1],1.2.3.4",		',', "1.2.3.4+7003,[::1]+7003"),
	AFS_TEST_OK("[::2],[::1],2.0.0.0,1.0.0.0", ',',
		    "1.0.0.0+7003,2.0.0.0+7003,[::1]+7003,[::2]+7003"),
	AFS_TEST_OK("[fe80::1],[2001:db8::1],[::1]", ',',
		    "[::1]+7003,[2001:db8::1]+7003,[fe80::1]+7003"),
	AFS_TEST_OK("1.2.3.4,1.2.3.4",		',', "1.2.3.4+7003"),
	AFS_TEST_OK("1.2.3.4+7003,1.2.3.4",	',', "1.2.3.4+7003"),
	AFS_TEST_OK("1.2.3.4+7001,1.2.3.4+7000",	',', "1.2.3.4+7000,1.2.3.4+7001"),
	AFS_TEST_OK("1.2.3.4+65535,1.2.3.4+1",	',', "1.2.3.4+1,1.2.3.4+65535"),
	AFS_TEST_OK("[::1]+7001,[::1]+7001",	',', "[::1]+7001"),
	AFS_TEST_OK("1.0.0.0,0.255.255.255",	',', "0.255.255.255+7003,1.0.0.0+7003"),

	/*
	 * Byte order: the first octet and the high port byte weigh most,
	 * whatever the host's byte order.
	 */
	AFS_TEST_OK("2.0.0.1,1.0.0.2",		',', "1.0.0.2+7003,2.0.0.1+7003"),
	AFS_TEST_OK("0.0.0.255,0.0.1.0,255.0.0.0,0.1.0.0", ',',
		    "0.0.0.255+7003,0.0.1.0+7003,0.1.0.0+7003,255.0.0.0+7003"),
	AFS_TEST_OK("1.2.3.4+256,1.2.3.4+1,1.2.3.4+255", ',',
		    "1.2.3.4+1,1.2.3.4+255,1.2.3.4+256"),
	AFS_TEST_OK("[::1:0]+1,[::100]+256,[::100]+1", ',',
		    "[::100]+1,[::100]+256,[::1:0]+1"),

	/* Empty entries: rejected wherever they are. */
	AFS_TEST_BAD(",1.2.3.4",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4,",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4,,5.6.7.8",		',', -EINVAL),
	AFS_TEST_BAD(":1.2.3.4",			':', -EINVAL),
	AFS_TEST_BAD("1.2.3.4:",			':', -EINVAL),
	AFS_TEST_BAD("1.2.3.4::5.6.7.8",		':', -EINVAL),
	AFS_TEST_BAD(",",			',', -EINVAL),
	AFS_TEST_BAD("",				',', -EDESTADDRREQ),

	/* NUL, whitespace and other junk. */
	{ .text = "1.2.3.4\0,5.6.7.8", .len = 16, .delim = ',', .error = -EINVAL },
	{ .text = "\0", .len = 1, .delim = ',', .error = -EINVAL },
	AFS_TEST_BAD(" 1.2.3.4",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4 ",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4\n",		',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4, 5.6.7.8",		',', -EINVAL),
	AFS_TEST_BAD("garbage",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3",			',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4.5",		',', -EINVAL),
	AFS_TEST_BAD("256.1.1.1",		',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4/24",		',', -EINVAL),

	/* Brackets. */
	AFS_TEST_BAD("[::1",			',', -EINVAL),
	AFS_TEST_BAD("[",			',', -EINVAL),
	AFS_TEST_BAD("[]",			',', -EINVAL),
	AFS_TEST_BAD("::1]",			',', -EINVAL),
	AFS_TEST_BAD("[::1]x",			',', -EINVAL),
	AFS_TEST_BAD("[[::1]]",			',', -EINVAL),
	AFS_TEST_BAD("[1.2.3.4]",		',', -EINVAL),
	AFS_TEST_BAD("[fe80::1%eth0]",		',', -EINVAL),
	AFS_TEST_BAD("fe80::1%1",		',', -EINVAL),
	AFS_TEST_BAD("[::1]+",			',', -EINVAL),

	/* A port must be followed by a delimiter or the end. */
	AFS_TEST_BAD("1.2.3.4+7001[::1]",	',', -EINVAL),
	AFS_TEST_BAD("1.2.3.4+7001 5.6.7.8",	',', -EINVAL),
	AFS_TEST_BAD("[::1][::2]",		',', -EINVAL),
};

static size_t afs_test_parse_case_len(const struct afs_test_parse_case *c)
{
	return c->len ?: strlen(c->text);
}

/* Name a case by its input, with anything TAP cannot carry escaped. */
static void afs_test_parse_case_desc(const struct afs_test_parse_case *c, char *desc)
{
	size_t len = afs_test_parse_case_len(c), n = 0, i;

	for (i = 0; i < len && n < KUNIT_PARAM_DESC_SIZE - 16; i++) {
		unsigned char ch = c->text[i];

		if (isgraph(ch) && ch != '#' && ch != '\\')
			desc[n++] = ch;
		else
			n += scnprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n,
				       "\\x%02x", ch);
	}
	if (len == 0)
		n += scnprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n, "(empty)");
	scnprintf(desc + n, KUNIT_PARAM_DESC_SIZE - n, " delim '%c'", c->delim);
}

KUNIT_ARRAY_PARAM(afs_test_parse, afs_test_parse_cases, afs_test_parse_case_desc);

static struct afs_addr_list *afs_test_vllist_alist(struct afs_vlserver_list *vllist)
{
	return rcu_dereference_protected(vllist->servers[0].server->addresses, true);
}

static void afs_addr_list_parse_table(struct kunit *test)
{
	const struct afs_test_parse_case *c = test->param_value;
	struct afs_vlserver_list *vllist;
	struct afs_addr_list *alist;
	char *buf;

	buf = kunit_kzalloc(test, 1024, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);

	vllist = afs_parse_text_addrs(NULL, c->text, afs_test_parse_case_len(c),
				      c->delim, AFS_TEST_SERVICE, AFS_TEST_PORT);
	if (c->error) {
		KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(vllist), c->error);
		if (!IS_ERR(vllist))
			afs_put_vlserverlist(NULL, vllist);
		return;
	}

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, vllist);
	KUNIT_EXPECT_EQ(test, vllist->nr_servers, 1);
	alist = afs_test_vllist_alist(vllist);
	KUNIT_ASSERT_NOT_NULL(test, alist);
	afs_test_check_alist(test, alist);
	afs_test_format_alist(alist, buf, 1024);
	KUNIT_EXPECT_STREQ(test, buf, c->expect);
	KUNIT_EXPECT_EQ(test, alist->addrs[0].srx_service, AFS_TEST_SERVICE);
	afs_put_vlserverlist(NULL, vllist);
}

/*
 * Build "10.0.0.1,10.0.0.2,...", @nr entries, the last @dups of them
 * repeating the first.
 */
static char *afs_test_many_addrs(struct kunit *test, int nr, int dups)
{
	char *text = kunit_kzalloc(test, nr * 16 + 1, GFP_KERNEL);
	size_t n = 0;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, text);
	for (i = 0; i < nr; i++) {
		int host = i < nr - dups ? i : i - (nr - dups);

		n += sprintf(text + n, "%s10.0.%d.%d", i ? "," : "",
			     host / 250, host % 250 + 1);
	}
	return text;
}

static int afs_test_parse_count(struct kunit *test, const char *text)
{
	struct afs_vlserver_list *vllist;
	int nr;

	vllist = afs_parse_text_addrs(NULL, text, strlen(text), ',',
				      AFS_TEST_SERVICE, AFS_TEST_PORT);
	if (IS_ERR(vllist))
		return PTR_ERR(vllist);
	afs_test_check_alist(test, afs_test_vllist_alist(vllist));
	nr = afs_test_vllist_alist(vllist)->nr_addrs;
	afs_put_vlserverlist(NULL, vllist);
	return nr;
}

/* The limit is on distinct addresses: duplicates do not count. */
static void afs_addr_list_parse_limit(struct kunit *test)
{
	int max = AFS_MAX_ADDRESSES;

	KUNIT_EXPECT_EQ(test, afs_test_parse_count(test, afs_test_many_addrs(test, max, 0)), max);
	KUNIT_EXPECT_EQ(test, afs_test_parse_count(test, afs_test_many_addrs(test, max + 1, 0)),
			-E2BIG);
	KUNIT_EXPECT_EQ(test, afs_test_parse_count(test, afs_test_many_addrs(test, max + 8, 8)),
			max);
	KUNIT_EXPECT_EQ(test, afs_test_parse_count(test, afs_test_many_addrs(test, 1000, 0)),
			-E2BIG);
}

/*
 * Robustness: pseudo-random strings of three kinds: random characters from
 * the grammar's alphabet, random runs of tokens, and well-formed lists with
 * a random character mutated.  A string in the grammar (as the oracle below
 * reads it) must come back as a list that keeps the invariants; any other as
 * one of the documented errors.
 */
#define AFS_TEST_FUZZ_ROUNDS	10000
#define AFS_TEST_FUZZ_LEN	64

static const char afs_test_fuzz_chars[] = "0123456789abcdef.:,[]+%x\n ";

/* Well-formed tokens first; structured strings use only those. */
static const char *const afs_test_fuzz_addrs[] = {
	"1.2.3.4", "10.0.0.1", "255.255.255.255", "0.0.0.0", "[::1]",
	"[2001:db8::1]", "[::ffff:1.2.3.4]",
	"::1", "fe80::1", "1.2.3", "[1.2.3.4]", "",
};

#define AFS_TEST_FUZZ_GOOD_ADDRS	7

static const char *const afs_test_fuzz_ports[] = {
	"", "", "+7001", "+65535", "+007",
	"+65536", "+0", "+",
};

#define AFS_TEST_FUZZ_GOOD_PORTS	5

static const char *afs_test_fuzz_pick(struct rnd_state *rnd,
				      const char *const *table, size_t nr)
{
	return table[prandom_u32_state(rnd) % nr];
}

static void afs_test_fuzz_string(struct rnd_state *rnd, char *buf, char delim)
{
	size_t target = prandom_u32_state(rnd) % AFS_TEST_FUZZ_LEN, n;
	unsigned int kind = prandom_u32_state(rnd) % 3;
	bool good = kind == 2;

	if (kind == 0) {
		for (n = 0; n < target; n++)
			buf[n] = afs_test_fuzz_chars[prandom_u32_state(rnd) %
						(sizeof(afs_test_fuzz_chars) - 1)];
		buf[n] = 0;
		return;
	}

	buf[0] = 0;
	n = 0;
	while (n < target) {
		const char *addr = afs_test_fuzz_pick(rnd, afs_test_fuzz_addrs,
						 good ? AFS_TEST_FUZZ_GOOD_ADDRS :
							ARRAY_SIZE(afs_test_fuzz_addrs));
		const char *port = afs_test_fuzz_pick(rnd, afs_test_fuzz_ports,
						 good ? AFS_TEST_FUZZ_GOOD_PORTS :
							ARRAY_SIZE(afs_test_fuzz_ports));
		int sep = n > 0 && (good || prandom_u32_state(rnd) & 1);
		size_t need = sep + strlen(addr) + strlen(port);

		if (!need || n + need >= AFS_TEST_FUZZ_LEN)
			break;
		n += scnprintf(buf + n, AFS_TEST_FUZZ_LEN - n, "%.*s%s%s",
			       sep, &delim, addr, port);
	}

	/* Mutate one character of half the well-formed strings. */
	if (good && n > 0 && prandom_u32_state(rnd) & 1)
		buf[prandom_u32_state(rnd) % n] =
			afs_test_fuzz_chars[prandom_u32_state(rnd) %
				       (sizeof(afs_test_fuzz_chars) - 1)];
}

/*
 * The grammar above, read again independently of the parser, as the fuzzer's
 * oracle: a dotted quad of decimal octets; RFC 4291 hexadecimal groups of at
 * most four digits (leading zeros aside, as in6_pton() takes them), with one
 * "::" standing for at least one group and an optional dotted quad as the
 * last two; either in brackets, or bare where the delimiter is not ':'; under
 * INET6_ADDRSTRLEN characters; an optional "+port" of 1 to 65535; entries
 * separated by single delimiters.
 */
static bool afs_test_is_quad(const char *p, size_t n)
{
	unsigned int octet = 0, digits = 0, dots = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		if (p[i] == '.') {
			if (!digits || ++dots > 3)
				return false;
			octet = 0;
			digits = 0;
		} else if (isdigit(p[i])) {
			octet = octet * 10 + p[i] - '0';
			digits++;
			if (octet > 255)
				return false;
		} else {
			return false;
		}
	}
	return digits && dots == 3;
}

static bool afs_test_is_hex6(const char *p, size_t n)
{
	unsigned int groups = 0;
	bool gap = false;
	size_t i = 0, start;

	if (n >= 2 && p[0] == ':' && p[1] == ':') {
		gap = true;
		i = 2;
	}
	while (i < n) {
		start = i;
		while (i < n && isxdigit(p[i]))
			i++;
		if (i < n && p[i] == '.') {
			if (!afs_test_is_quad(p + start, n - start))
				return false;
			groups += 2;
			break;
		}
		if (i == start)
			return false;
		while (start < i - 1 && p[start] == '0')
			start++;
		if (i - start > 4)
			return false;
		groups++;
		if (i == n)
			break;
		if (p[i] != ':' || ++i == n)
			return false;
		if (p[i] == ':') {
			if (gap)
				return false;
			gap = true;
			i++;
		}
	}
	return gap ? groups < 8 : groups == 8;
}

static bool afs_test_in_grammar(const char *s, char delim)
{
	const char *end;
	unsigned int port;

	if (!*s)
		return false;
	if (delim == ':' && (strchr(s, ',') || !strchr(s, '.')))
		delim = ',';
	for (;;) {
		if (*s == '[') {
			end = strchr(s, ']');
			if (!end || end - s - 1 >= INET6_ADDRSTRLEN ||
			    !afs_test_is_hex6(s + 1, end - s - 1))
				return false;
			end++;
		} else {
			end = s;
			while (*end && *end != '+' && *end != delim)
				end++;
			if (end - s >= INET6_ADDRSTRLEN ||
			    (!afs_test_is_quad(s, end - s) && !afs_test_is_hex6(s, end - s)))
				return false;
		}
		if (*end == '+') {
			if (!isdigit(*++end))
				return false;
			for (port = 0; isdigit(*end); end++) {
				port = port * 10 + *end - '0';
				if (port > 65535)
					return false;
			}
			if (!port)
				return false;
		}
		if (!*end)
			return true;
		if (*end != delim || !end[1])
			return false;
		s = end + 1;
	}
}

static void afs_addr_list_parse_fuzz(struct kunit *test)
{
	struct rnd_state rnd;
	int i, ok = 0, inval = 0;
	const char *problem;
	bool in_grammar;
	char *buf;

	/* The oracle has no -E2BIG: strings too short to reach the limit. */
	BUILD_BUG_ON(AFS_TEST_FUZZ_LEN / 2 > AFS_MAX_ADDRESSES);
	buf = kunit_kzalloc(test, AFS_TEST_FUZZ_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	prandom_seed_state(&rnd, 0x6b414653);	/* Fixed: failures reproduce. */

	for (i = 0; i < AFS_TEST_FUZZ_ROUNDS; i++) {
		struct afs_vlserver_list *vllist;
		char delim = prandom_u32_state(&rnd) & 1 ? ',' : ':';

		afs_test_fuzz_string(&rnd, buf, delim);
		in_grammar = afs_test_in_grammar(buf, delim);
		vllist = afs_parse_text_addrs(NULL, buf, strlen(buf), delim,
					      AFS_TEST_SERVICE, AFS_TEST_PORT);
		if (IS_ERR(vllist)) {
			long err = PTR_ERR(vllist);

			problem = in_grammar ? "refused, but in the grammar" :
				err != -EINVAL && err != -EDESTADDRREQ ?
				"an undocumented error" : NULL;
			inval++;
		} else {
			problem = in_grammar ?
				afs_test_alist_problem(afs_test_vllist_alist(vllist)) :
				"accepted, but not in the grammar";
			afs_put_vlserverlist(NULL, vllist);
			ok++;
		}
		if (problem) {
			KUNIT_FAIL(test, "\"%*pE\" delim '%c': %d, %s", (int)strlen(buf), buf,
				   delim, PTR_ERR_OR_ZERO(vllist), problem);
			return;
		}
	}

	kunit_info(test, "%d parsed, %d rejected\n", ok, inval);
	/* The generator must reach both outcomes, or it tests nothing. */
	KUNIT_EXPECT_GT(test, ok, AFS_TEST_FUZZ_ROUNDS / 10);
	KUNIT_EXPECT_GT(test, inval, AFS_TEST_FUZZ_ROUNDS / 10);
}

/*
 * Generated well-formed lists whose result is known: random distinct
 * addresses (octets and ports drawn mostly from values where byte order
 * shows), written in a shuffled order with duplicates, in every form the
 * grammar allows.  The expected list is worked out here, without the code
 * under test: the distinct addresses sorted by afs_test_key order, or -E2BIG
 * when there are more than AFS_MAX_ADDRESSES of them.
 */
#define AFS_TEST_GEN_ROUNDS	1000
#define AFS_TEST_GEN_MAX	(AFS_MAX_ADDRESSES + 2)
#define AFS_TEST_GEN_DUPS	4
#define AFS_TEST_GEN_TEXT	((AFS_TEST_GEN_MAX + AFS_TEST_GEN_DUPS) * 56)

struct afs_test_gen_addr {
	u8	key[AFS_TEST_KEY_LEN];	/* As afs_test_srx_key() lays it out */
};

struct afs_test_gen {
	struct afs_test_gen_addr addrs[AFS_TEST_GEN_MAX + AFS_TEST_GEN_DUPS];
	int	nr_distinct;
	int	nr;
	char	text[AFS_TEST_GEN_TEXT];
	char	expect[AFS_TEST_GEN_TEXT];
	char	got[AFS_TEST_GEN_TEXT];
};

static const u8 afs_test_gen_octets[] = { 0, 1, 2, 9, 10, 127, 128, 254, 255 };
static const u16 afs_test_gen_ports[] = {
	1, 255, 256, 7000, 7001, AFS_TEST_PORT, 0xff00, 65535,
};

static u8 afs_test_gen_octet(struct rnd_state *rnd)
{
	u32 r = prandom_u32_state(rnd);

	if (r % 4 == 0)
		return r >> 8;
	return afs_test_gen_octets[(r >> 8) % ARRAY_SIZE(afs_test_gen_octets)];
}

static void afs_test_gen_one(struct rnd_state *rnd, u8 *key)
{
	u32 r = prandom_u32_state(rnd);
	unsigned int port;
	int i;

	memset(key, 0, AFS_TEST_KEY_LEN);
	if (r % 3 == 0) {
		key[0] = 1;
		for (i = 1; i <= 16; i++)
			if (prandom_u32_state(rnd) % 4 == 0)
				key[i] = afs_test_gen_octet(rnd);
	} else {
		for (i = 1; i <= 4; i++)
			key[i] = afs_test_gen_octet(rnd);
	}

	r = prandom_u32_state(rnd);
	if (r % 2)
		port = AFS_TEST_PORT;
	else if (r % 8 == 0)
		port = (r >> 8) % 65535 + 1;
	else
		port = afs_test_gen_ports[(r >> 8) % ARRAY_SIZE(afs_test_gen_ports)];
	key[17] = port >> 8;
	key[18] = port & 0xff;
}

static unsigned int afs_test_key_port(const u8 *key)
{
	return key[17] << 8 | key[18];
}

/* As afs_test_format_alist() renders a parsed list. */
static size_t afs_test_key_format(const u8 *key, char *buf, size_t size)
{
	if (key[0])
		return scnprintf(buf, size, "[%pI6c]+%u", key + 1,
				 afs_test_key_port(key));
	return scnprintf(buf, size, "%u.%u.%u.%u+%u", key[1], key[2], key[3],
			 key[4], afs_test_key_port(key));
}

/* An entry in one of the forms the grammar accepts for it. */
static size_t afs_test_key_write(struct rnd_state *rnd, const u8 *key,
				 char delim, char *buf, size_t size)
{
	unsigned int port = afs_test_key_port(key);
	u32 r = prandom_u32_state(rnd);
	size_t n;

	if (!key[0] && r % 4 == 0)
		n = scnprintf(buf, size, "%03u.%03u.%03u.%03u",
			      key[1], key[2], key[3], key[4]);
	else if (!key[0])
		n = scnprintf(buf, size, "%u.%u.%u.%u",
			      key[1], key[2], key[3], key[4]);
	else if (delim == ',' && r % 3 == 0)
		n = scnprintf(buf, size, "%pI6c", key + 1);
	else if (r % 3 == 1)
		n = scnprintf(buf, size, "[%pI6]", key + 1);
	else
		n = scnprintf(buf, size, "[%pI6c]", key + 1);

	if (port != AFS_TEST_PORT || (r >> 8) % 2)
		n += scnprintf(buf + n, size - n, "+%u", port);
	return n;
}

static int afs_test_key_cmp(const void *a, const void *b)
{
	return memcmp(a, b, AFS_TEST_KEY_LEN);
}

/*
 * Fill @g with one round's input and its expected result.  Return the
 * delimiter.
 */
static char afs_test_gen_round(struct rnd_state *rnd, struct afs_test_gen *g)
{
	u32 r = prandom_u32_state(rnd);
	bool have_ipv4 = false;
	char delim;
	size_t n;
	int i, j, dups;

	/* Mostly short lists; one in ten at the limit, one in ten over it. */
	if (r % 10 == 0)
		g->nr_distinct = AFS_MAX_ADDRESSES - (r >> 8) % 3;
	else if (r % 10 == 1)
		g->nr_distinct = AFS_MAX_ADDRESSES + 1 + (r >> 8) % 2;
	else
		g->nr_distinct = 1 + (r >> 8) % 8;

	for (i = 0; i < g->nr_distinct; i++) {
		u8 *key = g->addrs[i].key;

		do {
			afs_test_gen_one(rnd, key);
			for (j = 0; j < i; j++)
				if (!afs_test_key_cmp(g->addrs[j].key, key))
					break;
		} while (j < i);
		if (!key[0])
			have_ipv4 = true;
	}

	/* The expected list, before duplicates and shuffling. */
	sort(g->addrs, g->nr_distinct, sizeof(g->addrs[0]),
	     afs_test_key_cmp, NULL);
	n = 0;
	g->expect[0] = 0;
	for (i = 0; i < g->nr_distinct; i++) {
		if (i)
			n += scnprintf(g->expect + n, sizeof(g->expect) - n, ",");
		n += afs_test_key_format(g->addrs[i].key, g->expect + n,
					 sizeof(g->expect) - n);
	}

	dups = prandom_u32_state(rnd) % (AFS_TEST_GEN_DUPS + 1);
	g->nr = g->nr_distinct;
	for (i = 0; i < dups; i++)
		g->addrs[g->nr++] = g->addrs[prandom_u32_state(rnd) % g->nr_distinct];
	for (i = g->nr - 1; i > 0; i--) {
		j = prandom_u32_state(rnd) % (i + 1);
		swap(g->addrs[i], g->addrs[j]);
	}

	/* ':' stays a delimiter only in a list with a '.' and no ','. */
	delim = have_ipv4 && prandom_u32_state(rnd) % 2 ? ':' : ',';
	n = 0;
	for (i = 0; i < g->nr; i++) {
		if (i)
			n += scnprintf(g->text + n, sizeof(g->text) - n, "%c", delim);
		n += afs_test_key_write(rnd, g->addrs[i].key, delim,
					g->text + n, sizeof(g->text) - n);
	}
	return delim;
}

static void afs_addr_list_parse_generated(struct kunit *test)
{
	struct afs_test_gen *g;
	struct rnd_state rnd;
	int i, ok = 0, too_many = 0;

	g = kunit_kzalloc(test, sizeof(*g), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, g);
	prandom_seed_state(&rnd, 0x6b414654);	/* Fixed: failures reproduce. */

	for (i = 0; i < AFS_TEST_GEN_ROUNDS; i++) {
		struct afs_vlserver_list *vllist;
		char delim = afs_test_gen_round(&rnd, g);
		bool over = g->nr_distinct > AFS_MAX_ADDRESSES;
		const char *problem;

		vllist = afs_parse_text_addrs(NULL, g->text, strlen(g->text),
					      delim, AFS_TEST_SERVICE,
					      AFS_TEST_PORT);
		if (IS_ERR(vllist)) {
			KUNIT_ASSERT_TRUE_MSG(test, over && PTR_ERR(vllist) == -E2BIG,
					      "round %d \"%s\" delim '%c': %ld, expected %s",
					      i, g->text, delim, PTR_ERR(vllist),
					      over ? "-E2BIG" : g->expect);
			too_many++;
			continue;
		}

		problem = afs_test_alist_problem(afs_test_vllist_alist(vllist));
		afs_test_format_alist(afs_test_vllist_alist(vllist), g->got,
				      sizeof(g->got));
		afs_put_vlserverlist(NULL, vllist);
		KUNIT_ASSERT_FALSE_MSG(test, over,
				       "round %d \"%s\": %d distinct, parsed as \"%s\", expected -E2BIG",
				       i, g->text, g->nr_distinct, g->got);
		KUNIT_ASSERT_NULL_MSG(test, problem, "round %d \"%s\": %s",
				      i, g->text, problem);
		KUNIT_ASSERT_STREQ_MSG(test, g->got, g->expect,
				       "round %d \"%s\" delim '%c'",
				       i, g->text, delim);
		ok++;
	}

	kunit_info(test, "%d lists as expected, %d over %u addresses rejected\n",
		   ok, too_many, AFS_MAX_ADDRESSES);
	KUNIT_EXPECT_GT(test, ok, AFS_TEST_GEN_ROUNDS / 2);
	KUNIT_EXPECT_GT(test, too_many, 0);
}

static struct kunit_case afs_addr_list_parse_cases[] = {
	KUNIT_CASE_PARAM(afs_addr_list_parse_table, afs_test_parse_gen_params),
	KUNIT_CASE(afs_addr_list_parse_limit),
	KUNIT_CASE(afs_addr_list_parse_fuzz),
	KUNIT_CASE(afs_addr_list_parse_generated),
	{}
};

static struct kunit_suite afs_addr_list_parse_suite = {
	.name = "afs_addr_list_parse",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_addr_list_parse_cases,
};

/*
 * Merge suite.
 */
static struct afs_addr_list *afs_test_alloc(struct kunit *test, unsigned int nr)
{
	struct afs_addr_list *alist = afs_alloc_addrlist(nr, AFS_TEST_SERVICE, AFS_TEST_PORT);

	KUNIT_ASSERT_NOT_NULL(test, alist);
	return alist;
}

static void afs_test_merge4(struct afs_addr_list *alist, const char *addr, u16 port)
{
	__be32 x;

	WARN_ON(!in4_pton(addr, -1, (u8 *)&x, -1, NULL));
	afs_merge_fs_addr4(alist, x, port);
}

static void afs_test_merge6(struct afs_addr_list *alist, const char *addr, u16 port)
{
	__be32 x[4];

	WARN_ON(!in6_pton(addr, -1, (u8 *)x, -1, NULL));
	afs_merge_fs_addr6(alist, x, port);
}

static void afs_test_expect_alist(struct kunit *test,
				  const struct afs_addr_list *alist,
				  const char *expect)
{
	char *buf = kunit_kzalloc(test, 1024, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	afs_test_check_alist(test, alist);
	afs_test_format_alist(alist, buf, 1024);
	KUNIT_EXPECT_STREQ(test, buf, expect);
}

static void afs_addr_list_merge_sorted(struct kunit *test)
{
	static const char expect[] =
		"9.9.9.9+7000,10.0.0.2+6999,10.0.0.2+7000,[::1]+6000,[::1]+7000,[fe80::1]+7000";
	struct afs_addr_list *alist = afs_test_alloc(test, 8);

	afs_test_merge6(alist, "fe80::1", 7000);
	afs_test_merge4(alist, "10.0.0.2", 7000);
	afs_test_merge6(alist, "::1", 7000);
	afs_test_merge4(alist, "9.9.9.9", 7000);
	afs_test_merge4(alist, "10.0.0.2", 6999);
	afs_test_merge6(alist, "::1", 6000);
	afs_test_expect_alist(test, alist, expect);
	KUNIT_EXPECT_EQ(test, alist->nr_ipv4, 3);
	KUNIT_EXPECT_EQ(test, alist->addrs[5].srx_service, AFS_TEST_SERVICE);
	afs_put_addrlist(alist);
}

static void afs_addr_list_merge_duplicates(struct kunit *test)
{
	struct afs_addr_list *alist = afs_test_alloc(test, 8);

	afs_test_merge4(alist, "1.2.3.4", 7000);
	afs_test_merge6(alist, "::1", 7000);
	afs_test_merge4(alist, "1.2.3.4", 7000);
	afs_test_merge6(alist, "::1", 7000);
	afs_test_merge6(alist, "::ffff:1.2.3.4", 7000);
	afs_test_expect_alist(test, alist,
			      "1.2.3.4+7000,[::1]+7000,[::ffff:1.2.3.4]+7000");
	KUNIT_EXPECT_EQ(test, alist->nr_ipv4, 1);
	afs_put_addrlist(alist);
}

/* A full list drops new addresses but still recognises duplicates. */
static void afs_addr_list_merge_full(struct kunit *test)
{
	struct afs_addr_list *alist = afs_test_alloc(test, 2);

	afs_test_merge4(alist, "5.5.5.5", 7000);
	afs_test_merge6(alist, "::5", 7000);
	afs_test_merge4(alist, "1.1.1.1", 7000);
	afs_test_merge6(alist, "::1", 7000);
	afs_test_merge4(alist, "5.5.5.5", 7000);
	afs_test_expect_alist(test, alist, "5.5.5.5+7000,[::5]+7000");
	KUNIT_EXPECT_EQ(test, alist->nr_addrs, 2);
	afs_put_addrlist(alist);

	alist = afs_test_alloc(test, 0);
	afs_test_merge4(alist, "5.5.5.5", 7000);
	KUNIT_EXPECT_EQ(test, alist->nr_addrs, 0);
	afs_put_addrlist(alist);
}

static void afs_addr_list_alloc_capped(struct kunit *test)
{
	struct afs_addr_list *alist = afs_test_alloc(test, 1000);
	int i;

	KUNIT_EXPECT_EQ(test, alist->max_addrs, AFS_MAX_ADDRESSES);
	KUNIT_EXPECT_EQ(test, alist->nr_addrs, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&alist->usage), 1);
	for (i = 0; i < AFS_MAX_ADDRESSES + 4; i++)
		afs_merge_fs_addr4(alist, htonl(0x0a000000 + i), 7000);
	KUNIT_EXPECT_EQ(test, alist->nr_addrs, AFS_MAX_ADDRESSES);
	afs_test_check_alist(test, alist);
	afs_put_addrlist(alist);
}

/*
 * Merged from the wire in an order that only a byte-order mistake would
 * keep: the expected order is the text, not what afs_cmp_addr() says.
 */
static void afs_addr_list_merge_byte_order(struct kunit *test)
{
	static const char expect[] =
		"0.0.0.255+1,0.0.0.255+256,0.0.1.0+1,0.1.0.0+255,255.0.0.0+1,[::100]+1,[::1:0]+1";
	struct afs_addr_list *alist = afs_test_alloc(test, 8);

	afs_test_merge4(alist, "255.0.0.0", 1);
	afs_test_merge4(alist, "0.0.0.255", 256);
	afs_test_merge4(alist, "0.0.1.0", 1);
	afs_test_merge4(alist, "0.0.0.255", 1);
	afs_test_merge4(alist, "0.1.0.0", 255);
	afs_test_merge6(alist, "::1:0", 1);
	afs_test_merge6(alist, "::100", 1);
	afs_test_expect_alist(test, alist, expect);
	afs_put_addrlist(alist);
}

static struct kunit_case afs_addr_list_merge_cases[] = {
	KUNIT_CASE(afs_addr_list_merge_sorted),
	KUNIT_CASE(afs_addr_list_merge_duplicates),
	KUNIT_CASE(afs_addr_list_merge_byte_order),
	KUNIT_CASE(afs_addr_list_merge_full),
	KUNIT_CASE(afs_addr_list_alloc_capped),
	{}
};

static struct kunit_suite afs_addr_list_merge_suite = {
	.name = "afs_addr_list_merge",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_addr_list_merge_cases,
};

/*
 * Iteration suite: a list of four addresses whose probe masks each case sets,
 * and a cursor holding its own reference on it.
 */
struct afs_test_iter_fixture {
	struct afs_addr_list	*alist;
	struct afs_addr_cursor	ac;
};

static int afs_addr_list_iter_init(struct kunit *test)
{
	struct afs_test_iter_fixture *f;
	int i;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;
	f->alist = afs_alloc_addrlist(4, AFS_TEST_SERVICE, AFS_TEST_PORT);
	if (!f->alist)
		return -ENOMEM;
	for (i = 0; i < 4; i++)
		afs_merge_fs_addr4(f->alist, htonl(0x0a000001 + i), 7000);
	f->alist->responded = 0xf;
	f->ac.alist = afs_get_addrlist(f->alist);
	f->ac.index = -1;
	return 0;
}

static void afs_addr_list_iter_exit(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	afs_kunit_failslab_end(test);

	if (!f || !f->alist)
		return;
	afs_end_cursor(&f->ac);
	/* Every case must leave just the fixture's own reference. */
	KUNIT_EXPECT_EQ(test, refcount_read(&f->alist->usage), 1);
	afs_put_addrlist(f->alist);
}

/* Drive the cursor to exhaustion and return the order it chose, as digits. */
static const char *afs_test_iterate_all(struct kunit *test,
					struct afs_addr_cursor *ac)
{
	char *order = kunit_kzalloc(test, BITS_PER_LONG + 1, GFP_KERNEL);
	int n = 0;

	KUNIT_ASSERT_NOT_NULL(test, order);
	while (n < BITS_PER_LONG && afs_iterate_addresses(ac))
		order[n++] = '0' + ac->index;
	return order;
}

static void afs_addr_list_iter_preferred_first(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->preferred = 2;
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_all(test, &f->ac), "2013");
}

static void afs_addr_list_iter_lowest_first(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	KUNIT_EXPECT_STREQ(test, afs_test_iterate_all(test, &f->ac), "0123");
}

static void afs_addr_list_iter_skip_failed(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->preferred = 1;
	f->alist->failed = BIT(1) | BIT(2);
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_all(test, &f->ac), "03");
}

static void afs_addr_list_iter_skip_unresponsive(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->preferred = 0;
	f->alist->responded = BIT(1) | BIT(3);
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_all(test, &f->ac), "13");
}

/* Probe bits beyond the end of the list are not addresses. */
static void afs_addr_list_iter_ignore_stray_bits(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->responded = ~0UL;
	f->alist->preferred = 9;
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_all(test, &f->ac), "0123");
}

static void afs_addr_list_iter_exhaustion(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	KUNIT_EXPECT_STREQ(test, afs_test_iterate_all(test, &f->ac), "0123");
	KUNIT_EXPECT_FALSE(test, afs_iterate_addresses(&f->ac));
	KUNIT_EXPECT_FALSE(test, afs_iterate_addresses(&f->ac));
	KUNIT_EXPECT_EQ(test, f->ac.tried, 0xfUL);
	KUNIT_EXPECT_EQ(test, f->ac.nr_iterations, 7);
}

static void afs_addr_list_iter_none_responded(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->responded = 0;
	KUNIT_EXPECT_FALSE(test, afs_iterate_addresses(&f->ac));
	KUNIT_EXPECT_EQ(test, f->ac.nr_iterations, 1);
	KUNIT_EXPECT_EQ(test, f->ac.index, -1);
}

static void afs_addr_list_iter_null_list(struct kunit *test)
{
	struct afs_addr_cursor ac = { .index = -1 };

	KUNIT_EXPECT_FALSE(test, afs_iterate_addresses(&ac));
	KUNIT_EXPECT_EQ(test, ac.nr_iterations, 0);
	KUNIT_EXPECT_EQ(test, afs_end_cursor(&ac), 0);
}

static void afs_addr_list_iter_clears_responded(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->ac.responded = true;
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));
	KUNIT_EXPECT_FALSE(test, f->ac.responded);
	KUNIT_EXPECT_EQ(test, f->ac.nr_iterations, 1);
}

/* The address that answered replaces a preferred one that was tried. */
static void afs_addr_list_end_cursor_promotes(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->preferred = 1;
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));	/* 1 */
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));	/* 0 */
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));	/* 2 */
	KUNIT_ASSERT_EQ(test, f->ac.index, 2);
	f->ac.responded = true;
	f->ac.error = -EREMOTEIO;
	KUNIT_EXPECT_EQ(test, afs_end_cursor(&f->ac), -EREMOTEIO);
	KUNIT_EXPECT_EQ(test, f->alist->preferred, 2);
	KUNIT_EXPECT_NULL(test, f->ac.alist);
}

static void afs_addr_list_end_cursor_no_answer(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->preferred = 1;
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));
	afs_end_cursor(&f->ac);
	KUNIT_EXPECT_EQ(test, f->alist->preferred, 1);
}

/* The preferred address was never tried: it may still be the best. */
static void afs_addr_list_end_cursor_preferred_untried(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	f->alist->preferred = 3;
	f->alist->failed = BIT(3);
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));
	KUNIT_ASSERT_EQ(test, f->ac.index, 0);
	f->ac.responded = true;
	afs_end_cursor(&f->ac);
	KUNIT_EXPECT_EQ(test, f->alist->preferred, 3);
}

static void afs_addr_list_end_cursor_twice(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;

	KUNIT_EXPECT_EQ(test, refcount_read(&f->alist->usage), 2);
	afs_end_cursor(&f->ac);
	afs_end_cursor(&f->ac);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->alist->usage), 1);
}

/*
 * Give the fixture a list filled to AFS_MAX_ADDRESSES (32 on a 32-bit
 * kernel, 64 on a 64-bit one), every address having responded, so that the
 * probe masks are used up to their top bit.
 */
static void afs_test_iter_fill(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;
	struct afs_addr_list *alist;
	int i;

	alist = afs_test_alloc(test, AFS_MAX_ADDRESSES);
	for (i = 0; i < AFS_MAX_ADDRESSES; i++)
		afs_merge_fs_addr4(alist, htonl(0x0a000001 + i), 7000);
	alist->responded = ~0UL;

	afs_end_cursor(&f->ac);
	afs_put_addrlist(f->alist);
	f->alist = alist;
	memset(&f->ac, 0, sizeof(f->ac));
	f->ac.alist = afs_get_addrlist(alist);
	f->ac.index = -1;
	KUNIT_ASSERT_EQ(test, alist->nr_addrs, AFS_MAX_ADDRESSES);
}

/* The order a cursor chooses, as comma-separated indices. */
static const char *afs_test_iterate_indices(struct kunit *test,
					    struct afs_addr_cursor *ac)
{
	size_t size = AFS_MAX_ADDRESSES * 3 + 1, n = 0;
	char *order = kunit_kzalloc(test, size, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, order);
	for (i = 0; i < AFS_MAX_ADDRESSES && afs_iterate_addresses(ac); i++)
		n += scnprintf(order + n, size - n, "%s%d", i ? "," : "",
			       ac->index);
	return order;
}

/* "first,0,1,...,last" without @skip: what a full list should give. */
static const char *afs_test_expected_indices(struct kunit *test, int first,
					     int last, int skip)
{
	size_t size = AFS_MAX_ADDRESSES * 3 + 1, n = 0;
	char *order = kunit_kzalloc(test, size, GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, order);
	if (first >= 0)
		n += scnprintf(order + n, size - n, "%d", first);
	for (i = 0; i <= last; i++)
		if (i != first && i != skip)
			n += scnprintf(order + n, size - n, "%s%d",
				       n ? "," : "", i);
	return order;
}

/* Every address of a full list, the top one preferred. */
static void afs_addr_list_iter_full_list(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;
	int top = AFS_MAX_ADDRESSES - 1;

	afs_test_iter_fill(test);
	kunit_info(test, "AFS_MAX_ADDRESSES = %u, BITS_PER_LONG = %d\n",
		   AFS_MAX_ADDRESSES, BITS_PER_LONG);
	f->alist->preferred = top;
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_indices(test, &f->ac),
			   afs_test_expected_indices(test, top, top, -1));
	KUNIT_EXPECT_EQ(test, f->ac.tried, ~0UL);
	KUNIT_EXPECT_FALSE(test, afs_iterate_addresses(&f->ac));
}

/* Bit 31 or 63 of the failed and responded masks is the last address. */
static void afs_addr_list_iter_top_bit(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;
	int top = AFS_MAX_ADDRESSES - 1;
	char expect[8];

	afs_test_iter_fill(test);
	f->alist->failed = BIT(top);
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_indices(test, &f->ac),
			   afs_test_expected_indices(test, -1, top, top));

	afs_test_iter_fill(test);
	f->alist->responded = BIT(top) | BIT(top - 1);
	f->alist->preferred = top;
	scnprintf(expect, sizeof(expect), "%d,%d", top, top - 1);
	KUNIT_EXPECT_STREQ(test, afs_test_iterate_indices(test, &f->ac), expect);
}

/* The top address answers after the preferred one was tried: promoted. */
static void afs_addr_list_end_cursor_promotes_top(struct kunit *test)
{
	struct afs_test_iter_fixture *f = test->priv;
	int top = AFS_MAX_ADDRESSES - 1;

	afs_test_iter_fill(test);
	f->alist->responded = BIT(0) | BIT(top);
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));
	KUNIT_ASSERT_TRUE(test, afs_iterate_addresses(&f->ac));
	KUNIT_ASSERT_EQ(test, f->ac.index, top);
	f->ac.responded = true;
	afs_end_cursor(&f->ac);
	KUNIT_EXPECT_EQ(test, f->alist->preferred, top);
}

static struct kunit_case afs_addr_list_iter_cases[] = {
	KUNIT_CASE(afs_addr_list_iter_preferred_first),
	KUNIT_CASE(afs_addr_list_iter_lowest_first),
	KUNIT_CASE(afs_addr_list_iter_skip_failed),
	KUNIT_CASE(afs_addr_list_iter_skip_unresponsive),
	KUNIT_CASE(afs_addr_list_iter_ignore_stray_bits),
	KUNIT_CASE(afs_addr_list_iter_exhaustion),
	KUNIT_CASE(afs_addr_list_iter_none_responded),
	KUNIT_CASE(afs_addr_list_iter_null_list),
	KUNIT_CASE(afs_addr_list_iter_clears_responded),
	KUNIT_CASE(afs_addr_list_end_cursor_promotes),
	KUNIT_CASE(afs_addr_list_end_cursor_no_answer),
	KUNIT_CASE(afs_addr_list_end_cursor_preferred_untried),
	KUNIT_CASE(afs_addr_list_end_cursor_twice),
	KUNIT_CASE(afs_addr_list_iter_full_list),
	KUNIT_CASE(afs_addr_list_iter_top_bit),
	KUNIT_CASE(afs_addr_list_end_cursor_promotes_top),
	{}
};

static struct kunit_suite afs_addr_list_iter_suite = {
	.name = "afs_addr_list_iterate",
	.init = afs_addr_list_iter_init,
	.exit = afs_addr_list_iter_exit,
	.test_cases = afs_addr_list_iter_cases,
};

kunit_test_suites(&afs_addr_list_parse_suite,
		  &afs_addr_list_merge_suite,
		  &afs_addr_list_iter_suite);
