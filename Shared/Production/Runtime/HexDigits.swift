extension UInt8 {
    /// True for an ASCII hex digit (0-9, a-f, A-F): the one check of hex text (APNs tokens, apns-ids).
    public var isHexDigit: Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(self)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(self)
    }
}

extension UInt8 {
    /// The value of an ASCII hex digit (0–15), nil for any other byte: the one hex-digit decoder.
    public var hexValue: UInt8? {
        switch self {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): self - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): self - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): self - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Lower-case hex text of bytes: the one encoder (bytea parameters, apns-ids, the record's slots).
public enum HexText {
    /// "0123456789abcdef".
    public static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    /// Appends the two lower-case digits of `byte`.
    @inline(__always)
    public static func append(_ byte: UInt8, to out: inout [UInt8]) {
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0x0f)])
    }
}
