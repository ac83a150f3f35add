/// Builds the DER SubjectPublicKeyInfo of an RSA public key from its modulus and exponent, so that
/// OpenSSL can read a JWK (`n`, `e`) with `d2i_PUBKEY` (no deprecated RSA_* calls).
enum RSAPublicKeyDER {
    /// rsaEncryption (1.2.840.113549.1.1.1) with NULL parameters.
    private static let algorithmIdentifier: [UInt8] = sequence([0x06, 0x09, 0x2A, 0x86, 0x48, 0x86, 0xF7, 0x0D, 0x01, 0x01, 0x01, 0x05, 0x00])

    /// SPKI = SEQUENCE { algorithm, BIT STRING { RSAPublicKey = SEQUENCE { INTEGER n, INTEGER e } } }.
    static func subjectPublicKeyInfo(modulus: [UInt8], exponent: [UInt8]) -> [UInt8] {
        let rsaKey = sequence(integer(modulus) + integer(exponent))
        return sequence(algorithmIdentifier + element(tag: 0x03, [0x00] + rsaKey))
    }

    /// A positive INTEGER: leading zeros stripped, one zero prepended when the high bit is set.
    static func integer(_ bigEndian: [UInt8]) -> [UInt8] {
        var bytes = Array(bigEndian.drop { $0 == 0 })
        if bytes.isEmpty { bytes = [0] }
        if bytes[0] & 0x80 != 0 { bytes.insert(0, at: 0) }
        return element(tag: 0x02, bytes)
    }

    static func sequence(_ content: [UInt8]) -> [UInt8] { element(tag: 0x30, content) }

    static func element(tag: UInt8, _ content: [UInt8]) -> [UInt8] {
        [tag] + length(content.count) + content
    }

    /// DER definite length: short form below 128, else 0x80|n followed by n big-endian bytes.
    static func length(_ count: Int) -> [UInt8] {
        if count < 0x80 { return [UInt8(count)] }
        var bytes: [UInt8] = []
        var value = count
        while value > 0 {
            bytes.insert(UInt8(value & 0xFF), at: 0)
            value >>= 8
        }
        return [0x80 | UInt8(bytes.count)] + bytes
    }
}
