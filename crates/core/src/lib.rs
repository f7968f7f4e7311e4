//! keylab-core: under construction.
