// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suites for the write path's rules: the dirty region of a folio, how
 * writes and stores join it, how invalidation trims it, what a failed store
 * does to its data, which failed attempts are counted in doubt, and which
 * key stores it.
 *
 * Included by write.c.  Folios are real allocations; the file is a bare vnode
 * record with its key list; the keys are real keyrings.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/cred.h>
#include <linux/key.h>

/*
 * afs_write_region: the encoding of a folio's dirty region in its private
 * data (internal.h), for every folio order and at the boundaries.
 */

/* The granularity the encoding keeps for a folio of @order, from its
 * parameters: exact while a folio offset fits in the field, coarser beyond.
 */
static unsigned int afs_write_test_resolution(unsigned int order)
{
	int shift = PAGE_SHIFT + order - (__AFS_FOLIO_PRIV_SHIFT - 1);

	return shift > 0 ? shift : 0;
}

static void afs_write_test_region_round_trip(struct kunit *test,
					     struct folio *folio,
					     size_t from, size_t to)
{
	unsigned int order = folio_order(folio);
	size_t unit = (size_t)1 << afs_write_test_resolution(order);
	size_t want_from = ALIGN_DOWN(from, unit);
	size_t want_to = ALIGN(to, unit);
	unsigned long priv = afs_folio_dirty(folio, from, to);

	KUNIT_EXPECT_EQ_MSG(test, afs_folio_dirty_from(folio, priv), want_from,
			    "order %u [%zu, %zu)", order, from, to);
	KUNIT_EXPECT_EQ_MSG(test, afs_folio_dirty_to(folio, priv), want_to,
			    "order %u [%zu, %zu)", order, from, to);
	KUNIT_EXPECT_FALSE(test, afs_is_folio_dirty_mmapped(priv));

	priv = afs_folio_dirty_mmapped(priv);
	KUNIT_EXPECT_TRUE(test, afs_is_folio_dirty_mmapped(priv));
	KUNIT_EXPECT_EQ_MSG(test, afs_folio_dirty_from(folio, priv), want_from,
			    "mmapped, order %u [%zu, %zu)", order, from, to);
	KUNIT_EXPECT_EQ_MSG(test, afs_folio_dirty_to(folio, priv), want_to,
			    "mmapped, order %u [%zu, %zu)", order, from, to);
}

/* Every order a folio can have here, each at its edges and middles. */
static void afs_write_region_every_order(struct kunit *test)
{
	unsigned int order;

	for (order = 0; order < MAX_ORDER; order++) {
		struct folio *folio = folio_alloc(GFP_KERNEL | __GFP_NOWARN, order);
		size_t size = PAGE_SIZE << order, half = size / 2;
		const size_t points[] = { 0, 1, 511, 512, half - 1, half,
					  half + 1, size - 4097, size - 1 };
		unsigned int i, j;

		if (!folio) {
			kunit_info(test, "no folio of order %u to test", order);
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(points); i++) {
			if (points[i] >= size)
				continue;
			for (j = 0; j < ARRAY_SIZE(points); j++)
				if (points[j] > points[i] && points[j] <= size)
					afs_write_test_region_round_trip(test, folio,
									 points[i],
									 points[j]);
			afs_write_test_region_round_trip(test, folio, points[i], size);
		}
		folio_put(folio);
	}
}

/* A page-sized folio's region is exact on every word size. */
static void afs_write_region_page_exact(struct kunit *test)
{
	struct folio *folio = folio_alloc(GFP_KERNEL, 0);
	unsigned long priv;

	KUNIT_ASSERT_NOT_NULL(test, folio);
	priv = afs_folio_dirty(folio, 123, 4000);
	KUNIT_EXPECT_EQ(test, afs_folio_dirty_from(folio, priv), 123);
	KUNIT_EXPECT_EQ(test, afs_folio_dirty_to(folio, priv), 4000);
	priv = afs_folio_dirty(folio, 0, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, afs_folio_dirty_from(folio, priv), 0);
	KUNIT_EXPECT_EQ(test, afs_folio_dirty_to(folio, priv), PAGE_SIZE);
	priv = afs_folio_dirty(folio, PAGE_SIZE - 1, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, afs_folio_dirty_from(folio, priv), PAGE_SIZE - 1);
	KUNIT_EXPECT_EQ(test, afs_folio_dirty_to(folio, priv), PAGE_SIZE);
	folio_put(folio);
}

