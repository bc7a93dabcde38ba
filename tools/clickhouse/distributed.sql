-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- Every shard's vpath_ends_local as one table, rows sharded by host.  Run
-- where queries start (any shard, or all).  CLUSTER is the cluster of the
-- server's <remote_servers> (vpath-clickhouse --cluster).
CREATE TABLE IF NOT EXISTS vpath_ends AS vpath_ends_local
ENGINE = Distributed(CLUSTER, currentDatabase(), vpath_ends_local, cityHash64(host));
