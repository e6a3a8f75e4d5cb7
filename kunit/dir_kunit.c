// SPDX-License-Identifier: GPL-2.0-or-later
/* KUnit suite for the inode that create, mkdir and symlink make.
 *
 * Included by dir.c, so that it can run each operation's success handler,
 * through the operation's own table, as afs_do_sync_operation() would once
 * the fileserver has answered.  There is no fileserver and no mount: the
 * suite makes a superblock of its own whose inodes are AFS vnodes, so that
 * afs_iget() makes a real inode for the new file; the key is a real keyring.
 */

#include <kunit/test.h>
#include "failslab.h"
#include <linux/cred.h>
#include <linux/key.h>

#define AFS_TEST_DIR_VID	0x20000001
#define AFS_TEST_DIR_NEW_VNODE	2

struct afs_test_dir_fixture {
	struct afs_volume	*volume;
	struct afs_super_info	*as;
	struct super_block	*sb;
	struct afs_vnode	*dvnode;	/* The directory, the sb's root */
	struct dentry		*dentry;	/* The new name in it */
	struct key		*key;
};

/* What afs_alloc_inode() and the slab constructor do for kafs's own sb. */
static struct inode *afs_test_dir_alloc_inode(struct super_block *sb)
{
	struct afs_vnode *vnode = kzalloc(sizeof(*vnode), GFP_KERNEL);

	if (!vnode)
		return NULL;
	inode_init_once(&vnode->netfs.inode);
	mutex_init(&vnode->io_lock);
	init_rwsem(&vnode->validate_lock);
	init_rwsem(&vnode->rmdir_lock);
	spin_lock_init(&vnode->wb_lock);
	spin_lock_init(&vnode->lock);
	INIT_LIST_HEAD(&vnode->wb_keys);
	INIT_LIST_HEAD(&vnode->pending_locks);
	INIT_LIST_HEAD(&vnode->granted_locks);
	INIT_LIST_HEAD(&vnode->cb_mmap_link);
	seqlock_init(&vnode->cb_lock);
	INIT_WORK(&vnode->cb_work, afs_invalidate_mmap_work);
	INIT_DELAYED_WORK(&vnode->lock_work, afs_lock_work);
	vnode->flags = 1 << AFS_VNODE_UNSET;
	vnode->lock_state = AFS_VNODE_LOCK_NONE;
	return &vnode->netfs.inode;
}

static void afs_test_dir_free_inode(struct inode *inode)
{
	kfree(AFS_FS_I(inode));
}

/* Eviction is kafs's own, which drops the inode's permits. */
static const struct super_operations afs_test_dir_super_ops = {
	.alloc_inode	= afs_test_dir_alloc_inode,
	.free_inode	= afs_test_dir_free_inode,
	.evict_inode	= afs_evict_inode,
};

static struct file_system_type afs_test_dir_fs_type = {
	.name		= "afs_test_dir",
	.kill_sb	= kill_anon_super,
};

static int afs_test_dir_init(struct kunit *test)
{
	struct afs_test_dir_fixture *f;
	struct super_block *sb;
	struct inode *dir;
	struct afs_vnode *dvnode;

	afs_kunit_failslab_case(test);
	/* Set even on failure: 6.1's KUnit keeps ->priv from the last row. */
	f = kunit_kzalloc(test, sizeof(*f), GFP_KERNEL);
	test->priv = f;
	if (!f)
		return -ENOMEM;

	f->volume = kunit_kzalloc(test, sizeof(*f->volume), GFP_KERNEL);
	f->as = kunit_kzalloc(test, sizeof(*f->as), GFP_KERNEL);
	if (!f->volume || !f->as)
		return -ENOMEM;
	f->volume->vid = AFS_TEST_DIR_VID;
	f->as->volume = f->volume;

	f->key = keyring_alloc("afs_test_dir_key", GLOBAL_ROOT_UID,
			       GLOBAL_ROOT_GID, current_cred(), KEY_POS_ALL,
			       KEY_ALLOC_NOT_IN_QUOTA, NULL, NULL);
	if (IS_ERR(f->key)) {
		int ret = PTR_ERR(f->key);

		f->key = NULL;
		return ret;
	}

	sb = sget(&afs_test_dir_fs_type, NULL, set_anon_super, 0, NULL);
	if (IS_ERR(sb))
		return PTR_ERR(sb);
	f->sb = sb;
	sb->s_op = &afs_test_dir_super_ops;
	sb->s_fs_info = f->as;

	dir = new_inode(sb);
	if (!dir) {
		up_write(&sb->s_umount);
		return -ENOMEM;
	}
	dvnode = AFS_FS_I(dir);
	dvnode->volume = f->volume;
	dvnode->fid.vid = AFS_TEST_DIR_VID;
	dvnode->fid.vnode = 1;
	dvnode->fid.unique = 1;
	dvnode->status.type = AFS_FTYPE_DIR;
	dir->i_ino = 1;
	dir->i_mode = S_IFDIR | 0755;
	clear_bit(AFS_VNODE_UNSET, &dvnode->flags);
	f->dvnode = dvnode;

	sb->s_root = d_make_root(dir);
	up_write(&sb->s_umount);
	if (!sb->s_root)
		return -ENOMEM;
	return 0;
}