/*
 * A writeback pass over the whole file resumes where the page cache search
 * stopped, and from the start once that search has run off the end.  The
 * index the search leaves is taken from the search itself, on an empty
 * mapping, not worked out here.
 */
static void afs_write_resume_after_whole_file(struct kunit *test)
{
	struct address_space *mapping;
	struct folio_batch fbatch;
	pgoff_t index = 0;

	mapping = kunit_kzalloc(test, sizeof(*mapping), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, mapping);
	address_space_init_once(mapping);
	folio_batch_init(&fbatch);

	KUNIT_ASSERT_EQ(test, filemap_get_folios_tag(mapping, &index,
						     LLONG_MAX / PAGE_SIZE,
						     PAGECACHE_TAG_DIRTY,
						     &fbatch), 0);
	KUNIT_EXPECT_NE(test, index, 0);
	KUNIT_EXPECT_EQ(test, afs_writeback_resume(index), 0);

	KUNIT_EXPECT_EQ(test, afs_writeback_resume(0), 0);
	KUNIT_EXPECT_EQ(test, afs_writeback_resume(1), 1);
	KUNIT_EXPECT_EQ(test, afs_writeback_resume(0x12345), 0x12345);
	/* The last folio of a 2 GiB file: a 32-bit kernel's pgoff_t is not
	 * near its end there.
	 */
	KUNIT_EXPECT_EQ(test, afs_writeback_resume(0x7ffff), 0x7ffff);
}

static struct kunit_case afs_write_region_cases[] = {
	KUNIT_CASE(afs_write_region_every_order),
	KUNIT_CASE(afs_write_region_page_exact),
	KUNIT_CASE(afs_write_resume_after_whole_file),
	{}
};

static struct kunit_suite afs_write_region_suite = {
	.name = "afs_write_region",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_write_region_cases,
};

/*
 * afs_write_join: may a write join a folio's dirty region, or must the folio
 * be stored first?
 */
struct afs_write_test_join {
	const char	*name;
	size_t		cur_from, cur_to;	/* The folio's region */
	size_t		from, to;		/* The write */
	bool		new_content;
	bool		writeback;
	bool		joins;
};

static const struct afs_write_test_join afs_write_test_joins[] = {
	{ "overlapping the start",	1000, 2000,  500, 1500, false, false, true },
	{ "overlapping the end",	1000, 2000, 1500, 2500, false, false, true },
	{ "inside",			1000, 2000, 1200, 1300, false, false, true },
	{ "around",			1000, 2000,  500, 2500, false, false, true },
	{ "the same range",		1000, 2000, 1000, 2000, false, false, true },
	{ "touching before",		1000, 2000,  500, 1000, false, false, true },
	{ "touching after",		1000, 2000, 2000, 2500, false, false, true },
	{ "a gap before",		1000, 2000,  100,  999, false, false, false },
	{ "a gap after",		1000, 2000, 2001, 3000, false, false, false },
	{ "a byte's gap after",		1000, 2000, 2001, 2002, false, false, false },
	{ "a gap before, new content",	1000, 2000,  100,  999, true,  false, true },
	{ "a gap after, new content",	1000, 2000, 3000, 4096, true,  false, true },
	{ "overlapping, under writeback", 1000, 2000, 1500, 2500, false, true, false },
	{ "touching, under writeback",	1000, 2000, 2000, 2500, false, true,  false },
	{ "new content, under writeback", 1000, 2000, 3000, 4096, true, true, false },
	{ "whole folio over whole folio",  0, 4096,    0, 4096, false, false, true },
};

static void afs_write_test_join_desc(const struct afs_write_test_join *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_join, afs_write_test_joins, afs_write_test_join_desc);

static void afs_write_join_rule(struct kunit *test)
{
	const struct afs_write_test_join *t = test->param_value;
	struct afs_dirty_region cur = { .from = t->cur_from, .to = t->cur_to };

	KUNIT_EXPECT_EQ(test, afs_dirty_can_join(&cur, t->from, t->to,
						 t->new_content, t->writeback),
			t->joins);
	if (t->joins && !t->writeback) {
		struct afs_dirty_region r = afs_dirty_join(&cur, t->from, t->to);

		KUNIT_EXPECT_EQ(test, r.from, min(t->cur_from, t->from));
		KUNIT_EXPECT_EQ(test, r.to, max(t->cur_to, t->to));
	}
}

/*
 * afs_write_continues: may a store run on from one folio into the next?
 */
