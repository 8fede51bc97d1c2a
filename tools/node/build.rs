//! Linker settings for a Node module (symbols resolved when Node loads it).

fn main() {
    napi_build::setup();
}
