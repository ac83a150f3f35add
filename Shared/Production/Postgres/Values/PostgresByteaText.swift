import Runtime

/// Decodes bytea's hex text output (`\x0a1b…`).
enum PostgresByteaText {
    static func decode(_ bytes: [UInt8]) -> [UInt8]? {
        guard bytes.count >= 2, bytes[0] == UInt8(ascii: "\\"), bytes[1] == UInt8(ascii: "x"), bytes.count % 2 == 0
        else { return nil }
        var output = [UInt8]()
        output.reserveCapacity((bytes.count - 2) / 2)
        var index = 2
        while index < bytes.count {
            guard let high = bytes[index].hexValue, let low = bytes[index + 1].hexValue else { return nil }
            output.append(high << 4 | low)
            index += 2
        }
        return output
    }
}