struct afs_write_test_run {
	const char	*name;
	size_t		prev_from, prev_to, prev_size;
	size_t		next_from, next_to;
	bool		new_content;
	bool		continues;
};

static const struct afs_write_test_run afs_write_test_runs[] = {
	{ "whole, then whole",		0, 4096, 4096,    0, 4096, false, true },
	{ "tail, then head",		100, 4096, 4096,  0, 200,  false, true },
	{ "short of the end, then whole", 0, 4095, 4096, 0, 4096, false, false },
	{ "whole, then late start",	0, 4096, 4096,    1, 4096, false, false },
	{ "short, then late, new content", 0, 100, 4096, 200, 300, true, true },
	{ "whole, then late, new content", 0, 4096, 4096, 1, 4096, true, true },
};

static void afs_write_test_run_desc(const struct afs_write_test_run *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_run, afs_write_test_runs, afs_write_test_run_desc);

static void afs_write_continues_rule(struct kunit *test)
{
	const struct afs_write_test_run *t = test->param_value;
	struct afs_dirty_region prev = { .from = t->prev_from, .to = t->prev_to };
	struct afs_dirty_region next = { .from = t->next_from, .to = t->next_to };

	KUNIT_EXPECT_EQ(test, afs_dirty_continues(&prev, t->prev_size, &next,
						  t->new_content),
			t->continues);
}

/*
 * afs_write_trim: an invalidated range cut out of a dirty region.
 */
struct afs_write_test_trim {
	const char		*name;
	size_t			from, to;	/* The region */
	size_t			start, end;	/* Invalidated */
	enum afs_dirty_trim	result;
	size_t			want_from, want_to;
};

static const struct afs_write_test_trim afs_write_test_trims[] = {
	{ "wholly before",	1000, 2000,    0,  500, AFS_DIRTY_UNCHANGED, 1000, 2000 },
	{ "touching before",	1000, 2000,    0, 1000, AFS_DIRTY_UNCHANGED, 1000, 2000 },
	{ "wholly after",	1000, 2000, 2500, 4096, AFS_DIRTY_UNCHANGED, 1000, 2000 },
	{ "touching after",	1000, 2000, 2000, 4096, AFS_DIRTY_UNCHANGED, 1000, 2000 },
	{ "the tail",		1000, 2000, 1500, 4096, AFS_DIRTY_TRIMMED,   1000, 1500 },
	{ "the head",		1000, 2000,    0, 1500, AFS_DIRTY_TRIMMED,   1500, 2000 },
	{ "all but a byte",	1000, 2000, 1001, 4096, AFS_DIRTY_TRIMMED,   1000, 1001 },
	{ "exactly",		1000, 2000, 1000, 2000, AFS_DIRTY_CLEAN,     1000, 2000 },
	{ "around",		1000, 2000,  500, 2500, AFS_DIRTY_CLEAN,     1000, 2000 },
	{ "from its start on",	1000, 2000, 1000, 4096, AFS_DIRTY_CLEAN,     1000, 2000 },
	{ "a hole inside",	1000, 2000, 1200, 1300, AFS_DIRTY_UNCHANGED, 1000, 2000 },
	{ "truncation to zero", 0, 4096,   0, 4096, AFS_DIRTY_CLEAN,	       0, 4096 },
};

static void afs_write_test_trim_desc(const struct afs_write_test_trim *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_trim, afs_write_test_trims, afs_write_test_trim_desc);

static void afs_write_trim_rule(struct kunit *test)
{
	const struct afs_write_test_trim *t = test->param_value;
	size_t from = t->from, to = t->to;

	KUNIT_EXPECT_EQ(test, afs_dirty_trim(&from, &to, t->start, t->end),
			t->result);
	if (t->result != AFS_DIRTY_CLEAN) {
		KUNIT_EXPECT_EQ(test, from, t->want_from);
		KUNIT_EXPECT_EQ(test, to, t->want_to);
	}
}

/*
 * afs_write_fate: what a store's result does to its data, per key and once
 * every key has been tried (after @failures stores that failed in a row
 * with an error that may never pass, the first @failing_for seconds ago),
 * and what it leaves for syncfs().
 * The errnos stock kAFS discarded data on by themselves (ENOENT, ENOMEDIUM,
 * ENXIO, EIO, EREMOTEIO) keep it here, unless the server said the file is
 * gone.
 */
