import COpenSSL
import Foundation

/// The one owner of an OpenSSL `EVP_PKEY`: an RSA key (RS256 tokens of the api's auth) or a P-256
/// key (ES256 APNs provider tokens, TLS certificates), private or public only. Freed in `deinit`;
/// the pointer never leaves this module.
///
/// Never log `privateKeyPEM()`. Thread safety (`@unchecked Sendable`): the key is never mutated
/// after creation and every sign/verify uses its own `EVP_MD_CTX`, which OpenSSL 3 allows
/// concurrently.
public final class AsymmetricKey: @unchecked Sendable {
    /// The two kinds of key the product uses.
    public enum Kind: String, Sendable, Equatable {
        /// RSA (2048 bits or more): signs RS256.
        case rsa
        /// EC on P-256 (prime256v1): signs ES256.
        case p256
    }

    /// The OpenSSL key, for this package's own OpenSSL code (the harness's certificate tool).
    package let key: OpaquePointer
    /// RSA or P-256.
    public let kind: Kind
    /// True when the private half is present (the key can sign).
    public let isPrivate: Bool

    /// Takes ownership of `key` (freed on every path, a refused key included).
    private init(taking key: OpaquePointer, isPrivate: Bool) throws(CryptoError) {
        self.key = key
        self.isPrivate = isPrivate
        switch EVP_PKEY_get_base_id(key) {
        case EVP_PKEY_RSA:
            kind = .rsa
        case EVP_PKEY_EC where EVP_PKEY_get_bits(key) == 256:
            kind = .p256
        default:
            kind = .rsa  // Every stored property set, so deinit frees the key.
            throw .invalidKey("neither an RSA nor a P-256 EC key")
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// A fresh RSA key pair of `bits` bits (exponent 65537).
    public static func generateRSA(bits: Int = 2048) throws(CryptoError) -> AsymmetricKey {
        try generate(EVP_PKEY_RSA, what: "RSA") { EVP_PKEY_CTX_set_rsa_keygen_bits($0, Int32(bits)) }
    }

    /// A fresh P-256 key pair.
    public static func generateP256() throws(CryptoError) -> AsymmetricKey {
        try generate(EVP_PKEY_EC, what: "P-256") { EVP_PKEY_CTX_set_ec_paramgen_curve_nid($0, NID_X9_62_prime256v1) }
    }

    private static func generate(_ id: Int32, what: String, _ configure: (OpaquePointer) -> Int32) throws(CryptoError) -> AsymmetricKey {
        guard let context = EVP_PKEY_CTX_new_id(id, nil) else { throw .signingFailed("EVP_PKEY_CTX_new_id") }
        defer { EVP_PKEY_CTX_free(context) }
        var pointer: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1, configure(context) == 1, EVP_PKEY_keygen(context, &pointer) == 1,
            let pointer
        else {
            OpenSSLErrorQueue.clear()
            throw .signingFailed("\(what) key generation")
        }
        return try AsymmetricKey(taking: pointer, isPrivate: true)
    }

    /// Reads a PEM private key (PKCS#8, PKCS#1 or SEC1) or, when `allowPublic`, failing that a
    /// SubjectPublicKeyInfo public key. The text is never echoed in the error.
    public convenience init(pem: String, allowPublic: Bool = false) throws(CryptoError) {
        if let pointer = MemoryBIO.reading(pem, { PEM_read_bio_PrivateKey($0, nil, nil, nil) }) {
            try self.init(taking: pointer, isPrivate: true)
        } else if allowPublic, let pointer = MemoryBIO.reading(pem, { PEM_read_bio_PUBKEY($0, nil, nil, nil) }) {
            try self.init(taking: pointer, isPrivate: false)
        } else {
            OpenSSLErrorQueue.clear()
            throw .invalidKey(allowPublic ? "not a PEM private or public key" : "not a PEM private key")
        }
    }

    /// The RSA public key with modulus `n` and exponent `e` (big-endian bytes, as in a JWK).
    public static func rsaPublicKey(modulus: [UInt8], exponent: [UInt8]) throws(CryptoError) -> AsymmetricKey {
        guard modulus.count >= 256 else { throw .invalidKey("RSA modulus shorter than 2048 bits") }
        guard !exponent.isEmpty, exponent.count <= 8 else { throw .invalidKey("bad RSA exponent") }
        let der = RSAPublicKeyDER.subjectPublicKeyInfo(modulus: modulus, exponent: exponent)
        let pointer: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let pointer else {
            OpenSSLErrorQueue.clear()
            throw .invalidKey("OpenSSL refused the RSA public key")
        }
        let key = try AsymmetricKey(taking: pointer, isPrivate: false)
        guard key.kind == .rsa else { throw .invalidKey("not an RSA key") }
        return key
    }

    /// The private key as PKCS#8 PEM (secret: never log it).
    public func privateKeyPEM() throws(CryptoError) -> String {
        guard isPrivate else { throw .invalidKey("public key only") }
        return try MemoryBIO.text { PEM_write_bio_PrivateKey($0, key, nil, nil, 0, nil, nil) }
    }

    /// The public key as SubjectPublicKeyInfo PEM (safe to share and log).
    public var publicKeyPEM: String {
        (try? MemoryBIO.text { PEM_write_bio_PUBKEY($0, key) }) ?? ""
    }

    /// An RSA key's modulus and public exponent, big-endian (for its JWK).
    public func rsaPublicNumbers() throws(CryptoError) -> (modulus: [UInt8], exponent: [UInt8]) {
        guard kind == .rsa else { throw .invalidKey("not an RSA key") }
        func number(_ name: String) -> [UInt8]? {
            var bn: OpaquePointer?
            guard EVP_PKEY_get_bn_param(key, name, &bn) == 1, let bn else { return nil }
            defer { BN_free(bn) }
            var bytes = [UInt8](repeating: 0, count: (Int(BN_num_bits(bn)) + 7) / 8)
            let written = BN_bn2bin(bn, &bytes)
            return Array(bytes.prefix(Int(written)))
        }
        guard let modulus = number("n"), let exponent = number("e") else {
            OpenSSLErrorQueue.clear()
            throw .invalidKey("cannot read RSA public numbers")
        }
        return (modulus, exponent)
    }
}
