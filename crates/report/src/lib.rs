//! keylab-report: under construction.