#define F false
#define T true
#define DONE AFS_STORE_DONE
#define NEXT AFS_STORE_NEXT_KEY
#define KEEP AFS_STORE_KEEP
#define LTD AFS_STORE_KEEP_LIMITED
#define SAME 1		/* The store's error itself */
#define DROP AFS_STORE_DISCARD
#define LONG AFS_STORE_GIVE_UP_SECS
#define M1 (AFS_STORE_MAX_FAILURES - 1)

struct afs_write_test_fate {
	const char		*name;
	int			error;
	bool			deleted;	/* AFS_VNODE_DELETED */
	unsigned int		failures;	/* vnode->store_failures */
	time64_t		failing_for;	/* Seconds since the first */
	enum afs_store_fate	per_key;	/* afs_store_fate() */
	enum afs_store_fate	settled;	/* afs_settle_fate() */
	int			report;		/* afs_store_error_to_report() */
};

static const struct afs_write_test_fate afs_write_test_fates[] = {
	{ "stored",				0, F, 0, 0, DONE, DONE, 0 },
	{ "stored after failures",		0, F, M1, LONG, DONE, DONE, 0 },
	{ "EACCES: next key, kept",		-EACCES, F, 0, 0, NEXT, KEEP, SAME },
	{ "EPERM: next key, kept",		-EPERM, F, 0, 0, NEXT, KEEP, SAME },
	{ "ENOKEY: next key, kept",		-ENOKEY, F, 0, 0, NEXT, KEEP, SAME },
	{ "EKEYEXPIRED: next key, kept",	-EKEYEXPIRED, F, 0, 0, NEXT, KEEP, SAME },
	{ "EKEYREJECTED: next key, kept",	-EKEYREJECTED, F, 0, 0, NEXT, KEEP, SAME },
	{ "EKEYREVOKED: next key, kept",	-EKEYREVOKED, F, 0, 0, NEXT, KEEP, SAME },
	{ "every key refused, long: kept",	-EACCES, F, M1, LONG, NEXT, KEEP, SAME },
	{ "ETIMEDOUT: kept",			-ETIMEDOUT, F, 0, 0, KEEP, KEEP, SAME },
	{ "ETIMEDOUT, long: kept",		-ETIMEDOUT, F, M1, LONG, KEEP, KEEP, SAME },
	{ "ETIME: kept",			-ETIME, F, 0, 0, KEEP, KEEP, SAME },
	{ "ECONNRESET: kept",			-ECONNRESET, F, 0, 0, KEEP, KEEP, SAME },
	{ "ECONNREFUSED: kept",			-ECONNREFUSED, F, 0, 0, KEEP, KEEP, SAME },
	{ "ENETRESET: kept",			-ENETRESET, F, 0, 0, KEEP, KEEP, SAME },
	{ "ENETUNREACH: kept",			-ENETUNREACH, F, 0, 0, KEEP, KEEP, SAME },
	{ "EDESTADDRREQ: kept",			-EDESTADDRREQ, F, 0, 0, KEEP, KEEP, SAME },
	{ "EHOSTUNREACH: kept",			-EHOSTUNREACH, F, 0, 0, KEEP, KEEP, SAME },
	{ "EBUSY: kept",			-EBUSY, F, 0, 0, KEEP, KEEP, SAME },
	{ "ENOMEM: kept, EIO reported",		-ENOMEM, F, 0, 0, KEEP, KEEP, -EIO },
	{ "EINTR: kept, not reported",		-EINTR, F, 0, 0, KEEP, KEEP, 0 },
	{ "ERESTARTSYS: kept, not reported",	-ERESTARTSYS, F, 0, 0, KEEP, KEEP, 0 },
	{ "ERESTARTNOINTR: kept, not reported",	-ERESTARTNOINTR, F, 0, 0, KEEP, KEEP, 0 },
	{ "ESTALE: a record mid-update, kept",	-ESTALE, F, 0, 0, KEEP, KEEP, SAME },
	{ "ENOSPC: kept",			-ENOSPC, F, 0, 0, KEEP, KEEP, SAME },
	{ "EDQUOT: kept",			-EDQUOT, F, 0, 0, KEEP, KEEP, SAME },
	{ "EDQUOT, long: kept",			-EDQUOT, F, M1, LONG, KEEP, KEEP, SAME },
	{ "EIO: kept, limited",			-EIO, F, 0, 0, LTD, LTD, SAME },
	{ "EREMOTEIO: kept, limited",		-EREMOTEIO, F, 0, 0, LTD, LTD, SAME },
	{ "EREMOTEIO, one short",		-EREMOTEIO, F, M1 - 1, LONG, LTD, LTD, SAME },
	{ "EREMOTEIO, a second short",		-EREMOTEIO, F, M1, LONG - 1, LTD, LTD, SAME },
	{ "EREMOTEIO, the last failure",	-EREMOTEIO, F, M1, LONG, LTD, DROP, SAME },
	{ "EBADMSG: kept, limited",		-EBADMSG, F, 0, 0, LTD, LTD, SAME },
	{ "EBADMSG, long past the last",	-EBADMSG, F, M1 + 5, LONG * 9, LTD, DROP, SAME },
	{ "ECONNABORTED: kept, limited",	-ECONNABORTED, F, 0, 0, LTD, LTD, SAME },
	{ "ENOENT, file not known gone: kept",	-ENOENT, F, 0, 0, LTD, LTD, SAME },
	{ "ENOENT, file deleted: dropped",	-ENOENT, T, 0, 0, DROP, DROP, SAME },
	{ "ENOMEDIUM: kept, limited",		-ENOMEDIUM, F, 0, 0, LTD, LTD, SAME },
	{ "ENOMEDIUM, file deleted: kept",	-ENOMEDIUM, T, 0, 0, LTD, LTD, SAME },
	{ "ENXIO: kept, limited",		-ENXIO, F, 0, 0, LTD, LTD, SAME },
	{ "ENXIO, the last failure",		-ENXIO, F, M1, LONG, LTD, DROP, SAME },
	{ "ETIMEDOUT, file deleted: kept",	-ETIMEDOUT, T, 0, 0, KEEP, KEEP, SAME },
	{ "EROFS: read-only, dropped",		-EROFS, F, 0, 0, DROP, DROP, SAME },
	{ "EFBIG: beyond the maximum, dropped",	-EFBIG, F, 0, 0, DROP, DROP, SAME },
};

