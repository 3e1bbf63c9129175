# planner: see planner/planner.h
