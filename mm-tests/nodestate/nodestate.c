// SPDX-License-Identifier: GPL-2.0
/*
 * nodestate: put a NUMA node into a known allocation state, for tests.
 *
 *   echo free|frag|full|low|split > /sys/kernel/debug/nodestate/node<N>
 *   cat /sys/kernel/debug/nodestate/node<N>      -> current state and counts
 *
 * FREE  nothing held; the node has whatever free blocks it has.
 * FRAG  no free block of pageblock order or more, and compaction cannot
 *       make one: every pageblock of the node holds a pinned page (one of
 *       ours, or an extra reference on a page already in use), while all
 *       other free memory is given back as smaller blocks.
 * FULL  free memory between the min and low watermarks, and none of it in
 *       a block of pageblock order, so not even a min-watermark attempt
 *       finds a huge page there.  Our pages are unmovable, unreclaimable.
 * LOW   free memory between the min and low watermarks, all of it in free
 *       pageblocks: the fast path (low watermark) finds nothing, the slow
 *       path's min-watermark attempt finds a huge page.
 * SPLIT no free block of order NS_CHUNK (64K) or more, and compaction
 *       cannot make one: half of every 64K block is ours (unmovable), and
 *       every 64K block we hold nothing of has a pinned page.  About half
 *       the node is free, in blocks of 32K and less: 4k pages and the
 *       mTHP sizes below 64K only.
 *
 * Setting a state drains the per-cpu lists first (ns_drain()): the states
 * are meant to be exact.  States that per-cpu lists make, as an exiting
 * task leaves them, are thp_aged's, which never drains.
 *
 * Loaded only in the test guest.  Not for production kernels.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/list_sort.h>
#include <linux/mm.h>
#include <linux/mmzone.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/nodemask.h>
#include <linux/pageblock-flags.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#define NS_CHUNK	4	/* see ns_take_all() */

enum ns_state { NS_FREE, NS_FRAG, NS_FULL, NS_LOW, NS_SPLIT };
static const char * const ns_names[] = { "free", "frag", "full", "low", "split" };

struct ns_node {
	enum ns_state state;
	struct list_head held;		/* our NS_CHUNK-order chunks */
	unsigned long nr_held;
	struct list_head held0;		/* our order-0 pages (SPLIT) */
	unsigned long nr_held0;
	struct xarray refs;		/* block -> folio we hold a ref on */
	unsigned long nr_refs;
};

static struct ns_node *ns_nodes[MAX_NUMNODES];
static DEFINE_MUTEX(ns_lock);
static struct dentry *ns_dir;

/*
 * Free pages sitting on per-cpu lists are invisible to the buddy lists:
 * they cannot be taken, and when the lists drain later they can complete a
 * free pageblock behind the state's back.  drain_all_pages() is not
 * exported; this module is for test guests only, so find it through a
 * kprobe lookup once at load.
 */
static void (*ns_drain_all_pages)(struct zone *zone);

static int ns_find_drain(void)
{
	struct kprobe kp = { .symbol_name = "drain_all_pages" };
	int ret = register_kprobe(&kp);

	if (ret == 0) {
		ns_drain_all_pages = (void *)kp.addr;
		unregister_kprobe(&kp);
	}
	/*
	 * Without the drain a state is not what it says (a guest kernel
	 * built without CONFIG_KPROBES placed the deep FULL,FULL,FULL,FRAG
	 * row's THP on nodes meant FULL, and left SPLIT nodes with free
	 * 2M blocks): refuse to load rather than set such states.
	 */
	if (!ns_drain_all_pages) {
		pr_err("nodestate: drain_all_pages not found through a kprobe (%d): needs CONFIG_KPROBES\n",
		       ret);
		return ret ? ret : -ENOENT;
	}
	return 0;
}

static void ns_drain(void)
{
	ns_drain_all_pages(NULL);
}

static void ns_release(struct ns_node *n)
{
	struct page *page, *next;
	struct folio *folio;
	unsigned long idx;

	list_for_each_entry_safe(page, next, &n->held, lru) {
		list_del(&page->lru);
		__free_pages(page, NS_CHUNK);
		cond_resched();
	}
	n->nr_held = 0;
	list_for_each_entry_safe(page, next, &n->held0, lru) {
		list_del(&page->lru);
		__free_page(page);
		if (!(--n->nr_held0 % 1024))
			cond_resched();
	}
	xa_for_each(&n->refs, idx, folio) {
		folio_put(folio);
		xa_erase(&n->refs, idx);
	}
	n->nr_refs = 0;
	n->state = NS_FREE;
	ns_drain();
}

