import COpenSSL
import Foundation

/// Owns one OpenSSL `EVP_PKEY` holding an RSA key (public only, or a key pair) and frees it in `deinit`.
///
/// Thread safety (`@unchecked Sendable`): the key is never mutated after creation and every
/// sign/verify uses its own `EVP_MD_CTX`, which OpenSSL 3 allows concurrently.
final class EVPKey: @unchecked Sendable {
    private let key: OpaquePointer
    /// True when the private half is present.
    let isPrivate: Bool

    private init(key: OpaquePointer, isPrivate: Bool) throws(AuthError) {
        self.key = key
        self.isPrivate = isPrivate
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_RSA else {
            throw .invalidKey("not an RSA key")
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// The public key with modulus `n` and exponent `e` (big-endian bytes), via a DER SubjectPublicKeyInfo.
    static func publicKey(modulus: [UInt8], exponent: [UInt8]) throws(AuthError) -> EVPKey {
        guard modulus.count >= 256 else { throw .invalidKey("RSA modulus shorter than 2048 bits") }
        guard !exponent.isEmpty, exponent.count <= 8 else { throw .invalidKey("bad RSA exponent") }
        let der = RSAPublicKeyDER.subjectPublicKeyInfo(modulus: modulus, exponent: exponent)
        let pointer: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let pointer else {
            ERR_clear_error()
            throw .invalidKey("OpenSSL refused the RSA public key")
        }
        return try EVPKey(key: pointer, isPrivate: false)
    }

    /// A fresh RSA key pair of `bits` bits (exponent 65537).
    static func generate(bits: Int32) throws(AuthError) -> EVPKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_RSA, nil) else { throw .signingFailed("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var pointer: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_CTX_set_rsa_keygen_bits(context, bits) == 1,
            EVP_PKEY_keygen(context, &pointer) == 1, let pointer
        else {
            ERR_clear_error()
            throw .signingFailed("RSA key generation")
        }
        return try EVPKey(key: pointer, isPrivate: true)
    }

    /// Reads a PEM private key (PKCS#8 or PKCS#1).
    static func privateKey(pem: String) throws(AuthError) -> EVPKey {
        let bytes = Array(pem.utf8)
        let pointer: OpaquePointer? = bytes.withUnsafeBytes { raw in
            guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
            defer { BIO_free(bio) }
            return PEM_read_bio_PrivateKey(bio, nil, nil, nil)
        }
        guard let pointer else {
            ERR_clear_error()
            throw .invalidKey("not a PEM RSA private key")
        }
        return try EVPKey(key: pointer, isPrivate: true)
    }

    /// The private key as PKCS#8 PEM (secret: never log it).
    func privateKeyPEM() throws(AuthError) -> String {
        guard isPrivate else { throw .invalidKey("public key only") }
        guard let bio = BIO_new(BIO_s_mem()) else { throw .signingFailed("BIO_new") }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PrivateKey(bio, key, nil, nil, 0, nil, nil) == 1 else {
            ERR_clear_error()
            throw .signingFailed("PEM_write_bio_PrivateKey")
        }
        return Self.drain(bio)
    }

    /// The public key as SubjectPublicKeyInfo PEM (safe to share).
    func publicKeyPEM() -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        PEM_write_bio_PUBKEY(bio, key)
        return Self.drain(bio)
    }

    /// The modulus and public exponent, big-endian.
    func publicNumbers() throws(AuthError) -> (modulus: [UInt8], exponent: [UInt8]) {
        func number(_ name: String) -> [UInt8]? {
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else { return nil }
            defer { BN_free(bn) }
            var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(bn)) + 7) / 8)
            let written = BN_bn2bin(bn, &bytes)
            return Array(bytes.prefix(Int(written)))
        }
        guard let modulus = number("n"), let exponent = number("e") else {
            ERR_clear_error()
            throw .invalidKey("cannot read RSA public numbers")
        }
        return (modulus, exponent)
    }

    /// RSASSA-PKCS1-v1_5 with SHA-256 (JWS RS256) over `message`.
    func sign(_ message: [UInt8]) throws(AuthError) -> [UInt8] {
        guard isPrivate else { throw .signingFailed("public key only") }
        guard let context = EVP_MD_CTX_new() else { throw .signingFailed("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var length = 0
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
            EVP_DigestSign(context, nil, &length, message, message.count) == 1
        else {
            ERR_clear_error()
            throw .signingFailed("EVP_DigestSignInit")
        }
        var signature = [UInt8](repeating: 0, count: length)
        guard EVP_DigestSign(context, &signature, &length, message, message.count) == 1 else {
            ERR_clear_error()
            throw .signingFailed("EVP_DigestSign")
        }
        return Array(signature.prefix(length))
    }

    /// Checks an RS256 signature over `message`.
    func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard !signature.isEmpty, let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let ok = EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
            && EVP_DigestVerify(context, signature, signature.count, message, message.count) == 1
        ERR_clear_error()
        return ok
    }

    /// SHA-256 of `bytes`.
    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        _ = SHA256(bytes, bytes.count, &digest)
        return digest
    }

    private static func drain(_ bio: OpaquePointer) -> String {
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = BIO_read(bio, &chunk, Int32(chunk.count))
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(count)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
