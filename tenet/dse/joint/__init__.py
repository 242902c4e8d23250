"""The joint search: array mapping, tile sizes, loop orders and bypass together, by branch and
bound on sound lower bounds, with a certificate (best found, proven bound, gap)."""
