import COpenSSL

/// Reads and clears OpenSSL's (thread-local) error queue as one line of text.
public enum OpenSSLErrorQueue {
    /// The queued errors joined by "; " (at most eight), then the queue is empty.
    public static func drain() -> String {
        var parts: [String] = []
        var buffer = [CChar](repeating: 0, count: 256)
        for _ in 0..<8 {
            let code = ERR_get_error()
            if code == 0 { break }
            ERR_error_string_n(code, &buffer, buffer.count)
            parts.append(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        ERR_clear_error()
        return parts.isEmpty ? "unknown OpenSSL error" : parts.joined(separator: "; ")
    }

    /// Forgets whatever is queued (after a failure that is reported another way).
    public static func clear() { ERR_clear_error() }
}