static gfp_t ns_zone_gfp(enum zone_type zt)
{
	switch (zt) {
#ifdef CONFIG_ZONE_DMA
	case ZONE_DMA:
		return GFP_DMA;
#endif
#ifdef CONFIG_ZONE_DMA32
	case ZONE_DMA32:
		return GFP_DMA32;
#endif
	default:
		return 0;
	}
}

/* What the sweeps take with: this node only, no reclaim, reserves too. */
static gfp_t ns_take_gfp(enum zone_type zt)
{
	return (GFP_KERNEL | ns_zone_gfp(zt) | __GFP_THISNODE | __GFP_NOWARN |
		__GFP_MEMALLOC) & ~__GFP_RECLAIM;
}

/*
 * Every free chunk of NS_CHUNK pages of @nid, watermarks ignored (the node
 * is ours for a moment; other allocations fall back to other nodes).
 * NS_CHUNK is above PAGE_ALLOC_COSTLY_ORDER, so giving a chunk back goes
 * straight to the buddy lists, not to a per-cpu list where it would keep
 * its block from merging again.
 */
static void ns_take_all(int nid, struct ns_node *n)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int zt;

	ns_drain();
	for (zt = ZONE_NORMAL; zt >= 0; zt--) {
		gfp_t gfp = ns_take_gfp(zt);
		struct page *page;

		if (!populated_zone(&pgdat->node_zones[zt]))
			continue;
		while ((page = alloc_pages_node(nid, gfp, NS_CHUNK))) {
			list_add(&page->lru, &n->held);
			n->nr_held++;
			if (!(n->nr_held % 1024))
				cond_resched();
		}
	}
}

static unsigned long ns_target(struct zone *zone, enum ns_state state)
{
	/*
	 * FULL: between min and low, so only the min-watermark retry could
	 * find anything here; FRAG: everything back.  Unboosted watermarks:
	 * a boost goes away as soon as kswapd has run (the tests set
	 * vm.watermark_boost_factor=0 too).
	 */
	if (state == NS_FULL || state == NS_LOW)
		return (zone->_watermark[WMARK_MIN] + zone->_watermark[WMARK_LOW]) / 2;
	return ULONG_MAX;
}

/*
 * The chunk sweep leaves the pieces smaller than a chunk free.  Where
 * earlier rows left the node fragmented, those alone can hold the zone
 * above low (seen: 695-743 free pages against a low watermark of 594 on
 * chain4, after the 64K rows): FULL takes base pages too, down to its
 * target.  LOW takes all of them: its free memory between min and low
 * must be whole pageblocks, and pieces left free count against the
 * target, so fewer blocks go back (seen on the debug kernel: 4 free 2M
 * blocks for a 16 MiB region).
 */
static void ns_take_small(int nid, struct ns_node *n, enum ns_state state)
{
	pg_data_t *pgdat = NODE_DATA(nid);
	int zt;

	for (zt = ZONE_NORMAL; zt >= 0; zt--) {
		struct zone *zone = &pgdat->node_zones[zt];
		gfp_t gfp = ns_take_gfp(zt);
		struct page *page;

		if (!populated_zone(zone))
			continue;
		unsigned long keep = state == NS_LOW ? 0 : ns_target(zone, state);

		while (zone_page_state(zone, NR_FREE_PAGES) > keep) {
			page = alloc_pages_node(nid, gfp, 0);
			if (!page)
				break;
			list_add(&page->lru, &n->held0);
			n->nr_held0++;
			if (page_zone(page) != zone)
				break;
			if (!(n->nr_held0 % 1024))
				cond_resched();
		}
	}
}

static int ns_cmp_pfn(void *priv, const struct list_head *a,
		      const struct list_head *b)
{
	unsigned long pa = page_to_pfn(list_entry(a, struct page, lru));
	unsigned long pb = page_to_pfn(list_entry(b, struct page, lru));

	return pa < pb ? -1 : pa > pb;
}

