extension LiveActivityPayload {
    /// The `aps.timestamp` of an encoded payload (what ActivityKit orders updates by), read without decoding it: the
    /// value of the last `"timestamp":` key. The encoding sorts keys and `timestamp` sorts last in `aps`, `aps` being
    /// the body's only key, and a quoted key inside a string value is escaped, so the last occurrence is `aps`'s. nil
    /// when there is none or its value is not a non-negative integer of at most 18 digits (no overflow).
    public static func timestamp(inEncoded payload: String) -> Int64? {
        let key = Array(#""timestamp":"#.utf8)
        var payload = payload
        return payload.withUTF8 { bytes -> Int64? in
            guard bytes.count >= key.count else { return nil }
            var start = bytes.count - key.count
            while start >= 0 {
                if bytes[start] == key[0], zip(bytes[start..<(start + key.count)], key).allSatisfy({ $0 == $1 }) { break }
                start -= 1
            }
            guard start >= 0 else { return nil }
            var index = start + key.count
            var value: Int64 = 0
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9"), digits < 18 {
                value = value * 10 + Int64(bytes[index] - UInt8(ascii: "0"))
                digits += 1
                index += 1
            }
            guard digits > 0, index == bytes.count || !(bytes[index] >= UInt8(ascii: "0") && bytes[index] <= UInt8(ascii: "9")) else { return nil }
            return value
        }
    }
}
