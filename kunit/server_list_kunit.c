// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for volume server lists: picking, sorting, merging.
 *
 * Included by server_list.c.  The servers are bare records from a pool in
 * which two records share a UUID, as those of two cells cloned from one
 * image do.  The pure functions are checked against plain reference
 * computations over random lists; the attachment to the servers' volume
 * lists is checked by walking those lists.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/prandom.h>

#define AFS_TEST_POOL		12
#define AFS_TEST_ROUNDS		500

/* Which VLDB entries a volume of a type takes. */
struct afs_slist_pick_case {
	const char	*name;
	afs_voltype_t	type;
	unsigned int	nr_servers;		/* As the VLDB entry says */
	u8		masks[AFS_NMAXNSERVERS];
	unsigned int	nr_picks;
	unsigned char	picks[AFS_NMAXNSERVERS];
};

#define AFS_TEST_RW	AFS_VOL_VTM_RW
#define AFS_TEST_RO	AFS_VOL_VTM_RO
#define AFS_TEST_BK	AFS_VOL_VTM_BAK

static const struct afs_slist_pick_case afs_slist_pick_cases[] = {
	{ "RW volume, one RW site", AFSVL_RWVOL, 1, { AFS_TEST_RW }, 1, { 0 } },
	{ "RW volume, RO sites are not taken", AFSVL_RWVOL, 3,
	  { AFS_TEST_RO, AFS_TEST_RW | AFS_TEST_RO, AFS_TEST_RO }, 1, { 1 } },
	{ "RO volume, every RO site in VLDB order", AFSVL_ROVOL, 4,
	  { AFS_TEST_RO, AFS_TEST_RW, AFS_TEST_RO | AFS_TEST_BK, AFS_TEST_RO },
	  3, { 0, 2, 3 } },
	{ "backup volume, the backup site", AFSVL_BACKVOL, 2,
	  { AFS_TEST_RW, AFS_TEST_RW | AFS_TEST_BK }, 1, { 1 } },
	{ "no site of the type", AFSVL_ROVOL, 2, { AFS_TEST_RW, AFS_TEST_BK }, 0, {} },
	{ "no sites at all", AFSVL_RWVOL, 0, {}, 0, {} },
	{ "a site with no type bits", AFSVL_RWVOL, 2, { 0, AFS_TEST_RW }, 1, { 1 } },
	{ "unknown type bits are ignored", AFSVL_RWVOL, 2, { 0xf8, AFS_TEST_RW | 0xf0 },
	  1, { 1 } },
	{ "a full entry", AFSVL_RWVOL, AFS_NMAXNSERVERS,
	  { [0 ... AFS_NMAXNSERVERS - 1] = AFS_TEST_RW }, AFS_NMAXNSERVERS,
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 } },
	{ "a count beyond the array is clamped", AFSVL_RWVOL, 255,
	  { [0 ... AFS_NMAXNSERVERS - 1] = AFS_TEST_RW }, AFS_NMAXNSERVERS,
	  { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 } },
};

static void afs_slist_pick_case_desc(const struct afs_slist_pick_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_slist_pick, afs_slist_pick_cases, afs_slist_pick_case_desc);

static void afs_server_list_pick_by_type(struct kunit *test)
{
	const struct afs_slist_pick_case *c = test->param_value;
	unsigned char picks[AFS_NMAXNSERVERS];
	struct afs_vldb_entry *vldb;
	unsigned int nr, i;

	vldb = kunit_kzalloc(test, sizeof(*vldb), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, vldb);
	vldb->nr_servers = c->nr_servers;
	memcpy(vldb->fs_mask, c->masks, sizeof(vldb->fs_mask));

	nr = afs_slist_pick(vldb, c->type, picks);
	KUNIT_ASSERT_EQ(test, nr, c->nr_picks);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ_MSG(test, picks[i], c->picks[i], "pick %u", i);
}

/* The pool: records 0..POOL-1, record 1 sharing record 0's UUID. */
struct afs_slist_fixture {
	struct afs_cell		*cell;
	struct afs_server	*pool[AFS_TEST_POOL];
	struct rnd_state	rnd;
};

static int afs_server_list_test_init(struct kunit *test)
{
	struct afs_slist_fixture *f;
	unsigned int i;

	afs_kunit_failslab_case(test);
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	f->cell = kunit_kzalloc(test, sizeof(*f->cell), GFP_KERNEL);
	if (!f->cell)
		return -ENOMEM;
	spin_lock_init(&f->cell->vs_lock);

	for (i = 0; i < AFS_TEST_POOL; i++) {
		struct afs_server *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);

		if (!s)
			return -ENOMEM;
		/* UUIDs in an order unrelated to the pool's or the memory's. */
		s->uuid.b[0] = (i * 7) % AFS_TEST_POOL;
		s->uuid.b[15] = i;
		INIT_LIST_HEAD(&s->volumes);
		f->pool[i] = s;
	}
	f->pool[1]->uuid = f->pool[0]->uuid;
	prandom_seed_state(&f->rnd, 0x6166735f736c7374ULL);
	test->priv = f;
	return 0;
}

