/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tree.h - what tree.c offers the IDR layer above it: inserts into a tree
 * of full nodes only, deletes by key and destroy, with the lock already
 * held.
 */
#ifndef RCURADIX_TREE_H
#define RCURADIX_TREE_H

#include "preload.h"
#include "tag.h"

/*
 * rt_full_insert_locked() - insert @item (or RT_IDR_RESERVED) at free key
 * @index (at most RT_IDR_MAX_KEY) of IDR tree @root, keeping the free
 * words: its slot stays free if @item_free (an IDA bitmap with clear
 * bits), else it is taken.  @path: the path to @index, as rt_descend()
 * records it (rt_free_find() gives it), with no change to the tree since.
 * The nodes it needs are full nodes, built privately and published with
 * one store; key 0 of an empty IDA tree needs none (the root item,
 * internal.h).  @gfp: whether it may allocate, else it takes the thread's
 * reserve (idr_preload()).  Tree lock held.  Returns 0, -EEXIST (the key
 * holds an entry) or -ENOMEM; on error the tree is unchanged.
 */
RT_HIDDEN int rt_full_insert_locked(struct radix_tree_root *root, unsigned long index,
				    const struct rt_path *path, void *item, bool item_free,
				    gfp_t gfp);

/*
 * rt_delete_locked() - delete the entry at @index, as radix_tree_delete()
 * (an IDR tree's free words kept too).  Tree lock held; the caller's
 * outermost unlock hands emptied nodes to call_rcu (rt_writer_done()).
 * Returns the entry, or NULL if the key held none.
 */
RT_HIDDEN void *rt_delete_locked(struct radix_tree_root *root, unsigned long index);

/*
 * rt_destroy_locked() - as radix_tree_destroy(): unpublish the whole tree
 * and hand its nodes to call_rcu.  Tree lock held.
 */
RT_HIDDEN void rt_destroy_locked(struct radix_tree_root *root);

#endif /* RCURADIX_TREE_H */
