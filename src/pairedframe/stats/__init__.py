"""Pure-numpy statistics on arrays: no polars, no DuckDB, so each piece can be tested on plain arrays."""
