import Foundation

/// Reads the token of an `Authorization: Bearer <token>` header value.
enum BearerToken {
    /// The token, or nil when the value is missing, too short or not of the Bearer scheme (compared
    /// case-insensitively). Whitespace around the value and between scheme and token is ignored.
    ///
    /// ASCII values (every real header) are scanned byte by byte; others take Foundation's
    /// Unicode-aware trimming, which gives the same answer.
    static func extract(_ header: String?) -> String? {
        guard let header else { return nil }
        let bytes = Array(header.utf8)
        guard bytes.allSatisfy({ $0 < 0x80 }) else { return slowExtract(header) }
        func isBlank(_ byte: UInt8) -> Bool { byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") }
        var start = 0
        var end = bytes.count
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        guard end - start > 7 else { return nil }
        let scheme: [UInt8] = Array("bearer ".utf8)
        for offset in 0..<7 {
            let byte = bytes[start + offset]
            let lower = (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) ? byte + 32 : byte
            guard lower == scheme[offset] else { return nil }
        }
        start += 7
        while start < end, isBlank(bytes[start]) { start += 1 }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }

    private static func slowExtract(_ header: String) -> String? {
        let value = header.trimmingCharacters(in: .whitespaces)
        guard value.count > 7, value.prefix(7).lowercased() == "bearer " else { return nil }
        return String(value.dropFirst(7)).trimmingCharacters(in: .whitespaces)
    }
}
