import Runtime

/// A `text[]` literal for one query parameter (`$n::text[]`), so that a whole batch travels as a
/// few array parameters of one statement.
///
/// Every element is double-quoted, with `\` and `"` backslash-escaped, so any text (commas, braces,
/// spaces, `NULL`) arrives unchanged; the literal is still a bound parameter, never part of the SQL.
public enum PostgresTextArray {
    /// `{"a","b\"c"}` for `["a", "b\"c"]`; `{}` for none.
    public static func literal(_ elements: some Sequence<String>) -> String {
        var builder = Builder()
        for element in elements { builder.append(element) }
        return builder.literal
    }

}

extension PostgresTextArray {
    /// Builds one `text[]` literal element by element straight into bytes: a batch write's many array parameters
    /// without an intermediate `String` per value (numbers and hex are written as digits, ids copied).
    public struct Builder: Sendable {
        private var out: [UInt8] = [UInt8(ascii: "{")]
        private var empty = true

        public init(capacity: Int = 0) { out.reserveCapacity(capacity) }

        private mutating func open() {
            if !empty { out.append(UInt8(ascii: ",")) }
            empty = false
            out.append(UInt8(ascii: "\""))
        }

        /// A text element (escaped like `literal`).
        public mutating func append(_ text: String) {
            open()
            var text = text
            text.withUTF8 { bytes in
                if !bytes.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") }) {
                    out.append(contentsOf: bytes)
                    return
                }
                for byte in bytes {
                    if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { out.append(UInt8(ascii: "\\")) }
                    out.append(byte)
                }
            }
            out.append(UInt8(ascii: "\""))
        }

        /// A number element (for `bigint[]`, `int[]`).
        public mutating func append(_ number: Int64) {
            open()
            if number == 0 {
                out.append(UInt8(ascii: "0"))
            } else {
                var value = number.magnitude
                if number < 0 { out.append(UInt8(ascii: "-")) }
                let start = out.count
                while value > 0 {
                    out.append(UInt8(ascii: "0") + UInt8(value % 10))
                    value /= 10
                }
                out[start...].reverse()
            }
            out.append(UInt8(ascii: "\""))
        }

        /// An element of the lower-case hex digits of the bytes `write` appends (for `decode(x, 'hex')` into bytea).
        public mutating func appendHex(_ write: (inout [UInt8]) -> Void) {
            open()
            var bytes: [UInt8] = []
            write(&bytes)
            for byte in bytes { HexText.append(byte, to: &out) }
            out.append(UInt8(ascii: "\""))
        }

        /// The literal.
        public var literal: String { String(decoding: out + [UInt8(ascii: "}")], as: UTF8.self) }
    }
}
