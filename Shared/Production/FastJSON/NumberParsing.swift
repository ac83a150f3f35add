/// Converts the bytes of a JSON number (grammar already checked by the parser) like JSONDecoder does:
/// integers exactly, fractions and exponents through `Double` (so 1.0 and 1e2 read as Int, 1.5 does not).
enum NumberParsing {
    /// The value as `T` when it is exactly representable, else nil.
    static func integer<T: FixedWidthInteger>(_ raw: UnsafeBufferPointer<UInt8>, integral: Bool, negative: Bool,
                                              as: T.Type) -> T? {
        if integral {
            var magnitude: UInt64 = 0
            for index in (negative ? 1 : 0)..<raw.count {
                let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times.addingReportingOverflow(UInt64(raw[index] &- UInt8(ascii: "0")))
                if overflow1 || overflow2 { return nil }
                magnitude = sum
            }
            if !negative { return T(exactly: magnitude) }
            if magnitude == 0 { return 0 }
            guard T.isSigned, magnitude <= UInt64(1) << 63 else { return nil }
            return T(exactly: 0 &- Int64(truncatingIfNeeded: magnitude))
        }
        guard let double = self.double(raw) else { return nil }
        return T(exactly: double)
    }

    private static let powers: [Double] = [1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12,
                                           1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22]

    /// The correctly rounded value; nil when it overflows to infinity or a non-zero number underflows to zero
    /// (JSONDecoder rejects both).
    static func double(_ raw: UnsafeBufferPointer<UInt8>) -> Double? {
        // Clinger's fast path: up to 15 significant digits and a power of ten up to 22 are exact in Double.
        var index = 0
        let negative = raw[0] == UInt8(ascii: "-")
        if negative { index = 1 }
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        var nonZero = false
        while index < raw.count, raw[index] &- UInt8(ascii: "0") < 10 {
            let digit = raw[index] &- UInt8(ascii: "0")
            if digit != 0 { nonZero = true }
            if mantissa != 0 || digit != 0 { digits += 1 }
            if digits <= 19 { mantissa = mantissa &* 10 &+ UInt64(digit) } else { exponent += 1 }
            index += 1
        }
        if index < raw.count, raw[index] == UInt8(ascii: ".") {
            index += 1
            while index < raw.count, raw[index] &- UInt8(ascii: "0") < 10 {
                let digit = raw[index] &- UInt8(ascii: "0")
                if digit != 0 { nonZero = true }
                if mantissa != 0 || digit != 0 { digits += 1 }
                if digits <= 19 { mantissa = mantissa &* 10 &+ UInt64(digit); exponent -= 1 }
                index += 1
            }
        }
        var explicit = 0
        if index < raw.count {  // e or E
            index += 1
            var negativeExponent = false
            if raw[index] == UInt8(ascii: "-") { negativeExponent = true; index += 1 } else if raw[index] == UInt8(ascii: "+") { index += 1 }
            while index < raw.count {
                if explicit < 100_000 { explicit = explicit * 10 + Int(raw[index] &- UInt8(ascii: "0")) }
                index += 1
            }
            if negativeExponent { explicit = -explicit }
        }
        exponent += explicit
        if !nonZero { return negative ? -0.0 : 0.0 }
        if digits <= 15 && exponent >= -22 && exponent <= 22 {
            var value = Double(mantissa)
            if exponent < 0 { value /= powers[-exponent] } else { value *= powers[exponent] }
            return negative ? -value : value
        }
        guard let value = Double(String(decoding: raw, as: UTF8.self)), value.isFinite, value != 0 else { return nil }
        return value
    }

    /// The value as Float (nil when out of range), parsed directly to avoid double rounding.
    static func float(_ raw: UnsafeBufferPointer<UInt8>) -> Float? {
        guard let value = Float(String(decoding: raw, as: UTF8.self)), value.isFinite else { return nil }
        if value == 0, raw.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) {
            // Only a non-zero mantissa underflowing is an error; digits in the exponent don't count.
            let mantissa = raw.prefix { $0 != UInt8(ascii: "e") && $0 != UInt8(ascii: "E") }
            if mantissa.contains(where: { $0 >= UInt8(ascii: "1") && $0 <= UInt8(ascii: "9") }) { return nil }
        }
        return value
    }
}
