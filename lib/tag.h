/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * tag.h - tag propagation along a writer's path, shared by tag_set/clear,
 * delete and range tagging.
 */
#ifndef RCURADIX_TAG_H
#define RCURADIX_TAG_H

#include "descend.h"

/* Tag word @tag of the node of @step: bit i for its slot or entry i. */
RT_HIDDEN unsigned long rt_step_tags(const struct radix_tree_root *root,
				     const struct rt_path_step *step, unsigned int tag);
/* Set @leaf_bits of @tag in @path's leaf, then upward as needed. */
RT_HIDDEN void rt_tag_set_path(struct radix_tree_root *root, const struct rt_path *path,
			       unsigned int tag, unsigned long leaf_bits);
/* Clear @leaf_bits of @tag in @path's leaf, then upward as needed. */
RT_HIDDEN void rt_tag_clear_path(struct radix_tree_root *root, const struct rt_path *path,
				 unsigned int tag, unsigned long leaf_bits);
/* Clear every tag of the item in @path's leaf slot (delete). */
RT_HIDDEN void rt_tags_clear_slot(struct radix_tree_root *root, const struct rt_path *path);

#endif /* RCURADIX_TAG_H */
