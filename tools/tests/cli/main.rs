//! End-to-end tests of the `docsuggest` binary: each spawns the real executable with a
//! temporary HOME and store.

mod commands;
mod common;
mod demo;
mod protocol;
mod replay;
mod transfer;
