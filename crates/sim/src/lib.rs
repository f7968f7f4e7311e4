//! keylab-sim: under construction.
