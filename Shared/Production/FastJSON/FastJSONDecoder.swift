/// Decodes `Decodable` values from JSON bytes, like Foundation's `JSONDecoder` with default strategies but
/// several times faster: one strict pass builds a compact tape of the document, then a `Decoder` reads the
/// tape without building dictionaries.
///
/// Behaviour matches `JSONDecoder` (values, `DecodingError` cases and coding paths) except that the input is
/// held to RFC 8259 more strictly: trailing commas and duplicate keys are rejected (JSONDecoder accepts them).
/// Malformed input throws `DecodingError.dataCorrupted` with an empty coding path whose `underlyingError` is a
/// `FastJSONError` naming the byte offset. Numbers: integers are exact; a number with a fraction or exponent
/// decodes as an integer type only when its value is exactly representable (1.0 and 1e2 do, 1.5 does not),
/// as with JSONDecoder. No special handling of `Date`, `Data`, `URL` or `Decimal` (they use their own
/// `Decodable` conformances), and no key-decoding strategies.
public struct FastJSONDecoder: Sendable {
    /// Arrays and objects nested deeper than this are rejected (JSONDecoder's limit is also 512).
    public var maximumDepth: Int

    public init(maximumDepth: Int = 512) {
        self.maximumDepth = maximumDepth
    }

    /// Decodes a `T` from `bytes`.
    /// - Throws: `DecodingError` (malformed JSON as `.dataCorrupted` with a `FastJSONError` underneath).
    public func decode<T: Decodable>(_ type: T.Type, from bytes: [UInt8]) throws -> T {
        let tape = try bytes.withUnsafeBufferPointer { buffer in try parse(buffer) }
        return try TapeDecoder(tape: tape, index: 0, userInfo: [:]).decode(T.self, at: 0)
    }

    /// Decodes a `T` from `bytes`, taking array elements of the types `cache` remembers from it when their
    /// text is unchanged (see `FastJSONReuseCache`). The result equals `decode(_:from:)`'s.
    public func decode<T: Decodable & Sendable>(_ type: T.Type, from bytes: [UInt8], reusing cache: FastJSONReuseCache) throws -> T {
        let tape = try bytes.withUnsafeBufferPointer { buffer in try parse(buffer) }
        return try cache.storage.withLock { storage throws -> T in
            try withUnsafeMutablePointer(to: &storage) { pointer in
                try TapeDecoder(tape: tape, index: 0, userInfo: [:], reuse: pointer, maximumSlots: cache.maximumSlots)
                    .decode(T.self, at: 0)
            }
        }
    }

    /// Checks that `bytes` are one well-formed JSON document.
    /// - Throws: `FastJSONError` with the byte offset of the first problem.
    public func validate(_ bytes: [UInt8]) throws(FastJSONError) {
        _ = try bytes.withUnsafeBufferPointer { buffer throws(FastJSONError) in
            try TapeParser.parse(buffer, maximumDepth: maximumDepth)
        }
    }

    private func parse(_ buffer: UnsafeBufferPointer<UInt8>) throws -> JSONTape {
        do {
            return try TapeParser.parse(buffer, maximumDepth: maximumDepth)
        } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(
                codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
        }
    }
}
