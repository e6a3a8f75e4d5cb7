/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Failslab for the kAFS KUnit suites: slab allocations of a case's own task
 * made to fail.
 *
 * With failslab's task-filter set, only a task whose make_it_fail is set
 * sees failures.  In 6.1 the attributes that make GFP_KERNEL allocations
 * fail at all (ignore-gfp-wait) and task-filter exist only as debugfs files,
 * and kernel_write() refuses debugfs attribute files; so the suites set the
 * variables those files stand for, which debugfs keeps as each file's
 * i_private, and put them back afterwards.  Needs CONFIG_FAILSLAB and
 * CONFIG_FAULT_INJECTION_DEBUG_FS; without them nothing is armed.
 *
 * The failslab run boots the kernel with "failslab=<interval>,100,0,0":
 * failslab on, but with no failures left to inject ("times" 0), so nothing
 * fails until a case asks.  Every suite's ->init calls
 * afs_kunit_failslab_case(), which then has every <interval>th slab
 * allocation of the case's task fail until the case ends, and logs how many
 * failed.  Cases are expected to fail in that run; what it judges is that
 * none crashes, hangs or draws a sanitizer report.
 */

#ifndef AFS_KUNIT_FAILSLAB_H
#define AFS_KUNIT_FAILSLAB_H

#include <kunit/resource.h>
#include <kunit/test.h>
#include <linux/debugfs.h>
#include <linux/sched.h>

/* Failures the failslab run allows a case: more than any case makes. */
#define AFS_KUNIT_FAILSLAB_TIMES	BIT(30)

struct afs_test_failslab {
	unsigned long	*probability, *interval, *verbose;
	atomic_t	*times, *space;
	bool		*task_filter, *ignore_gfp_wait;
	unsigned long	old_probability, old_interval, old_verbose;
	int		old_times, old_space, armed_times;
	bool		old_task_filter, old_ignore_gfp_wait, old_make_it_fail;
};

static inline void *afs_test_debugfs_data(struct dentry *dir, const char *name)
{
	struct dentry *file = debugfs_lookup(name, dir);
	void *data = NULL;

	if (!IS_ERR_OR_NULL(file)) {
		data = d_inode(file)->i_private;
		dput(file);
	}
	return data;
}

/* Find failslab's variables and note their values; false if there are none. */
static inline bool afs_test_failslab_find(struct afs_test_failslab *fs)
{
	struct dentry *dir;

	if (!IS_ENABLED(CONFIG_FAILSLAB) ||
	    !IS_ENABLED(CONFIG_FAULT_INJECTION_DEBUG_FS))
		return false;
	dir = debugfs_lookup("failslab", NULL);
	if (IS_ERR_OR_NULL(dir))
		return false;
	fs->probability = afs_test_debugfs_data(dir, "probability");
	fs->interval = afs_test_debugfs_data(dir, "interval");
	fs->verbose = afs_test_debugfs_data(dir, "verbose");
	fs->times = afs_test_debugfs_data(dir, "times");
	fs->space = afs_test_debugfs_data(dir, "space");
	fs->task_filter = afs_test_debugfs_data(dir, "task-filter");
	fs->ignore_gfp_wait = afs_test_debugfs_data(dir, "ignore-gfp-wait");
	dput(dir);
	if (!fs->probability || !fs->interval || !fs->verbose || !fs->times ||
	    !fs->space || !fs->task_filter || !fs->ignore_gfp_wait)
		return false;

	fs->old_probability = READ_ONCE(*fs->probability);
	fs->old_interval = READ_ONCE(*fs->interval);
	fs->old_verbose = READ_ONCE(*fs->verbose);
	fs->old_times = atomic_read(fs->times);
	fs->old_space = atomic_read(fs->space);
	fs->old_task_filter = READ_ONCE(*fs->task_filter);
	fs->old_ignore_gfp_wait = READ_ONCE(*fs->ignore_gfp_wait);
	return true;
}

/*
 * Have every @interval-th slab allocation of this task fail, @times at most,
 * until afs_test_failslab_disarm(); the caller's own arming, if any, is put
 * back then.  @verbose as failslab's: 0 quiet, 1 a line per failure.
 */
