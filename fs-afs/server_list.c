// SPDX-License-Identifier: GPL-2.0-or-later
/* A volume's list of fileservers.
 *
 * Copyright (C) 2017 Red Hat, Inc. All Rights Reserved.
 * Written by David Howells (dhowells@redhat.com)
 *
 * A server list holds the servers of a VLDB entry that have the volume's
 * type, each once and with an active use, sorted by UUID, so that a new
 * list is compared with the old one, and merged with it, in one walk.
 * Once attached, its entries are also on each server's list of volumes
 * (server->volumes, by volume ID, under the cell's vs_lock).
 */

#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include "internal.h"

/**
 * afs_put_serverlist - Drop a reference on a server list
 * @net: The servers' network namespace
 * @slist: The list, or NULL
 *
 * The last reference drops the list's use of each of its servers.
 */
void afs_put_serverlist(struct afs_net *net, struct afs_server_list *slist)
{
	int i;

	if (slist && refcount_dec_and_test(&slist->usage)) {
		for (i = 0; i < slist->nr_servers; i++)
			afs_unuse_server(net, slist->servers[i].server,
					 afs_server_trace_put_slist);
		kfree_rcu(slist, rcu);
	}
}

/*
 * Which entries of @vldb hold a volume of @type: their indices go in @picks,
 * in VLDB order.  Returns how many.
 */
static unsigned int afs_slist_pick(const struct afs_vldb_entry *vldb,
				   afs_voltype_t type,
				   unsigned char picks[AFS_NMAXNSERVERS])
{
	unsigned int i, nr = 0;
	u8 type_mask = 1 << type;

	for (i = 0; i < min_t(unsigned int, vldb->nr_servers, AFS_NMAXNSERVERS); i++)
		if (vldb->fs_mask[i] & type_mask)
			picks[nr++] = i;
	return nr;
}

/*
 * The order of a server list: by UUID, then, for records of different cells
 * sharing a UUID, by address, so that the order is total.
 */
static int afs_slist_cmp(const void *a, const void *b)
{
	const struct afs_server *sa = ((const struct afs_server_entry *)a)->server;
	const struct afs_server *sb = ((const struct afs_server_entry *)b)->server;
	int diff = memcmp(&sa->uuid, &sb->uuid, sizeof(sa->uuid));

	if (diff)
		return diff;
	return sa < sb ? -1 : sa > sb ? 1 : 0;
}

/*
 * Sort @nr entries by server and move each repeat of a server behind the
 * distinct ones.  Returns the number of distinct servers, which are at the
 * front in order; the caller drops the use each repeat holds.
 */
static unsigned int afs_slist_sort_dedupe(struct afs_server_entry *e, unsigned int nr)
{
	unsigned int i, uniq = 1;

	if (nr == 0)
		return 0;

	sort(e, nr, sizeof(*e), afs_slist_cmp, NULL);

	/* e[0, uniq) are distinct and e[uniq, i) repeats. */
	for (i = 1; i < nr; i++) {
		if (e[i].server != e[uniq - 1].server) {
			swap(e[i], e[uniq]);
			uniq++;
		}
	}
	return uniq;
}

/**
 * afs_alloc_server_list - Build a volume's server list from its VLDB entry
 * @volume: The volume; its type picks the servers
 * @key: The key for looking up servers' addresses
 * @vldb: The VLDB entry
 *
 * A server the VL servers do not know (-ENOENT, -ENOMEDIUM) is left out.
 *
 * Return: A list of each server once, sorted, with a use of each, or
 * -EDESTADDRREQ if no server is left, or another error from the lookup.
 */
struct afs_server_list *afs_alloc_server_list(struct afs_volume *volume,
					      struct key *key,
					      struct afs_vldb_entry *vldb)
{
	struct afs_server_list *slist;
	struct afs_server *server;
	struct afs_net *net = volume->cell->net;
	unsigned char picks[AFS_NMAXNSERVERS];
	unsigned int nr_picks, nr, uniq, i;
	int ret;

	nr_picks = afs_slist_pick(vldb, volume->type, picks);

	slist = kzalloc(struct_size(slist, servers, nr_picks), GFP_KERNEL);
	if (!slist)
		return ERR_PTR(-ENOMEM);
	refcount_set(&slist->usage, 1);
	rwlock_init(&slist->lock);

	nr = 0;
	for (i = 0; i < nr_picks; i++) {
		server = afs_lookup_server(volume->cell, key,
					   &vldb->fs_server[picks[i]],
					   vldb->addr_version[picks[i]]);
		if (IS_ERR(server)) {
			ret = PTR_ERR(server);
			if (ret == -ENOENT || ret == -ENOMEDIUM)
				continue;
			goto error;
		}
		slist->servers[nr].server = server;
		slist->servers[nr].volume = volume;
		nr++;
	}

