//! What a caught panic says, for an answer or a reason: its message, bounded and printable.

/// The message of the panic `payload` (as `catch_unwind` hands it over), cut after 200 bytes
/// with invisible code points escaped.
pub fn message(payload: &(dyn std::any::Any + Send)) -> String {
    let text = payload
        .downcast_ref::<&str>()
        .copied()
        .or_else(|| payload.downcast_ref::<String>().map(String::as_str))
        .unwrap_or("a panic without a message");
    docsuggest_schema::text::bounded(text, 200)
}
