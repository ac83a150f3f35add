/// Why `FastJSONDecoder` rejected its input as JSON: what was wrong and the byte offset where it was found.
///
/// Decoding failures of well-formed JSON (missing keys, wrong types) are reported as `DecodingError`, like
/// Foundation's `JSONDecoder`; a `FastJSONError` is the `underlyingError` of a `DecodingError.dataCorrupted`
/// with an empty coding path.
public struct FastJSONError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong.
    public enum Reason: Sendable, Hashable {
        /// The input ended inside a value.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here.
        case unexpectedByte(UInt8)
        /// A backslash escape other than \" \\ \/ \b \f \n \r \t \uXXXX.
        case invalidEscape
        /// A \u escape without four hex digits, or a lone or unpaired UTF-16 surrogate.
        case invalidUnicodeEscape
        /// A raw byte below 0x20 inside a string.
        case controlCharacterInString
        /// A string that is not valid UTF-8.
        case invalidUTF8
        /// A number that does not follow JSON's grammar (leading zeros, "1.", ".5", "1e", "-").
        case invalidNumber
        /// Non-whitespace after the top-level value.
        case trailingData
        /// Arrays and objects nested deeper than the limit.
        case tooDeep(limit: Int)
        /// The same key twice in one object.
        case duplicateKey(String)
        /// The input is larger than the tape can address (4 GiB).
        case tooLarge
    }

    public var reason: Reason
    /// Byte offset into the input where the problem was detected.
    public var offset: Int

    public init(_ reason: Reason, at offset: Int) {
        self.reason = reason
        self.offset = offset
    }

    public var description: String {
        let what: String
        switch reason {
        case .unexpectedEnd: what = "unexpected end of input"
        case .unexpectedByte(let byte):
            what = byte >= 0x20 && byte < 0x7F ? "unexpected character '\(Character(Unicode.Scalar(byte)))'"
                : "unexpected byte 0x\(String(byte, radix: 16))"
        case .invalidEscape: what = "invalid escape sequence"
        case .invalidUnicodeEscape: what = "invalid \\u escape or unpaired surrogate"
        case .controlCharacterInString: what = "unescaped control character in string"
        case .invalidUTF8: what = "invalid UTF-8"
        case .invalidNumber: what = "invalid number"
        case .trailingData: what = "unexpected data after the top-level value"
        case .tooDeep(let limit): what = "nesting deeper than \(limit)"
        case .duplicateKey(let key): what = "duplicate key \(key.debugDescription)"
        case .tooLarge: what = "input too large"
        }
        return "\(what) at byte \(offset)"
    }
}
