/// What went wrong in an OpenSSL key, signature or certificate operation. The messages never
/// contain key material.
public enum CryptoError: Error, Equatable, CustomStringConvertible {
    /// The key text or numbers are not a usable key of the expected kind.
    case invalidKey(String)
    /// Signing (or key generation) failed; the text says which OpenSSL step.
    case signingFailed(String)
    /// Building a certificate or writing PEM failed (OpenSSL's error queue as text).
    case certificate(String)

    public var description: String {
        switch self {
        case .invalidKey(let why): "invalid key: \(why)"
        case .signingFailed(let why): "signing failed: \(why)"
        case .certificate(let why): "certificate: \(why)"
        }
    }
}
