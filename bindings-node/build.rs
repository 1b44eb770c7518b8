//! Sets the linker flags a Node addon needs (undefined N-API symbols resolved by node at load time).
fn main() {
    napi_build::setup();
}
