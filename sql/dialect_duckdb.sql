-- DuckDB-specific constructs, kept in this one file: every other file in sql/ is portable SQL
-- (standard joins and window functions) that calls these macros by name. On another engine
-- (e.g. Spark SQL) define functions with the same names and meaning (Spark has no aggregate
-- macros: pairedframe.engines.spark_sql expands both calls into ordered folds):
--
-- pf_seqsum(x, k):  aggregate; the sum of x added one value at a time in ascending k order
--                   (not a parallel or tree-shaped sum), as trec_eval's loops add. Floating-point
--                   addition is not associative, so this makes the last bit reproducible and
--                   equal to the polars engine's sequential cum_sum.
-- pf_concat(s, k):  aggregate; the strings s concatenated in ascending k order, no separator.
CREATE OR REPLACE TEMP MACRO pf_seqsum(x, k) AS sum(x ORDER BY k);
CREATE OR REPLACE TEMP MACRO pf_concat(s, k) AS string_agg(s, '' ORDER BY k);
