-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- The cross-host pairing of analyzer/matcher.c in SQL.  A client end and a
-- server end are one call when their requests begin at the same stream
-- position (random per connection: the initial sequence numbers), their
-- 4-tuples are each other's reverse when both were recorded, their replies
-- begin at the same position when both have one, and a loopback address
-- does not leave its host.  Each shard joins its client ends with every
-- server end (GLOBAL: the server ends are gathered once and sent to every
-- shard); the candidates come back here.
DROP TABLE IF EXISTS vpath_candidates;
CREATE TABLE vpath_candidates ENGINE = Memory AS
SELECT host AS c_host, cookie AS c_cookie, s_host, s_cookie, s_seq, req_seq_start
FROM vpath_ends
GLOBAL ALL INNER JOIN
(
    SELECT req_seq_start, req_seq_start AS s_seq, host AS s_host, cookie AS s_cookie,
           have_tuple AS s_have_tuple, local AS s_local, remote AS s_remote, has_rep AS s_has_rep,
           rep_seq_start AS s_rep_seq_start
    FROM vpath_ends
    WHERE side = 1
) USING (req_seq_start)
WHERE side = 0
  AND (NOT (have_tuple AND s_have_tuple) OR (local = s_remote AND remote = s_local))
  AND (NOT (has_rep AND s_has_rep) OR rep_seq_start = s_rep_seq_start)
  AND NOT (host != s_host
           AND ((have_tuple AND (startsWith(remote, '127.') OR startsWith(remote, '[::1]:')))
             OR (s_have_tuple AND (startsWith(s_remote, '127.') OR startsWith(s_remote, '[::1]:')))));
-- A host's own stages may begin a server end's request earlier than the
-- analysis of all hosts does: a read after a reply is the tail of that
-- request or the next one, and only the sender's messages tell (PHP-FPM
-- reads a FastCGI request's last record after replying).  Such a server end
-- is found by its reply, which begins where the client's does, on the
-- reversed 4-tuple, its request range holding the client's request start;
-- both ends are then named by the client's start, where the analysis of all
-- hosts begins the server's request too.
INSERT INTO vpath_candidates
SELECT host AS c_host, cookie AS c_cookie, s_host, s_cookie, s_seq, req_seq_start
FROM vpath_ends
GLOBAL ALL INNER JOIN
(
    SELECT rep_seq_start, req_seq_start AS s_seq, req_seq_end AS s_seq_end, host AS s_host,
           cookie AS s_cookie, local AS s_local, remote AS s_remote
    FROM vpath_ends
    WHERE side = 1 AND has_rep AND have_tuple
) USING (rep_seq_start)
WHERE side = 0 AND has_rep AND have_tuple
  AND local = s_remote AND remote = s_local
  AND req_seq_start != s_seq
  AND (toUInt64(req_seq_start) + 4294967296 - s_seq) % 4294967296
      < (toUInt64(s_seq_end) + 4294967296 - s_seq) % 4294967296;
