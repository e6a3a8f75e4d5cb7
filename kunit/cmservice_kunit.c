// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for decoding CB.CallBack: the limits on its counts, and the
 * FIDs it carries.
 *
 * Included by cmservice.c.  The count table is the specification of what a
 * fileserver may send; anything outside it is aborted as a protocol error.
 */

#include <kunit/test.h>
#include "failslab.h"

struct afs_cb_count_case {
	const char	*name;
	u32		max;		/* AFSCBMAX or YFSCBMAX */
	u32		nr_fids;
	u32		nr_cbs;
	bool		fids_ok;	/* The FID count is accepted */
	bool		cbs_ok;		/* Then the promise count is */
};

static const struct afs_cb_count_case afs_cb_count_cases[] = {
	{ "no FIDs, no promises", AFSCBMAX, 0, 0, true, true },
	{ "one FID, its promise", AFSCBMAX, 1, 1, true, true },
	{ "FIDs without promises", AFSCBMAX, 5, 0, true, true },
	{ "AFSCBMAX FIDs", AFSCBMAX, AFSCBMAX, AFSCBMAX, true, true },
	{ "AFSCBMAX + 1 FIDs", AFSCBMAX, AFSCBMAX + 1, 0, false, false },
	{ "a count with the top bit set", AFSCBMAX, 0x80000000, 0, false, false },
	{ "a count of 2^32 - 1", AFSCBMAX, U32_MAX, U32_MAX, false, false },
	{ "fewer promises than FIDs", AFSCBMAX, 5, 4, true, false },
	{ "more promises than FIDs", AFSCBMAX, 5, 6, true, false },
	{ "promises without FIDs", AFSCBMAX, 0, 3, true, false },
	{ "promises beyond AFSCBMAX", AFSCBMAX, 1, AFSCBMAX + 1, true, false },
	{ "YFS: YFSCBMAX FIDs", YFSCBMAX, YFSCBMAX, 0, true, true },
	{ "YFS: YFSCBMAX + 1 FIDs", YFSCBMAX, YFSCBMAX + 1, 0, false, false },
};

static void afs_cb_count_case_desc(const struct afs_cb_count_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_cb_count, afs_cb_count_cases, afs_cb_count_case_desc);

static void afs_cb_decode_counts(struct kunit *test)
{
	const struct afs_cb_count_case *c = test->param_value;
	bool fids_ok = afs_cb_fid_count_valid(c->nr_fids, c->max);

	KUNIT_EXPECT_EQ(test, fids_ok, c->fids_ok);
	/* The promise count is only read once the FIDs were accepted. */
	if (fids_ok)
		KUNIT_EXPECT_EQ(test, afs_cb_count_valid(c->nr_fids, c->nr_cbs), c->cbs_ok);
}

/* AFSFids in XDR: three big-endian words each, decoded field by field. */
static void afs_cb_decode_afs_fids(struct kunit *test)
{
	static const __be32 xdr[] = {
		cpu_to_be32(0x20000001), cpu_to_be32(1), cpu_to_be32(1),
		cpu_to_be32(0xfffffffe), cpu_to_be32(0x80000000), cpu_to_be32(0xdeadbeef),
		cpu_to_be32(0x20000001), cpu_to_be32(0), cpu_to_be32(0),
	};
	struct afs_callback_break cbb[4];

	memset(cbb, 0xa5, sizeof(cbb));
	afs_decode_cb_fids(cbb, xdr, 3);

	KUNIT_EXPECT_EQ(test, cbb[0].fid.vid, 0x20000001ULL);
	KUNIT_EXPECT_EQ(test, cbb[0].fid.vnode, 1ULL);
	KUNIT_EXPECT_EQ(test, cbb[0].fid.vnode_hi, 0U);
	KUNIT_EXPECT_EQ(test, cbb[0].fid.unique, 1U);
	/* Unsigned: a high bit is not a sign. */
	KUNIT_EXPECT_EQ(test, cbb[1].fid.vid, 0xfffffffeULL);
	KUNIT_EXPECT_EQ(test, cbb[1].fid.vnode, 0x80000000ULL);
	KUNIT_EXPECT_EQ(test, cbb[1].fid.unique, 0xdeadbeefU);
	/* Vnode 0, unique 0: the whole volume's break. */
	KUNIT_EXPECT_EQ(test, cbb[2].fid.vnode, 0ULL);
	KUNIT_EXPECT_EQ(test, cbb[2].fid.unique, 0U);
	/* Nothing beyond the count is written. */
	KUNIT_EXPECT_EQ(test, cbb[3].fid.unique, 0xa5a5a5a5U);
}

/* YFSFids: 64-bit volume and vnode, the vnode's high word and uniquifier. */
static void afs_cb_decode_yfs_fids(struct kunit *test)
{
	struct yfs_xdr_YFSFid xdr[2] = {};
	struct afs_callback_break cbb[3];

	xdr[0].volume.msw = cpu_to_be32(0x1);
	xdr[0].volume.lsw = cpu_to_be32(0x20000002);
	xdr[0].vnode.lo.msw = cpu_to_be32(0x2);
	xdr[0].vnode.lo.lsw = cpu_to_be32(0x3);
	xdr[0].vnode.hi = cpu_to_be32(0x4);
	xdr[0].vnode.unique = cpu_to_be32(0x5);
	xdr[1].volume.lsw = cpu_to_be32(7);

	memset(cbb, 0xa5, sizeof(cbb));
	afs_decode_yfs_cb_fids(cbb, xdr, 2);

	KUNIT_EXPECT_EQ(test, cbb[0].fid.vid, 0x120000002ULL);
	KUNIT_EXPECT_EQ(test, cbb[0].fid.vnode, 0x200000003ULL);
	KUNIT_EXPECT_EQ(test, cbb[0].fid.vnode_hi, 4U);
	KUNIT_EXPECT_EQ(test, cbb[0].fid.unique, 5U);
	KUNIT_EXPECT_EQ(test, cbb[1].fid.vid, 7ULL);
	KUNIT_EXPECT_EQ(test, cbb[1].fid.vnode, 0ULL);
	KUNIT_EXPECT_EQ(test, cbb[2].fid.unique, 0xa5a5a5a5U);
}

static struct kunit_case afs_cb_decode_cases[] = {
	KUNIT_CASE_PARAM(afs_cb_decode_counts, afs_cb_count_gen_params),
	KUNIT_CASE(afs_cb_decode_afs_fids),
	KUNIT_CASE(afs_cb_decode_yfs_fids),
	{}
};

static struct kunit_suite afs_cb_decode_suite = {
	.name = "afs_cb_decode",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_cb_decode_cases,
};

kunit_test_suite(afs_cb_decode_suite);