static void afs_write_test_fate_desc(const struct afs_write_test_fate *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_fate, afs_write_test_fates, afs_write_test_fate_desc);

static void afs_write_fate_rule(struct kunit *test)
{
	const struct afs_write_test_fate *t = test->param_value;

	KUNIT_EXPECT_EQ(test, afs_store_fate(t->error, t->deleted), t->per_key);
	KUNIT_EXPECT_EQ(test, afs_settle_fate(t->error, t->deleted, t->failures,
					      t->failing_for),
			t->settled);
	KUNIT_EXPECT_EQ(test, afs_store_error_to_report(t->error),
			t->report == SAME ? t->error : t->report);
}

#undef F
#undef T
#undef DONE
#undef NEXT
#undef KEEP
#undef LTD
#undef DROP
#undef SAME
#undef LONG
#undef M1

/*
 * afs_validate_fault: a shared-writable fault carries on whatever
 * afs_validate() met, as stock kAFS does, and is taken again after a signal.
 */
struct afs_write_test_fault {
	const char	*name;
	int		error;
	vm_fault_t	want;
};

static const struct afs_write_test_fault afs_write_test_faults[] = {
	{ "valid",				0,		0 },
	{ "file deleted (ESTALE): carry on",	-ESTALE,	0 },
	{ "signalled (ERESTARTSYS): retaken",	-ERESTARTSYS,	VM_FAULT_NOPAGE },
	{ "signalled (EINTR): retaken",		-EINTR,		VM_FAULT_NOPAGE },
	{ "server unreachable: carry on",	-ETIMEDOUT,	0 },
	{ "connection refused: carry on",	-ECONNREFUSED,	0 },
	{ "token expired: carry on",		-EKEYEXPIRED,	0 },
	{ "access refused: carry on",		-EACCES,	0 },
	{ "memory short: carry on",		-ENOMEM,	0 },
	{ "volume not found: carry on",		-ENOMEDIUM,	0 },
};

static void afs_write_test_fault_desc(const struct afs_write_test_fault *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_fault, afs_write_test_faults, afs_write_test_fault_desc);

static void afs_write_fault_rule(struct kunit *test)
{
	const struct afs_write_test_fault *t = test->param_value;

	KUNIT_EXPECT_EQ(test, afs_validate_fault(t->error), t->want);
}

/*
 * afs_eof_span: what of a folio a growing file brings inside itself, and
 * so must be cleared of what a mapping wrote past the old end: from the old
 * end to the new end or the folio's end, and only if the old end lies
 * inside one of the folio's pages.  In pages (P), so that the rows hold for
 * sparc's 8 KiB pages too: mostly a one-page folio at 2P, and a four-page
 * one.
 */
