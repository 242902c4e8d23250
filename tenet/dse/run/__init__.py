"""Where every search runs: the run loop (engine, store, budgets, progress, the parts it
stores and resumes), the engines, the workers of design points, the results store, the count
cache and the execution options."""
