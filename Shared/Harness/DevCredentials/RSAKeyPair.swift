import Auth
import Crypto
import Runtime

/// An RSA key pair for RS256 dev tokens (generated or read from PEM); the OpenSSL key is owned by
/// `Crypto.AsymmetricKey`. Never log `privateKeyPEM()`.
public final class RSAKeyPair: Sendable {
    let key: AsymmetricKey

    private init(key: AsymmetricKey) throws(AuthError) {
        guard key.kind == .rsa else { throw .invalidKey("not an RSA key") }
        self.key = key
    }

    /// A fresh 2048-bit (by default) key pair.
    /// - Throws: `AuthError.signingFailed` when OpenSSL cannot generate it.
    public static func generate(bits: Int = 2048) throws(AuthError) -> RSAKeyPair {
        try RSAKeyPair(key: AuthError.mapping { () throws(CryptoError) in try AsymmetricKey.generateRSA(bits: bits) })
    }

    /// Reads a PEM private key.
    /// - Throws: `AuthError.invalidKey` (the text is not echoed).
    public convenience init(privateKeyPEM pem: String) throws(AuthError) {
        try self.init(key: AuthError.mapping { () throws(CryptoError) in try AsymmetricKey(pem: pem) })
    }

    /// The private key as PKCS#8 PEM (secret).
    public func privateKeyPEM() throws(AuthError) -> String { try AuthError.mapping { () throws(CryptoError) in try key.privateKeyPEM() } }

    /// The public key as SubjectPublicKeyInfo PEM.
    public var publicKeyPEM: String { key.publicKeyPEM }

    /// The public key as a JWK with `kid`.
    public func publicJWK(kid: String) throws(AuthError) -> JSONWebKey {
        let numbers = try AuthError.mapping { () throws(CryptoError) in try key.rsaPublicNumbers() }
        return JSONWebKey(kid: kid, n: Base64URL.encode(numbers.modulus), e: Base64URL.encode(numbers.exponent))
    }

    /// A stable key id: "dev-" + the first 16 hex digits of SHA-256 of the modulus.
    public func thumbprintKid(prefix: String = "dev-") throws(AuthError) -> String {
        let digest = Digest.sha256(try AuthError.mapping { () throws(CryptoError) in try key.rsaPublicNumbers() }.modulus)
        return prefix + digest.prefix(8).map { byte in
            let hex = String(byte, radix: 16)
            return byte < 16 ? "0" + hex : hex
        }.joined()
    }

    /// RS256 signature of `message`.
    public func sign(_ message: [UInt8]) throws(AuthError) -> [UInt8] { try AuthError.mapping { () throws(CryptoError) in try key.sign(message) } }
}
