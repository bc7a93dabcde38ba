-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- The pairs: candidates whose client end has no other candidate and whose
-- server end has no other either.  An end with two (one 32-bit position
-- met twice with a 4-tuple missing) is left unpaired rather than guessed:
-- vpath then marks its request incomplete (summary.sql counts them).
SELECT c_host, c_cookie, s_host, s_cookie, req_seq_start
FROM vpath_candidates
WHERE (c_host, c_cookie, req_seq_start) IN
      (SELECT c_host, c_cookie, req_seq_start FROM vpath_candidates
       GROUP BY c_host, c_cookie, req_seq_start HAVING count() = 1)
  AND (s_host, s_cookie, s_seq) IN
      (SELECT s_host, s_cookie, s_seq FROM vpath_candidates
       GROUP BY s_host, s_cookie, s_seq HAVING count() = 1)
ORDER BY c_host, c_cookie, req_seq_start
FORMAT TabSeparated
