/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Turns the call-tree text carried by replies (see proto.h) into JSON for
 * the ground-truth file, plus a short "a(b(c),d)" form for people. */
#ifndef VAPP_TREE_H
#define VAPP_TREE_H

#include <cjson/cJSON.h>
#include "proto.h"

/* Parses one call "NAME@ADDR#ORD~RT[...]" into a JSON object
 * {"server","client","conn_index","rt_ns","calls":[...]} and appends the
 * short form to path.  NULL on malformed text. */
cJSON *vapp_tree__parse(const char *text, struct vapp_buf *path);

#endif
