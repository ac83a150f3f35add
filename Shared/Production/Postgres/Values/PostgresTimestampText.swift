import Runtime

/// Parses PostgreSQL's ISO date/time text (`DateStyle=ISO`) without Foundation calendars.
enum PostgresTimestampText {
    /// Microseconds since 1970-01-01 UTC for `YYYY-MM-DD[ HH:MM:SS[.ffffff]][±HH[:MM[:SS]]]`;
    /// `Int64.max` for `infinity`, `Int64.min` for `-infinity`; nil for anything else (BC dates too).
    static func microsecondsSince1970(_ bytes: [UInt8]) -> Int64? {
        if bytes == Array("infinity".utf8) { return .max }
        if bytes == Array("-infinity".utf8) { return .min }
        var scanner = Scanner(bytes: bytes)
        guard let year = scanner.number(minDigits: 4, maxDigits: 7), scanner.skip("-"),
            let month = scanner.number(minDigits: 2, maxDigits: 2), scanner.skip("-"),
            let day = scanner.number(minDigits: 2, maxDigits: 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var seconds = CivilDate.daysSinceEpoch(year: year, month: month, day: day) * 86_400
        var micros: Int64 = 0
        if scanner.skip(" ") || scanner.skip("T") {
            guard let hour = scanner.number(minDigits: 2, maxDigits: 2), scanner.skip(":"),
                let minute = scanner.number(minDigits: 2, maxDigits: 2), scanner.skip(":"),
                let second = scanner.number(minDigits: 2, maxDigits: 2)
            else { return nil }
            seconds += hour * 3600 + minute * 60 + second
            if scanner.skip(".") {
                var scale: Int64 = 100_000
                var digits = 0
                while let digit = scanner.digit() {
                    digits += 1
                    guard digits <= 9 else { return nil }
                    micros += Int64(digit) * scale
                    scale /= 10
                }
                guard digits > 0 else { return nil }
            }
            if let sign = scanner.peek(), sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                scanner.advance()
                guard let offsetHours = scanner.number(minDigits: 2, maxDigits: 2) else { return nil }
                var offset = offsetHours * 3600
                if scanner.skip(":") {
                    guard let offsetMinutes = scanner.number(minDigits: 2, maxDigits: 2) else { return nil }
                    offset += offsetMinutes * 60
                    if scanner.skip(":") {
                        guard let offsetSeconds = scanner.number(minDigits: 2, maxDigits: 2) else { return nil }
                        offset += offsetSeconds
                    }
                }
                seconds -= sign == UInt8(ascii: "+") ? offset : -offset
            }
        }
        guard scanner.atEnd else { return nil }
        return seconds * 1_000_000 + micros
    }


    /// A cursor over ASCII bytes.
    private struct Scanner {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool { index == bytes.count }

        func peek() -> UInt8? { index < bytes.count ? bytes[index] : nil }

        mutating func advance() { index += 1 }

        mutating func skip(_ character: Unicode.Scalar) -> Bool {
            guard peek() == UInt8(ascii: character) else { return false }
            index += 1
            return true
        }

        mutating func digit() -> Int? {
            guard let byte = peek(), byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            index += 1
            return Int(byte - UInt8(ascii: "0"))
        }

        mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while count < maxDigits, let digit = digit() {
                value = value * 10 + Int64(digit)
                count += 1
            }
            return count >= minDigits ? value : nil
        }
    }
}