/*
 * Unmount the test's superblock, which evicts every inode and so drops their
 * permits, and check that the key is back to the suite's one reference.
 */
static void afs_test_dir_exit(struct kunit *test)
{
	struct afs_test_dir_fixture *f = test->priv;

	afs_kunit_failslab_end(test);

	if (!f)
		return;
	dput(f->dentry);
	if (f->sb) {
		down_write(&f->sb->s_umount);
		deactivate_locked_super(f->sb);
	}
	if (f->key) {
		rcu_barrier();
		KUNIT_EXPECT_EQ(test, refcount_read(&f->key->usage), 1);
		key_put(f->key);
	}
}

/*
 * A row: which operation made the file, what kind of file the fileserver
 * said it is, and how many volume-wide callback breaks the volume had seen
 * before the operation began.
 */
struct afs_test_dir_row {
	const char			*name;
	const struct afs_operation_ops	*ops;
	afs_file_type_t			type;
	umode_t				mode;
	bool				have_cb;
	unsigned int			cb_v_break;
};

static const struct afs_test_dir_row afs_test_dir_rows[] = {
	{ "mkdir, volume never broken", &afs_mkdir_operation,
	  AFS_FTYPE_DIR, 0755, true, 0 },
	{ "mkdir after volume breaks", &afs_mkdir_operation,
	  AFS_FTYPE_DIR, 0755, true, 3 },
	{ "create after volume breaks", &afs_create_operation,
	  AFS_FTYPE_FILE, 0644, true, 3 },
	{ "symlink after volume breaks", &afs_symlink_operation,
	  AFS_FTYPE_SYMLINK, 0777, false, 3 },
};

static void afs_test_dir_row_desc(const struct afs_test_dir_row *row,
				  char *desc)
{
	strscpy(desc, row->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(afs_test_dir, afs_test_dir_rows, afs_test_dir_row_desc);

/*
 * The fileserver made the file and granted the caller READ|LOOKUP on it: the
 * success handler makes the inode and caches that permit at once, so that
 * the first permission check on it need not go back to the fileserver.
 * That must hold however many volume-wide breaks the volume has seen: the
 * new inode's copy of the volume's counter is current.
 */
static void afs_dir_new_inode_table(struct kunit *test)
{
	const struct afs_test_dir_row *row = test->param_value;
	struct afs_test_dir_fixture *f = test->priv;
	const afs_access_t granted = AFS_ACE_READ | AFS_ACE_LOOKUP;
	struct afs_operation *op;
	struct afs_vnode_param *vp;
	struct afs_permits *permits;
	struct afs_vnode *vnode;
	struct inode *inode;

	op = kunit_kzalloc(test, sizeof(*op), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, op);
	f->dentry = d_alloc_name(f->sb->s_root, "new");
	KUNIT_ASSERT_NOT_NULL(test, f->dentry);

	/* As afs_begin_vnode_operation() leaves it. */
	f->volume->cb_v_break = row->cb_v_break;
	op->volume = f->volume;
	op->key = f->key;
	op->dentry = f->dentry;
	op->cb_v_break = f->volume->cb_v_break;
	op->file[0].vnode = f->dvnode;
	op->file[0].fid = f->dvnode->fid;

	/* As the fileserver's reply leaves it. */
	vp = &op->file[1];
	vp->fid.vid = AFS_TEST_DIR_VID;
	vp->fid.vnode = AFS_TEST_DIR_NEW_VNODE;
	vp->fid.unique = 1;
	vp->scb.have_status = true;
	vp->scb.status.type = row->type;
	vp->scb.status.mode = row->mode;
	vp->scb.status.nlink = row->type == AFS_FTYPE_DIR ? 2 : 1;
	vp->scb.status.data_version = 1;
	vp->scb.status.caller_access = granted;
	vp->scb.have_cb = row->have_cb;
	if (row->have_cb)
		vp->scb.callback.expires_at = ktime_get_real_seconds() + 3600;

	row->ops->success(op);

	KUNIT_ASSERT_EQ(test, op->error, 0);
	inode = d_inode(f->dentry);
	KUNIT_ASSERT_NOT_NULL(test, inode);
	vnode = AFS_FS_I(inode);
	KUNIT_EXPECT_EQ(test, vnode->fid.vnode, AFS_TEST_DIR_NEW_VNODE);
	KUNIT_EXPECT_EQ(test, vnode->status.type, row->type);
	KUNIT_EXPECT_EQ(test, vnode->cb_v_break, row->cb_v_break);

	permits = rcu_access_pointer(vnode->permit_cache);
	KUNIT_ASSERT_NOT_NULL_MSG(test, permits,
				  "no permit cached for the new inode");
	KUNIT_ASSERT_EQ(test, permits->nr_permits, 1);
	KUNIT_EXPECT_PTR_EQ(test, permits->permits[0].key, f->key);
	KUNIT_EXPECT_EQ(test, permits->permits[0].access, granted);
}

static struct kunit_case afs_dir_cases[] = {
	KUNIT_CASE_PARAM(afs_dir_new_inode_table, afs_test_dir_gen_params),
	{}
};

static struct kunit_suite afs_dir_suite = {
	.name = "afs_dir",
	.init = afs_test_dir_init,
	.exit = afs_test_dir_exit,
	.test_cases = afs_dir_cases,
};

kunit_test_suite(afs_dir_suite);