/*
 * Give chunks back while the zone is below the target of @state.  FRAG and
 * FULL keep the first chunk we hold in each pageblock, so no block can
 * merge to pageblock order again; LOW gives back, in pfn order, only the
 * chunks of pageblocks we hold whole, so that every chunk it gives back
 * completes a free pageblock.
 */
static void ns_give_back(struct ns_node *n, enum ns_state state)
{
	const unsigned long per_block = 1UL << (pageblock_order - NS_CHUNK);
	bool keep_one = state != NS_LOW;
	struct page *page, *next;
	struct xarray seen;	/* FRAG, FULL: blocks seen; LOW: chunks per block */

	xa_init(&seen);
	if (!keep_one) {
		list_sort(NULL, &n->held, ns_cmp_pfn);
		list_for_each_entry(page, &n->held, lru) {
			unsigned long block = page_to_pfn(page) >> pageblock_order;
			unsigned long c = xa_to_value(xa_load(&seen, block));

			xa_store(&seen, block, xa_mk_value(c + 1), GFP_KERNEL);
		}
	}
	list_for_each_entry_safe(page, next, &n->held, lru) {
		unsigned long block = page_to_pfn(page) >> pageblock_order;
		struct zone *zone = page_zone(page);

		if (keep_one && !xa_load(&seen, block) &&
		    !xa_err(xa_store(&seen, block, xa_mk_value(1), GFP_KERNEL)))
			continue;
		if (!keep_one && xa_to_value(xa_load(&seen, block)) != per_block)
			continue;
		if (zone_page_state(zone, NR_FREE_PAGES) >= ns_target(zone, state))
			continue;
		list_del(&page->lru);
		__free_pages(page, NS_CHUNK);
		n->nr_held--;
		cond_resched();
	}
	xa_destroy(&seen);
}

/*
 * SPLIT: split every chunk we hold into base pages and give the first half
 * back, so the free memory is in blocks of half a chunk at most, each next
 * to our other half, which nothing can move.
 */
static void ns_split_chunks(struct ns_node *n)
{
	struct page *page, *next;
	int i, half = 1 << (NS_CHUNK - 1);

	list_for_each_entry_safe(page, next, &n->held, lru) {
		list_del(&page->lru);
		n->nr_held--;
		split_page(page, NS_CHUNK);
		for (i = 0; i < half; i++)
			__free_page(page + i);
		for (; i < 2 * half; i++) {
			list_add(&page[i].lru, &n->held0);
			n->nr_held0++;
		}
		cond_resched();
	}
}

/*
 * A block of 2^@order pages where we hold nothing was in use when we
 * swept (FRAG: pageblocks; SPLIT: 64K blocks).  If its pages are movable,
 * compaction could empty it into the free pages we gave back: hold a
 * reference on one of its pages so that migration fails.
 */
static void ns_pin_used_blocks(int nid, struct ns_node *n, unsigned int order)
{
	unsigned long nr = 1UL << order;
	pg_data_t *pgdat = NODE_DATA(nid);
	struct xarray ours;
	struct page *page;
	int zt;

	xa_init(&ours);
	list_for_each_entry(page, &n->held, lru)
		xa_store(&ours, page_to_pfn(page) >> order, xa_mk_value(1),
			 GFP_KERNEL);
	list_for_each_entry(page, &n->held0, lru)
		xa_store(&ours, page_to_pfn(page) >> order, xa_mk_value(1),
			 GFP_KERNEL);

	for (zt = 0; zt < MAX_NR_ZONES; zt++) {
		struct zone *zone = &pgdat->node_zones[zt];
		unsigned long pfn, end;

		if (!populated_zone(zone))
			continue;
		pfn = ALIGN_DOWN(zone->zone_start_pfn, nr);
		end = zone_end_pfn(zone);
		for (; pfn < end; pfn += nr) {
			unsigned long block = pfn >> order, p;

			if (xa_load(&ours, block) || xa_load(&n->refs, block))
				continue;
			for (p = max(pfn, zone->zone_start_pfn);
			     p < min(pfn + nr, end); p++) {
				struct folio *folio;

				page = pfn_to_online_page(p);
				if (!page || PageBuddy(page))
					continue;
				folio = page_folio(page);
				if (!folio_try_get(folio))
					continue;
				if (page_folio(page) != folio ||
				    xa_err(xa_store(&n->refs, block, folio, GFP_KERNEL))) {
					folio_put(folio);
					continue;
				}
				n->nr_refs++;
				break;
			}
			cond_resched();
		}
	}
	xa_destroy(&ours);
}

