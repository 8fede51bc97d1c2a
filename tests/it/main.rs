//! The integration test binary: one module per topic.

mod golden;
mod learning;
mod pipeline;
mod props;
