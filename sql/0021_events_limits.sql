-- 0021 (issue 9, items 16 and 17): daily caps on account mail, and no raw
-- client address in the token endpoint's failure counter.

-- token_failures.addr is now fs_rl_address_key (include/fs_ratelimit.h):
-- HMAC-SHA-256 under the pepper of the client's /64 (IPv6) or address (IPv4).
-- Rows written before hold raw addresses: drop them (the counters only live
-- a minute; an UNLOGGED table loses them in a crash anyway).
DELETE FROM token_failures WHERE length(addr) <> 64 OR addr !~ '^[0-9a-f]+$';
COMMENT ON COLUMN token_failures.addr IS
    'fs_rl_address_key: keyed hash of the client /64 (IPv6) or address (IPv4), never the raw address';
