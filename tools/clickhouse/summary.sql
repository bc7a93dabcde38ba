-- SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
-- What the pairing found, one line: ends loaded, candidates, and the ends
-- left unpaired because they had more than one candidate.
SELECT
    (SELECT count() FROM vpath_ends WHERE side = 0) AS client_ends,
    (SELECT count() FROM vpath_ends WHERE side = 1) AS server_ends,
    (SELECT count() FROM vpath_candidates) AS candidates,
    (SELECT count() FROM (SELECT c_host FROM vpath_candidates
                          GROUP BY c_host, c_cookie, req_seq_start HAVING count() > 1)) AS ambiguous_client_ends,
    (SELECT count() FROM (SELECT s_host FROM vpath_candidates
                          GROUP BY s_host, s_cookie, s_seq HAVING count() > 1)) AS ambiguous_server_ends
FORMAT TSKV
