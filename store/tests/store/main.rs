//! The store's integration tests, one binary with a module per topic.

mod common;
mod durability;
mod fail_open;
mod fixture;
mod plateau;
mod props;
mod regression;
mod restart;
mod waiting;