static int ns_set(int nid, enum ns_state state)
{
	struct ns_node *n = ns_nodes[nid];
	int i;

	ns_release(n);
	if (state == NS_FREE)
		return 0;
	ns_take_all(nid, n);
	if (state == NS_SPLIT) {
		ns_split_chunks(n);
		ns_pin_used_blocks(nid, n, NS_CHUNK);
		/*
		 * The halves went to a per-cpu list; merge them now.  Pages
		 * others freed to per-cpu lists during the sweep merge too,
		 * and can complete a 64K block nobody pinned: sweep again.
		 */
		ns_take_all(nid, n);
		ns_split_chunks(n);
		ns_drain();
	} else {
		/*
		 * The base pages come through the per-cpu lists, whose
		 * refills leave pages there that a later drain frees above
		 * the target: drain and take again until it holds.
		 */
		for (i = 0; (state == NS_FULL || state == NS_LOW) && i < 4; i++) {
			ns_take_small(nid, n, state);
			ns_drain();
		}
		ns_give_back(n, state);
	}
	if (state == NS_FRAG)
		ns_pin_used_blocks(nid, n, pageblock_order);
	n->state = state;
	return 0;
}

static ssize_t ns_write(struct file *file, const char __user *ubuf,
			size_t count, loff_t *ppos)
{
	int nid = (long)file_inode(file)->i_private;
	char buf[16];
	int state, ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	state = sysfs_match_string(ns_names, buf);
	if (state < 0)
		return -EINVAL;

	mutex_lock(&ns_lock);
	ret = ns_set(nid, state);
	mutex_unlock(&ns_lock);
	return ret ? ret : count;
}

static ssize_t ns_read(struct file *file, char __user *ubuf, size_t count,
		       loff_t *ppos)
{
	int nid = (long)file_inode(file)->i_private;
	struct ns_node *n = ns_nodes[nid];
	char buf[128];
	int len;

	mutex_lock(&ns_lock);
	len = scnprintf(buf, sizeof(buf), "%s held=%lu held0=%lu refs=%lu\n",
			ns_names[n->state], n->nr_held, n->nr_held0, n->nr_refs);
	mutex_unlock(&ns_lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static const struct file_operations ns_fops = {
	.owner = THIS_MODULE,
	.read = ns_read,
	.write = ns_write,
	.llseek = default_llseek,
};

static void ns_cleanup(void)
{
	int nid;

	debugfs_remove_recursive(ns_dir);
	for_each_node(nid) {
		if (!ns_nodes[nid])
			continue;
		ns_release(ns_nodes[nid]);
		kfree(ns_nodes[nid]);
		ns_nodes[nid] = NULL;
	}
}

static int __init ns_init(void)
{
	char name[16];
	int nid, ret;

	ret = ns_find_drain();
	if (ret)
		return ret;
	ns_dir = debugfs_create_dir("nodestate", NULL);
	for_each_node_state(nid, N_MEMORY) {
		struct ns_node *n = kzalloc(sizeof(*n), GFP_KERNEL);

		if (!n) {
			ns_cleanup();
			return -ENOMEM;
		}
		INIT_LIST_HEAD(&n->held);
		INIT_LIST_HEAD(&n->held0);
		xa_init(&n->refs);
		ns_nodes[nid] = n;
		snprintf(name, sizeof(name), "node%d", nid);
		debugfs_create_file(name, 0600, ns_dir, (void *)(long)nid, &ns_fops);
	}
	return 0;
}

static void __exit ns_exit(void)
{
	mutex_lock(&ns_lock);
	ns_cleanup();
	mutex_unlock(&ns_lock);
}

module_init(ns_init);
module_exit(ns_exit);
MODULE_DESCRIPTION("Put NUMA nodes into FREE, FRAG, FULL, LOW or SPLIT allocation states for tests");
MODULE_LICENSE("GPL");
