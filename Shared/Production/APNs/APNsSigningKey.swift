import Crypto
import Foundation

/// A P-256 key for ES256 provider tokens: the private key from an APNs `.p8` file (PKCS#8 PEM) to
/// sign, or just a public key (PEM SubjectPublicKeyInfo) to verify (mock-apns). The OpenSSL key
/// itself is owned by `Crypto.AsymmetricKey`.
///
/// Never log or print the key.
public final class APNsSigningKey: Sendable {
    private let key: AsymmetricKey
    /// False for a verification-only (public) key.
    public var canSign: Bool { key.isPrivate }

    /// Loads a private key (PKCS#8 / SEC1 PEM) or, failing that, a public key PEM.
    /// - Throws: `APNsError.invalidKey` without echoing the text.
    public init(pem: String) throws(APNsError) {
        do {
            key = try AsymmetricKey(pem: pem, allowPublic: true)
        } catch {
            throw .invalidKey(Self.reason(error))
        }
        guard key.kind == .p256 else { throw .invalidKey("not a P-256 EC key") }
    }

    /// Loads the key from a file (e.g. `AuthKey_ABC123DEFG.p8`).
    public convenience init(contentsOfFile path: String) throws(APNsError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .invalidKey("cannot read \(path)") }
        try self.init(pem: String(decoding: data, as: UTF8.self))
    }

    /// The public half as PEM (safe to share and log).
    public var publicKeyPEM: String { key.publicKeyPEM }

    /// ES256 over `message`: the raw 64-byte r‖s signature (JOSE form, not DER).
    public func sign(_ message: [UInt8]) throws(APNsError) -> [UInt8] {
        do {
            return try key.sign(message)
        } catch {
            throw .signingFailed(Self.reason(error))
        }
    }

    /// Checks a raw 64-byte r‖s ES256 signature over `message`.
    public func verify(signature: [UInt8], message: [UInt8]) -> Bool {
        signature.count == 64 && key.verify(signature: signature, message: message)
    }

    private static func reason(_ error: CryptoError) -> String {
        switch error {
        case .invalidKey(let why), .signingFailed(let why), .certificate(let why): why
        }
    }
}
