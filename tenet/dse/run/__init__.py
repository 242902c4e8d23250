"""Where design points are evaluated: engines, workers, the results store, the count cache and the
execution options."""
