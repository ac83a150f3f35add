import Crypto
import Runtime

/// `apns-id` values: name-based UUIDs (version 5, SHA-1) of the job and token, so a replayed job
/// sends the same `apns-id` to the same device.
public enum APNsID {
    /// Namespace for Sightscreen push ids (a fixed random UUID).
    static let namespace: [UInt8] = [
        0x6b, 0x1d, 0x4c, 0x2e, 0x91, 0x3a, 0x4f, 0x0b, 0x8e, 0x57, 0x2d, 0xc4, 0x13, 0x9a, 0x77, 0x60,
    ]

    /// The lower-case canonical UUID for (jobID or eventID, token).
    public static func derive(jobID: String, token: String) -> String {
        var input = namespace
        input.append(contentsOf: jobID.utf8)
        input.append(0x7c)  // "|"
        input.append(contentsOf: token.utf8)
        var digest = Digest.sha1(input)
        digest[6] = (digest[6] & 0x0f) | 0x50
        digest[8] = (digest[8] & 0x3f) | 0x80
        return format(Array(digest[0..<16]))
    }

    /// True for a canonical 8-4-4-4-12 hex UUID (either case), as APNs requires.
    public static func isValid(_ text: String) -> Bool {
        let utf8 = Array(text.utf8)
        guard utf8.count == 36 else { return false }
        for (index, byte) in utf8.enumerated() {
            if index == 8 || index == 13 || index == 18 || index == 23 {
                if byte != UInt8(ascii: "-") { return false }
            } else if !byte.isHexDigit {
                return false
            }
        }
        return true
    }

    static func format(_ bytes: [UInt8]) -> String {
        var text = [UInt8]()
        text.reserveCapacity(36)
        for (index, byte) in bytes.prefix(16).enumerated() {
            if index == 4 || index == 6 || index == 8 || index == 10 { text.append(UInt8(ascii: "-")) }
            HexText.append(byte, to: &text)
        }
        return String(decoding: text, as: UTF8.self)
    }
}