/* Reference order, written out: UUID bytes, then the record's address. */
static bool afs_test_server_before(const struct afs_server *a, const struct afs_server *b)
{
	unsigned int i;

	for (i = 0; i < sizeof(a->uuid); i++)
		if (a->uuid.b[i] != b->uuid.b[i])
			return a->uuid.b[i] < b->uuid.b[i];
	return (unsigned long)a < (unsigned long)b;
}

static unsigned int afs_test_count(struct afs_server_entry *e, unsigned int nr,
				   const struct afs_server *s)
{
	unsigned int i, n = 0;

	for (i = 0; i < nr; i++)
		n += e[i].server == s;
	return n;
}

/* Sorting with repeats set aside, over random lists with repeats: the
 * distinct servers come first, in order, each once; the repeats follow; no
 * entry is lost or made up.
 */
static void afs_server_list_sort_dedupe_random(struct kunit *test)
{
	struct afs_slist_fixture *f = test->priv;
	struct afs_server_entry in[2 * AFS_NMAXNSERVERS], out[2 * AFS_NMAXNSERVERS];
	unsigned int round, nr, uniq, distinct, i;

	for (round = 0; round < AFS_TEST_ROUNDS; round++) {
		nr = prandom_u32_state(&f->rnd) % (ARRAY_SIZE(in) + 1);
		for (i = 0; i < nr; i++) {
			in[i].server = f->pool[prandom_u32_state(&f->rnd) % 5];
			in[i].volume = (void *)(unsigned long)(i + 1);	/* A tag */
		}
		memcpy(out, in, sizeof(in));

		uniq = afs_slist_sort_dedupe(out, nr);

		distinct = 0;
		for (i = 0; i < AFS_TEST_POOL; i++)
			distinct += afs_test_count(in, nr, f->pool[i]) > 0;
		KUNIT_ASSERT_EQ_MSG(test, uniq, distinct, "round %u", round);
		for (i = 1; i < uniq; i++)
			KUNIT_ASSERT_TRUE_MSG(test,
					      afs_test_server_before(out[i - 1].server,
								     out[i].server),
					      "round %u: entry %u out of order", round, i);
		for (i = 0; i < AFS_TEST_POOL; i++)
			KUNIT_ASSERT_EQ_MSG(test, afs_test_count(out, nr, f->pool[i]),
					    afs_test_count(in, nr, f->pool[i]),
					    "round %u: server %u", round, i);
		for (i = uniq; i < nr; i++)
			KUNIT_ASSERT_EQ_MSG(test, afs_test_count(out, uniq, out[i].server), 1U,
					    "round %u: repeat %u not a repeat", round, i);
	}
}

/* A random list of distinct pool servers in reference order. */
static struct afs_server_list *afs_test_random_slist(struct kunit *test,
						     struct afs_slist_fixture *f)
{
	struct afs_server_list *slist;
	struct afs_server *s;
	unsigned int i, j, nr = 0;
	u32 members = prandom_u32_state(&f->rnd);

	slist = kunit_kzalloc(test, struct_size(slist, servers, AFS_TEST_POOL), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, slist);
	for (i = 0; i < AFS_TEST_POOL; i++) {
		if (!(members & BIT(i)))
			continue;
		s = f->pool[i];
		for (j = nr; j > 0 && afs_test_server_before(s, slist->servers[j - 1].server); j--)
			slist->servers[j] = slist->servers[j - 1];
		slist->servers[j].server = s;
		nr++;
	}
	slist->nr_servers = nr;
	return slist;
}

static int afs_test_index_of(const struct afs_server_list *slist, const struct afs_server *s)
{
	unsigned int i;

	for (i = 0; i < slist->nr_servers; i++)
		if (slist->servers[i].server == s)
			return i;
	return -1;
}

static struct afs_volume *afs_test_volume(struct kunit *test,
					  struct afs_slist_fixture *f, afs_volid_t vid)
{
	struct afs_volume *volume = kunit_kzalloc(test, sizeof(*volume), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, volume);
	volume->cell = f->cell;
	volume->vid = vid;
	return volume;
}

static void afs_test_fill_volume(struct afs_server_list *slist, struct afs_volume *volume)
{
	unsigned int i;

	for (i = 0; i < slist->nr_servers; i++)
		slist->servers[i].volume = volume;
}

/* Is @se one of the entries of @lists? */
static bool afs_test_entry_of(struct afs_server_list **lists, unsigned int nr_lists,
			      const struct afs_server_entry *se)
{
	unsigned int l, k;

	for (l = 0; l < nr_lists; l++)
		for (k = 0; k < lists[l]->nr_servers; k++)
			if (se == &lists[l]->servers[k])
				return true;
	return false;
}

/* Is every server's volume list exactly the entries of @lists that name it,
 * in volume ID order?
 */
