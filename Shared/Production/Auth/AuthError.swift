/// Why a bearer token or a key was refused. Never carries the token itself, only what was wrong.
public enum AuthError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No `Authorization: Bearer` header.
    case missingToken
    /// Not three base64url parts of JSON, or too long.
    case malformed(String)
    /// `alg` other than RS256 (including `none` and HS256).
    case unsupportedAlgorithm(String)
    /// `kid` missing or not in the key set.
    case unknownKey(String)
    /// The RS256 signature does not verify.
    case badSignature
    /// `exp` (Unix seconds) is in the past beyond the leeway.
    case expired(exp: Int64)
    /// `exp` (Unix seconds) lies further ahead than any trusted issuer's token lives.
    case implausibleExpiry(exp: Int64)
    /// `nbf` (Unix seconds) is in the future beyond the leeway.
    case notYetValid(nbf: Int64)
    /// `iss` differs from the configured issuer.
    case wrongIssuer(String)
    /// `client_id` (access token) or `aud` (id token) differs from the configured client.
    case wrongClient(String)
    /// `token_use` is not one of the accepted uses.
    case wrongTokenUse(String)
    /// A required claim (`sub`, `exp`, …) is absent or of the wrong type.
    case missingClaim(String)
    /// A key or key set could not be read or built.
    case invalidKey(String)
    /// Signing failed (dev tokens).
    case signingFailed(String)

    /// Every `code` a token's verification can end with (for metrics exported at 0 from the start).
    public static let verificationCodes = [
        "missing_token", "malformed", "unsupported_algorithm", "unknown_key", "bad_signature", "expired",
        "implausible_expiry", "not_yet_valid", "wrong_issuer", "wrong_client", "wrong_token_use", "missing_claim",
    ]

    /// A stable code for logs and metrics.
    public var code: String {
        switch self {
        case .missingToken: "missing_token"
        case .malformed: "malformed"
        case .unsupportedAlgorithm: "unsupported_algorithm"
        case .unknownKey: "unknown_key"
        case .badSignature: "bad_signature"
        case .expired: "expired"
        case .implausibleExpiry: "implausible_expiry"
        case .notYetValid: "not_yet_valid"
        case .wrongIssuer: "wrong_issuer"
        case .wrongClient: "wrong_client"
        case .wrongTokenUse: "wrong_token_use"
        case .missingClaim: "missing_claim"
        case .invalidKey: "invalid_key"
        case .signingFailed: "signing_failed"
        }
    }

    public var description: String {
        switch self {
        case .missingToken: "missing bearer token"
        case .malformed(let reason): "malformed token: \(reason)"
        case .unsupportedAlgorithm(let alg): "unsupported algorithm \(alg.debugDescription); only RS256 is accepted"
        case .unknownKey(let kid): "unknown key id \(kid.debugDescription)"
        case .badSignature: "signature does not verify"
        case .expired(let exp): "token expired at \(exp)"
        case .implausibleExpiry(let exp): "token expiry \(exp) is further ahead than any accepted token lives"
        case .notYetValid(let nbf): "token not valid before \(nbf)"
        case .wrongIssuer(let iss): "unexpected issuer \(iss.debugDescription)"
        case .wrongClient(let client): "unexpected client \(client.debugDescription)"
        case .wrongTokenUse(let use): "unexpected token_use \(use.debugDescription)"
        case .missingClaim(let claim): "missing or invalid claim \(claim)"
        case .invalidKey(let reason): "invalid key: \(reason)"
        case .signingFailed(let reason): "signing failed: \(reason)"
        }
    }
}