	uniq = afs_slist_sort_dedupe(slist->servers, nr);
	for (i = uniq; i < nr; i++)
		afs_unuse_server(net, slist->servers[i].server,
				 afs_server_trace_put_slist_isort);
	slist->nr_servers = uniq;

	if (uniq == 0) {
		ret = -EDESTADDRREQ;
		goto error;
	}
	return slist;

error:
	slist->nr_servers = nr;
	afs_put_serverlist(net, slist);
	return ERR_PTR(ret);
}

/**
 * afs_annotate_server_list - Compare a new server list with the old one
 * @new: The candidate list
 * @old: The list in use
 *
 * If they differ, @new keeps @old's preferred server if it still has it.
 *
 * Return: true if the lists differ.
 */
bool afs_annotate_server_list(struct afs_server_list *new,
			      struct afs_server_list *old)
{
	struct afs_server *cur;
	unsigned int i;

	if (old->nr_servers == new->nr_servers) {
		for (i = 0; i < old->nr_servers; i++)
			if (old->servers[i].server != new->servers[i].server)
				break;
		if (i == old->nr_servers)
			return false;
	}

	cur = old->servers[old->preferred].server;
	for (i = 0; i < new->nr_servers; i++) {
		if (new->servers[i].server == cur) {
			new->preferred = i;
			break;
		}
	}
	return true;
}

/*
 * Put @se on its server's list of volumes, which is ordered by volume ID.
 * The caller holds the cell's vs_lock.
 */
static void afs_slist_link_entry(struct afs_volume *volume, struct afs_server_entry *se)
{
	struct afs_server_entry *pe;
	struct list_head *p;

	list_for_each(p, &se->server->volumes) {
		pe = list_entry(p, struct afs_server_entry, slink);
		if (volume->vid <= pe->volume->vid)
			break;
	}
	list_add_tail_rcu(&se->slink, p);
}

/**
 * afs_attach_volume_to_servers - Put a volume on its servers' volume lists
 * @volume: The volume
 * @slist: Its server list, not yet attached
 */
void afs_attach_volume_to_servers(struct afs_volume *volume, struct afs_server_list *slist)
{
	unsigned int i;

	spin_lock(&volume->cell->vs_lock);
	for (i = 0; i < slist->nr_servers; i++)
		afs_slist_link_entry(volume, &slist->servers[i]);
	slist->attached = true;
	spin_unlock(&volume->cell->vs_lock);
}

/**
 * afs_reattach_volume_to_servers - Move a volume's attachment to a new list
 * @volume: The volume
 * @new: The server list replacing @old
 * @old: The attached list
 *
 * A server in both lists has the old entry's link replaced by the new one
 * in place; the others are linked or unlinked.  Afterwards @new is the
 * attached list and @old is not, so that detaching @new later unlinks
 * everything.  If @old was never attached, @new is simply attached.
 */
void afs_reattach_volume_to_servers(struct afs_volume *volume, struct afs_server_list *new,
				    struct afs_server_list *old)
{
	unsigned int n = 0, o = 0, o_nr = old->attached ? old->nr_servers : 0;
	int diff;

	/* Both lists are sorted: walk them side by side. */
	spin_lock(&volume->cell->vs_lock);
	while (n < new->nr_servers || o < o_nr) {
		if (n >= new->nr_servers)
			diff = 1;
		else if (o >= o_nr)
			diff = -1;
		else
			diff = afs_slist_cmp(&new->servers[n], &old->servers[o]);

		if (diff == 0)
			list_replace_rcu(&old->servers[o++].slink, &new->servers[n++].slink);
		else if (diff < 0)
			afs_slist_link_entry(volume, &new->servers[n++]);
		else
			list_del_rcu(&old->servers[o++].slink);
	}
	new->attached = true;
	old->attached = false;
	spin_unlock(&volume->cell->vs_lock);
}

/**
 * afs_detach_volume_from_servers - Take a volume off its servers' volume lists
 * @volume: The volume
 * @slist: Its server list; nothing is done if it is not attached
 */
void afs_detach_volume_from_servers(struct afs_volume *volume, struct afs_server_list *slist)
{
	unsigned int i;

	if (!slist->attached)
		return;

	spin_lock(&volume->cell->vs_lock);
	for (i = 0; i < slist->nr_servers; i++)
		list_del_rcu(&slist->servers[i].slink);
	slist->attached = false;
	spin_unlock(&volume->cell->vs_lock);
}

#if IS_ENABLED(CONFIG_AFS_KUNIT_TEST)
#include "tests/server_list_kunit.c"
#endif
