//! keylab-keys: under construction.
