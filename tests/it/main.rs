//! The integration test binary: one module per topic.

mod agents;
mod dependencies;
mod evaluate;
mod evidence;
mod forgetting;
mod golden;
mod learning;
mod ownership;
mod per_file;
mod pipeline;
mod props;
mod recompute;
mod restart;
mod scenes;
mod templates;
mod tidy;
mod zero_config;
