//! keylab-server: under construction.