static void afs_test_check_attached(struct kunit *test, struct afs_slist_fixture *f,
				    struct afs_server_list **lists, unsigned int nr_lists,
				    unsigned int round)
{
	struct afs_server_entry *se;
	unsigned int i, l, want, have;
	afs_volid_t last;

	for (i = 0; i < AFS_TEST_POOL; i++) {
		want = 0;
		for (l = 0; l < nr_lists; l++)
			want += afs_test_index_of(lists[l], f->pool[i]) >= 0;
		have = 0;
		last = 0;
		list_for_each_entry(se, &f->pool[i]->volumes, slink) {
			KUNIT_ASSERT_TRUE_MSG(test, afs_test_entry_of(lists, nr_lists, se),
					      "round %u server %u: an entry of no list", round, i);
			KUNIT_EXPECT_PTR_EQ(test, se->server, f->pool[i]);
			KUNIT_EXPECT_GE_MSG(test, se->volume->vid, last,
					    "round %u server %u", round, i);
			last = se->volume->vid;
			have++;
		}
		KUNIT_EXPECT_EQ_MSG(test, have, want, "round %u server %u", round, i);
	}
}

/* Reattaching moves a volume from its old list to the new one on every
 * server's volume list (the merge walk: a server in both lists, in one,
 * or in the other), leaving another volume's entries alone; detaching
 * the new list afterwards empties them of the volume.
 */
static void afs_server_list_reattach_random(struct kunit *test)
{
	struct afs_slist_fixture *f = test->priv;
	struct afs_server_list *lists[2], *old, *new, *other;
	struct afs_volume *v1 = afs_test_volume(test, f, 0x20000002);
	struct afs_volume *v2 = afs_test_volume(test, f, 0x20000001);
	unsigned int round, i;

	for (round = 0; round < AFS_TEST_ROUNDS / 10; round++) {
		old = afs_test_random_slist(test, f);
		new = afs_test_random_slist(test, f);
		other = afs_test_random_slist(test, f);
		afs_test_fill_volume(old, v1);
		afs_test_fill_volume(new, v1);
		afs_test_fill_volume(other, v2);

		afs_attach_volume_to_servers(v1, old);
		afs_attach_volume_to_servers(v2, other);
		afs_reattach_volume_to_servers(v1, new, old);
		KUNIT_EXPECT_TRUE(test, new->attached);
		KUNIT_EXPECT_FALSE(test, old->attached);
		lists[0] = new;
		lists[1] = other;
		afs_test_check_attached(test, f, lists, 2, round);

		afs_detach_volume_from_servers(v1, new);
		afs_test_check_attached(test, f, &other, 1, round);
		afs_detach_volume_from_servers(v2, other);
		for (i = 0; i < AFS_TEST_POOL; i++)
			KUNIT_ASSERT_TRUE_MSG(test, list_empty(&f->pool[i]->volumes),
					      "round %u: server %u keeps an entry", round, i);
	}
}

/* Comparing a new list with the old one, and the preferred server. */
static void afs_server_list_annotate(struct kunit *test)
{
	struct afs_slist_fixture *f = test->priv;
	struct afs_server_list *a, *b;
	unsigned int i;

	a = kunit_kzalloc(test, struct_size(a, servers, 3), GFP_KERNEL);
	b = kunit_kzalloc(test, struct_size(b, servers, 3), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, a);
	KUNIT_ASSERT_NOT_NULL(test, b);
	for (i = 0; i < 3; i++) {
		a->servers[i].server = f->pool[i + 2];
		b->servers[i].server = f->pool[i + 2];
	}
	a->nr_servers = 3;
	b->nr_servers = 3;
	a->preferred = 2;

	KUNIT_EXPECT_FALSE(test, afs_annotate_server_list(b, a));
	KUNIT_EXPECT_EQ(test, b->preferred, 0);		/* Untouched */

	/* The preferred server moved to another slot. */
	b->servers[0].server = f->pool[3];
	b->servers[1].server = f->pool[4];
	b->servers[2].server = f->pool[2];
	KUNIT_EXPECT_TRUE(test, afs_annotate_server_list(b, a));
	KUNIT_EXPECT_EQ(test, b->preferred, 1);

	/* Fewer servers, the preferred one gone: no preference carried. */
	b->preferred = 1;
	b->nr_servers = 2;
	b->servers[0].server = f->pool[2];
	b->servers[1].server = f->pool[3];
	KUNIT_EXPECT_TRUE(test, afs_annotate_server_list(b, a));
	KUNIT_EXPECT_EQ(test, b->preferred, 1);
}

static struct kunit_case afs_server_list_cases[] = {
	KUNIT_CASE_PARAM(afs_server_list_pick_by_type, afs_slist_pick_gen_params),
	KUNIT_CASE(afs_server_list_sort_dedupe_random),
	KUNIT_CASE(afs_server_list_reattach_random),
	KUNIT_CASE(afs_server_list_annotate),
	{}
};

static struct kunit_suite afs_server_list_suite = {
	.name = "afs_server_list",
	.init = afs_server_list_test_init,
	.test_cases = afs_server_list_cases,
};

kunit_test_suite(afs_server_list_suite);
