/// The JSON writing primitives of the hand-written encoders (`PushJobEncoder`, `PushOutcomeEncoder`): the same bytes
/// `JSONEncoder` writes for integers, doubles and strings (slashes unescaped), appended to a byte buffer.
public enum JSONBytes {
    /// Decimal digits, as `String(value)` writes them, without making a String.
    public static func integer(_ value: some BinaryInteger, _ out: inout [UInt8]) {
        guard let value = Int64(exactly: value) else {
            out.append(contentsOf: String(value).utf8)
            return
        }
        if value < 0 { out.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = digits.count
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(truncatingIfNeeded: magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            out.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start...]))
        }
    }

    /// Fixed text (keys and punctuation), copied as bytes.
    @inline(__always)
    public static func literal(_ text: StaticString, _ out: inout [UInt8]) {
        out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// Whole numbers as integers ("10"), like JSONEncoder; others with Swift's shortest round-trip text.
    public static func double(_ value: Double, _ out: inout [UInt8]) {
        if value == value.rounded(), abs(value) < 1e15 {
            integer(Int64(value), &out)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A JSON string: `"` and `\` escaped, control characters as \b \f \n \r \t or \u00XX, the rest as is.
    public static func string(_ text: String, _ out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        // Tokens and ids almost never need escaping: copy their bytes in one go when none does.
        var text = text
        let copied = text.withUTF8 { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") }) else { return false }
            out.append(contentsOf: bytes)
            return true
        }
        if copied {
            out.append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\"")])
            case UInt8(ascii: "\\"): out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case 0x08: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "b")])
            case 0x0C: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "f")])
            case 0x0A: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case 0x0D: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            case 0x09: out.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case 0x00..<0x20:
                out.append(contentsOf: Array(#"\u00"#.utf8))
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0x0F)])
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }
}
