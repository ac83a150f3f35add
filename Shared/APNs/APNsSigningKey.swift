import COpenSSL
import Foundation

/// A P-256 key for ES256 provider tokens: the private key from an APNs `.p8` file (PKCS#8 PEM) to
/// sign, or just a public key (PEM SubjectPublicKeyInfo) to verify (mock-apns).
///
/// Never log or print the key. Thread safety (`@unchecked Sendable`): the `EVP_PKEY` is never
/// mutated after loading, and every sign/verify uses its own `EVP_MD_CTX`, which OpenSSL 3 allows
/// concurrently.
public final class APNsSigningKey: @unchecked Sendable {
    private let key: OpaquePointer
    /// False for a verification-only (public) key.
    public let canSign: Bool

    /// Loads a private key (PKCS#8 / SEC1 PEM) or, failing that, a public key PEM.
    /// - Throws: `APNsError.invalidKey` without echoing the text.
    public init(pem: String) throws(APNsError) {
        let bytes = Array(pem.utf8)
        func read(_ reader: (OpaquePointer) -> OpaquePointer?) -> OpaquePointer? {
            bytes.withUnsafeBytes { raw in
                guard let bio = BIO_new_mem_buf(raw.baseAddress, Int32(raw.count)) else { return nil }
                defer { BIO_free(bio) }
                return reader(bio)
            }
        }
        if let key = read({ PEM_read_bio_PrivateKey($0, nil, nil, nil) }) {
            self.key = key
            canSign = true
        } else if let key = read({ PEM_read_bio_PUBKEY($0, nil, nil, nil) }) {
            self.key = key
            canSign = false
        } else {
            ERR_clear_error()
            throw .invalidKey("not a PEM private or public key")
        }
        guard EVP_PKEY_get_base_id(key) == EVP_PKEY_EC, EVP_PKEY_get_bits(key) == 256 else {
            throw .invalidKey("not a P-256 EC key")
        }
    }

    /// Loads the key from a file (e.g. `AuthKey_ABC123DEFG.p8`).
    public convenience init(contentsOfFile path: String) throws(APNsError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .invalidKey("cannot read \(path)") }
        try self.init(pem: String(decoding: data, as: UTF8.self))
    }

    deinit { EVP_PKEY_free(key) }

    /// The public half as PEM (safe to share and log).
    public var publicKeyPEM: String {
        guard let bio = BIO_new(BIO_s_mem()) else { return "" }
        defer { BIO_free(bio) }
        PEM_write_bio_PUBKEY(bio, key)
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1024)
        while true {
            let count = BIO_read(bio, &chunk, Int32(chunk.count))
            if count <= 0 { break }
            bytes.append(contentsOf: chunk[0..<Int(count)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// ES256 over `message`: the raw 64-byte r‖s signature (JOSE form, not DER).
    public func sign(_ message: [UInt8]) throws(APNsError) -> [UInt8] {
        guard canSign else { throw .signingFailed("public key only") }
        guard let context = EVP_MD_CTX_new() else { throw .signingFailed("out of memory") }
        defer { EVP_MD_CTX_free(context) }
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        guard EVP_DigestSignInit(context, nil, EVP_sha256(), nil, key) == 1,
              EVP_DigestSign(context, &der, &length, message, message.count) == 1 else {
            ERR_clear_error()
            throw .signingFailed("EVP_DigestSign")
        }
        var cursor: UnsafePointer<UInt8>? = der.withUnsafeBufferPointer { $0.baseAddress }
        let signature = der.withUnsafeBufferPointer { buffer -> OpaquePointer? in
            cursor = buffer.baseAddress
            return d2i_ECDSA_SIG(nil, &cursor, length)
        }
        guard let signature else { throw .signingFailed("DER decode") }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        var raw = [UInt8](repeating: 0, count: 64)
        let ok = raw.withUnsafeMutableBufferPointer { buffer in
            BN_bn2binpad(r, buffer.baseAddress, 32) == 32 && BN_bn2binpad(s, buffer.baseAddress! + 32, 32) == 32
        }
        guard ok else { throw .signingFailed("r/s padding") }
        return raw
    }

    /// Checks a raw 64-byte r‖s ES256 signature over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        guard signature.count == 64, let sig = ECDSA_SIG_new() else { return false }
        defer { ECDSA_SIG_free(sig) }
        let r = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress, 32, nil) }
        let s = signature.withUnsafeBufferPointer { BN_bin2bn($0.baseAddress! + 32, 32, nil) }
        guard ECDSA_SIG_set0(sig, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            return false
        }
        var derPointer: UnsafeMutablePointer<UInt8>?
        let derLength = i2d_ECDSA_SIG(sig, &derPointer)
        guard derLength > 0, let derPointer else { return false }
        defer { CRYPTO_free(derPointer, #file, #line) }
        guard let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        let result = EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1
            && EVP_DigestVerify(context, derPointer, Int(derLength), message, message.count) == 1
        ERR_clear_error()
        return result
    }
}