#define P PAGE_SIZE

struct afs_write_test_eof {
	const char	*name;
	loff_t		folio_pos;
	size_t		folio_size;
	loff_t		old_size, new_size;
	bool		span;
	size_t		from, to;
};

static const struct afs_write_test_eof afs_write_test_eofs[] = {
	{ "grows within the folio",	2 * P, P,     2 * P + 100, 2 * P + 300,
	  true, 100, 300 },
	{ "grows past the folio",	2 * P, P,     2 * P + 100, 5 * P,
	  true, 100, P },
	{ "grows to the folio's end",	2 * P, P,     2 * P + 100, 3 * P,
	  true, 100, P },
	{ "grows by one byte",		2 * P, P,     2 * P + 100, 2 * P + 101,
	  true, 100, 101 },
	{ "old end one byte in",	2 * P, P,     2 * P + 1, 2 * P + 8,
	  true, 1, 8 },
	{ "old end one byte short of the folio's end",
					2 * P, P,     3 * P - 1, 3 * P,
	  true, P - 1, P },
	{ "four-page folio, old end in its second page",
					2 * P, 4 * P, 3 * P + 100, 9 * P,
	  true, P + 100, 4 * P },
	{ "four-page folio, old end in its last page, grows past it",
					2 * P, 4 * P, 5 * P + 100, 9 * P,
	  true, 3 * P + 100, 4 * P },
	{ "four-page folio, old end on a page boundary inside it",
					2 * P, 4 * P, 4 * P, 9 * P, false },
	{ "first folio of the file",	0, P,         100, 300,  true, 100, 300 },
	{ "first folio, grows past it",	0, P,         100, 2 * P, true, 100, P },
	{ "does not grow",		2 * P, P,     2 * P + 100, 2 * P + 100, false },
	{ "shrinks",			2 * P, P,     2 * P + 100, 2 * P + 50, false },
	{ "old end at the folio's start", 2 * P, P,   2 * P, 2 * P + 100, false },
	{ "old end at the folio's end",	2 * P, P,     3 * P, 3 * P + 100, false },
	{ "old end before the folio",	2 * P, P,     100, 3 * P,     false },
	{ "old end after the folio",	2 * P, P,     4 * P + 100, 5 * P, false },
};

#undef P

static void afs_write_test_eof_desc(const struct afs_write_test_eof *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_eof, afs_write_test_eofs, afs_write_test_eof_desc);

static void afs_write_eof_rule(struct kunit *test)
{
	const struct afs_write_test_eof *t = test->param_value;
	size_t from = 0, to = 0;

	KUNIT_EXPECT_EQ(test, afs_eof_span(t->folio_pos, t->folio_size, t->old_size,
					   t->new_size, &from, &to),
			t->span);
	if (t->span) {
		KUNIT_EXPECT_EQ(test, from, t->from);
		KUNIT_EXPECT_EQ(test, to, t->to);
	}
}

/*
 * afs_store_in_doubt: which failed attempts of a store or a size change a
 * file counts as perhaps applied.  The attempt before is counted once one
 * was made (the rotation's second pass on), if the operation moves the data
 * version, and only while the callback is unbroken since it began.
 */
struct afs_write_test_doubt {
	const char	*name;
	unsigned int	nr_iterations;
	unsigned int	dv_delta;
	bool		broken;
	unsigned int	counted;
};

static const struct afs_write_test_doubt afs_write_test_doubts[] = {
	{ "first attempt: none before",		1, 1, false, 0 },
	{ "second attempt: counted",		2, 1, false, 1 },
	{ "fifth attempt: counted",		5, 1, false, 1 },
	{ "attributes only: not counted",	2, 0, false, 0 },
	{ "callback broken: not counted",	2, 1, true,  0 },
};

