/// Failures of the APNs library itself (keys, JWTs, configuration) — not APNs answers, which are
/// `APNsOutcome`s.
public enum APNsError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The key text or file is not a usable P-256 key (never includes the key itself).
    case invalidKey(String)
    /// OpenSSL failed to sign.
    case signingFailed(String)
    /// A JWT could not be parsed (mock side).
    case malformedToken(String)
    /// A configuration value is unusable.
    case invalidConfiguration(String)

    public var description: String {
        switch self {
        case .invalidKey(let why): "invalid APNs signing key: \(why)"
        case .signingFailed(let why): "ES256 signing failed: \(why)"
        case .malformedToken(let why): "malformed provider token: \(why)"
        case .invalidConfiguration(let why): "invalid APNs configuration: \(why)"
        }
    }
}
