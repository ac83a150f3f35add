/// Standard base64 (RFC 4648 §4: `A–Z a–z 0–9 + /`, `=` padding), as APNs issues broadcast channel ids: the one
/// check of that shape (APNs, the api, mock-apns). `Base64URL` is the JWT alphabet.
public enum Base64 {
    /// True for non-empty standard base64 of at most `maxLength` characters: a length that is a multiple of 4, at
    /// most two `=` and only at the end.
    public static func isStandard(_ text: String, maxLength: Int = 256) -> Bool {
        let bytes = Array(text.utf8)
        guard !bytes.isEmpty, bytes.count <= maxLength, bytes.count % 4 == 0 else { return false }
        let padding = bytes.reversed().prefix { $0 == UInt8(ascii: "=") }.count
        guard padding <= 2 else { return false }
        return bytes.dropLast(padding).allSatisfy { byte in
            (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "/")
        }
    }
}