static inline bool afs_test_failslab_arm(struct afs_test_failslab *fs,
					 unsigned long interval, int times,
					 unsigned long verbose)
{
	if (!afs_test_failslab_find(fs))
		return false;

	/* The filter first and the probability last, so that no other task
	 * ever sees a failure.
	 */
	WRITE_ONCE(*fs->task_filter, true);
	fs->armed_times = times;
	atomic_set(fs->times, times);
	atomic_set(fs->space, 0);
	WRITE_ONCE(*fs->interval, interval);
	WRITE_ONCE(*fs->verbose, verbose);
	WRITE_ONCE(*fs->ignore_gfp_wait, false);
	WRITE_ONCE(*fs->probability, 100);
#ifdef CONFIG_FAULT_INJECTION
	fs->old_make_it_fail = current->make_it_fail;
	current->make_it_fail = true;
#endif
	return true;
}

/* Put failslab back as it was; return how many failures it injected. */
static inline int afs_test_failslab_disarm(struct afs_test_failslab *fs)
{
	int injected = fs->armed_times - atomic_read(fs->times);

#ifdef CONFIG_FAULT_INJECTION
	current->make_it_fail = fs->old_make_it_fail;
#endif
	WRITE_ONCE(*fs->probability, fs->old_probability);
	WRITE_ONCE(*fs->ignore_gfp_wait, fs->old_ignore_gfp_wait);
	WRITE_ONCE(*fs->verbose, fs->old_verbose);
	WRITE_ONCE(*fs->interval, fs->old_interval);
	atomic_set(fs->space, fs->old_space);
	atomic_set(fs->times, fs->old_times);
	WRITE_ONCE(*fs->task_filter, fs->old_task_filter);
	return injected;
}

struct afs_kunit_failslab {
	struct afs_test_failslab	fs;
	struct kunit			*test;
};

static inline int afs_kunit_failslab_res_init(struct kunit_resource *res,
					      void *context)
{
	res->data = context;
	return 0;
}

/* The end of a case in the failslab run: disarm, and say how many failed. */
static inline void afs_kunit_failslab_res_free(struct kunit_resource *res)
{
	struct afs_kunit_failslab *c = res->data;

	kunit_info(c->test, "failslab: %d allocation failures",
		   afs_test_failslab_disarm(&c->fs));
	kfree(c);
}

static inline bool afs_kunit_failslab_match(struct kunit *test,
					    struct kunit_resource *res,
					    void *match_data)
{
	return res->free == afs_kunit_failslab_res_free;
}

/**
 * afs_kunit_failslab_end - Stop a case's allocations failing
 * @test: The case, from its suite's ->exit
 *
 * 6.1's KUnit frees a case's resources only after the suite's ->exit has
 * run, so an ->exit that allocates, to tear down and check what the case
 * left, calls this first.
 */
static inline void afs_kunit_failslab_end(struct kunit *test)
{
	kunit_destroy_resource(test, afs_kunit_failslab_match, NULL);
}

/**
 * afs_kunit_failslab_case - Make a case's allocations fail in the failslab run
 * @test: The case, from its suite's ->init
 *
 * Does nothing unless the kernel was booted with failslab on and no
 * failures left to inject (see the top of this file).
 *
 * Return: 0, so that it can be a suite's ->init.
 */
static inline int afs_kunit_failslab_case(struct kunit *test)
{
	struct afs_test_failslab probe;
	struct afs_kunit_failslab *c;

	if (!afs_test_failslab_find(&probe) || !probe.old_probability ||
	    probe.old_times != 0)
		return 0;

	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return 0;
	c->test = test;
	if (!kunit_alloc_resource(test, afs_kunit_failslab_res_init,
				  afs_kunit_failslab_res_free, GFP_KERNEL, c)) {
		kfree(c);
		return 0;
	}
	afs_test_failslab_arm(&c->fs, probe.old_interval,
			      AFS_KUNIT_FAILSLAB_TIMES, 0);
	return 0;
}

#endif /* AFS_KUNIT_FAILSLAB_H */