static void afs_write_test_doubt_desc(const struct afs_write_test_doubt *t, char *desc)
{
	strscpy(desc, t->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_write_test_doubt, afs_write_test_doubts, afs_write_test_doubt_desc);

static void afs_write_in_doubt_rule(struct kunit *test)
{
	const struct afs_write_test_doubt *t = test->param_value;
	struct afs_operation *op;
	struct afs_volume *volume;
	struct afs_vnode *vnode;

	op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	volume = kunit_kzalloc(test, sizeof(*volume), GFP_KERNEL);
	vnode = kunit_kzalloc(test, sizeof(*vnode), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, op);
	KUNIT_ASSERT_NOT_NULL(test, volume);
	KUNIT_ASSERT_NOT_NULL(test, vnode);

	seqlock_init(&vnode->cb_lock);
	vnode->volume = volume;
	vnode->cb_break = 3;
	vnode->cb_v_break = 4;
	volume->cb_v_break = 4;
	vnode->stores_in_doubt = 2;
	op->nr_iterations = t->nr_iterations;
	op->file[0].vnode = vnode;
	op->file[0].dv_delta = t->dv_delta;
	/* What the operation noted as it began: 3 + 4, or one break before. */
	op->file[0].cb_break_before = t->broken ? 6 : 7;

	afs_store_in_doubt(op);
	KUNIT_EXPECT_EQ(test, vnode->stores_in_doubt, 2 + t->counted);
}

static struct kunit_case afs_write_rule_cases[] = {
	KUNIT_CASE_PARAM(afs_write_join_rule, afs_write_test_join_gen_params),
	KUNIT_CASE_PARAM(afs_write_continues_rule, afs_write_test_run_gen_params),
	KUNIT_CASE_PARAM(afs_write_trim_rule, afs_write_test_trim_gen_params),
	KUNIT_CASE_PARAM(afs_write_fate_rule, afs_write_test_fate_gen_params),
	KUNIT_CASE_PARAM(afs_write_fault_rule, afs_write_test_fault_gen_params),
	KUNIT_CASE_PARAM(afs_write_eof_rule, afs_write_test_eof_gen_params),
	KUNIT_CASE_PARAM(afs_write_in_doubt_rule, afs_write_test_doubt_gen_params),
	{}
};

static struct kunit_suite afs_write_rules_suite = {
	.name = "afs_write_rules",
	.init = afs_kunit_failslab_case,
	.test_cases = afs_write_rule_cases,
};

/*
 * afs_write_keys: the writers' keys a store tries in turn (which error moves
 * on to the next key is afs_store_fate()'s, in the afs_write_fate_rule rows).
 */
#define AFS_WRITE_TEST_NR_KEYS	3

struct afs_write_test_keys {
	struct afs_vnode	vnode;
	struct key		*keys[AFS_WRITE_TEST_NR_KEYS];
	struct afs_wb_key	*wbks[AFS_WRITE_TEST_NR_KEYS];
};

static int afs_write_keys_init(struct kunit *test)
{
	struct afs_write_test_keys *f;
	char desc[32];
	unsigned int i;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;
	spin_lock_init(&f->vnode.wb_lock);
	INIT_LIST_HEAD(&f->vnode.wb_keys);

	for (i = 0; i < AFS_WRITE_TEST_NR_KEYS; i++) {
		snprintf(desc, sizeof(desc), "afs_write_test_%u", i);
		f->keys[i] = keyring_alloc(desc, GLOBAL_ROOT_UID, GLOBAL_ROOT_GID,
					   current_cred(), KEY_POS_ALL,
					   KEY_ALLOC_NOT_IN_QUOTA, NULL, NULL);
		if (IS_ERR(f->keys[i])) {
			f->keys[i] = NULL;
			return -ENOMEM;
		}
		f->wbks[i] = kzalloc(sizeof(*f->wbks[i]), GFP_KERNEL);
		if (!f->wbks[i])
			return -ENOMEM;
		/* As afs_cache_wb_key() leaves it: the list's reference. */
		refcount_set(&f->wbks[i]->usage, 1);
		f->wbks[i]->key = key_get(f->keys[i]);
		list_add_tail(&f->wbks[i]->vnode_link, &f->vnode.wb_keys);
	}
	return 0;
}

static void afs_write_keys_exit(struct kunit *test)
{
	struct afs_write_test_keys *f = test->priv;
	unsigned int i;

	afs_kunit_failslab_end(test);

	if (!f)
		return;
	for (i = 0; i < AFS_WRITE_TEST_NR_KEYS; i++) {
		if (f->wbks[i]) {
			/* Every attempt gave its reference back. */
			KUNIT_EXPECT_EQ(test, refcount_read(&f->wbks[i]->usage), 1);
			list_del(&f->wbks[i]->vnode_link);
			afs_put_wb_key(f->wbks[i]);
		}
		key_put(f->keys[i]);
	}
}

/*
 * Walk the keys as a store does; each key given is held (the list's
 * reference and the walk's) until the next is asked for.
 */
static void afs_write_test_walk(struct kunit *test, struct afs_write_test_keys *f,
				const int *want, unsigned int nr_want)
{
	struct afs_wb_key *wbk = NULL;
	unsigned int n = 0;

	while ((wbk = afs_next_wb_key(&f->vnode, wbk))) {
		KUNIT_ASSERT_LT(test, n, nr_want);
		KUNIT_EXPECT_PTR_EQ(test, wbk, f->wbks[want[n]]);
		KUNIT_EXPECT_EQ(test, refcount_read(&wbk->usage), 2);
		n++;
	}
	KUNIT_EXPECT_EQ(test, n, nr_want);
}

static void afs_write_keys_in_order(struct kunit *test)
{
	static const int want[] = { 0, 1, 2 };

	afs_write_test_walk(test, test->priv, want, ARRAY_SIZE(want));
}

/* A key that is no longer valid is passed over. */
static void afs_write_keys_revoked_skipped(struct kunit *test)
{
	struct afs_write_test_keys *f = test->priv;
	static const int want[] = { 1 };

	key_revoke(f->keys[0]);
	key_revoke(f->keys[2]);
	afs_write_test_walk(test, f, want, ARRAY_SIZE(want));
}

/* No valid key at all: -ENOKEY with no store attempted, and the data kept. */
static void afs_write_keys_none(struct kunit *test)
{
	struct afs_write_test_keys *f = test->priv;
	unsigned int i;

	for (i = 0; i < AFS_WRITE_TEST_NR_KEYS; i++)
		key_revoke(f->keys[i]);
	/* Else the store below would be made, on a vnode with no volume. */
	KUNIT_ASSERT_PTR_EQ(test, afs_next_wb_key(&f->vnode, NULL), NULL);
	KUNIT_EXPECT_EQ(test, afs_store_with_keys(&f->vnode, 0, 4096, false), -ENOKEY);
	KUNIT_EXPECT_EQ(test, afs_settle_fate(-ENOKEY, false, 0, 0), AFS_STORE_KEEP);
}

/*
 * After each attempt: a refused key gives way to the next valid one (the
 * errors that do are afs_store_fate()'s, in the afs_write_fate_rule rows),
 * any other result ends the walk; the key tried is given back either way.
 */
static void afs_write_keys_refused_moves_on(struct kunit *test)
{
	struct afs_write_test_keys *f = test->priv;
	struct afs_wb_key *wbk;

	key_revoke(f->keys[1]);
	wbk = afs_next_wb_key(&f->vnode, NULL);
	KUNIT_ASSERT_PTR_EQ(test, wbk, f->wbks[0]);
	wbk = afs_store_next_key(&f->vnode, wbk, -EACCES);
	KUNIT_ASSERT_PTR_EQ(test, wbk, f->wbks[2]);
	KUNIT_EXPECT_EQ(test, refcount_read(&f->wbks[0]->usage), 1);
	KUNIT_EXPECT_PTR_EQ(test, afs_store_next_key(&f->vnode, wbk, -EKEYEXPIRED), NULL);
}

static void afs_write_keys_other_result_stops(struct kunit *test)
{
	static const int results[] = { 0, -ETIMEDOUT, -EREMOTEIO, -ENOMEM };
	struct afs_write_test_keys *f = test->priv;
	struct afs_wb_key *wbk;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(results); i++) {
		wbk = afs_next_wb_key(&f->vnode, NULL);
		KUNIT_ASSERT_PTR_EQ(test, wbk, f->wbks[0]);
		KUNIT_EXPECT_PTR_EQ(test, afs_store_next_key(&f->vnode, wbk, results[i]), NULL);
	}
}

static struct kunit_case afs_write_keys_cases[] = {
	KUNIT_CASE(afs_write_keys_in_order),
	KUNIT_CASE(afs_write_keys_revoked_skipped),
	KUNIT_CASE(afs_write_keys_none),
	KUNIT_CASE(afs_write_keys_refused_moves_on),
	KUNIT_CASE(afs_write_keys_other_result_stops),
	{}
};

static struct kunit_suite afs_write_keys_suite = {
	.name = "afs_write_keys",
	.init = afs_write_keys_init,
	.exit = afs_write_keys_exit,
	.test_cases = afs_write_keys_cases,
};

kunit_test_suites(&afs_write_region_suite, &afs_write_rules_suite,
		  &afs_write_keys_suite);
