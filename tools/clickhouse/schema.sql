-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- The call ends of the hosts this shard holds: one row per exchange (one end
-- of a call) of a local file, as `vpath-analyze calls` prints them
-- (docs/clickhouse.md).  Run on every shard.  A host's ends all go to one
-- shard (vpath_ends shards by host).
CREATE TABLE IF NOT EXISTS vpath_ends_local
(
    host String,            -- BOOT_ID/NETNS: the host as the analyzer groups recordings
    hostname String,
    id UInt64,              -- the call's id in its local file
    side UInt8,             -- 0 client end (connected socket), 1 server end (accepted)
    cookie UInt64,          -- its socket (unique per boot)
    netns UInt32,
    have_tuple UInt8,
    local String,           -- 10.0.0.1:80, [2001:db8::1]:443, or ? when not recorded
    remote String,
    conn_index UInt32,      -- 0-based, among its socket's exchanges
    req_seq_start UInt32,   -- the request's stream range [start, end) mod 2^32:
    req_seq_end UInt32,     --   the same numbers at both ends of a call
    req_first_ns UInt64,    -- host monotonic clock
    req_last_ns UInt64,
    req_bytes UInt64,
    has_rep UInt8,
    rep_seq_start UInt32,
    rep_seq_end UInt32,
    rep_first_ns UInt64,
    rep_last_ns UInt64,
    rep_bytes UInt64,
    pid UInt32,
    proc String,
    comm String,
    flags UInt32,           -- VPL_* of analyzer/localcalls.h
    parent UInt64,          -- client end: the id of the server end of its host it was linked under, 0: root
    basis String,           -- client end: evidence of that link (evidence.h)
    exact UInt8,
    wall_offset_ns Int64    -- wall clock - monotonic clock of the host at its recording's start
)
ENGINE = MergeTree
ORDER BY (req_seq_start, host, cookie);
