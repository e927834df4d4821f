-- The runtime matrix's program for PostgreSQL's LLVM JIT
-- (test/scripts/runtime_matrix.py), read by a single-user backend: every
-- query is compiled (jit_above_cost 0) and nothing inlined, so the compiled
-- qual (evalexpr_N_M) calls int4mod for each row, where the matrix stops.
select sum(a % 7) from generate_series(1, 100000) a where a % 3 = 0;
