import Crypto
import Foundation
import Runtime

/// Verifies Cognito-style RS256 JWTs against a JWKS.
///
/// Checks, in order: shape (three base64url parts of JSON), `alg` exactly `RS256` (so `none`, HS256 —
/// including HS256 keyed with the public key — and every other algorithm are refused before any key is
/// used), `kid` present in the key set, the RSA signature, then the claims: `exp` (required) and `nbf`
/// against the injected clock with a small leeway, `iss`, `token_use`, the client id (`client_id` for
/// access tokens, `aud` for id tokens) and a non-empty `sub`.
///
/// With a token cache (`cacheCapacity` > 0), a token that passed every check is remembered by its
/// exact text; presenting it again skips the parsing and the RSA verification but still checks
/// `exp` and `nbf` against the clock (an expired cached token gets the full path and its error).
///
/// The key set can be replaced while the verifier is in use (`replaceKeys`, Cognito's key rotation through
/// `JWKSRefresher`); replacing it forgets the cached tokens, so a token of a removed key is refused at once.
public final class JWTVerifier: Sendable {
    public let configuration: JWTVerifierConfiguration
    /// The keys by kid, the set they came from, and a generation bumped by every replacement (a token verified with
    /// a key that was replaced meanwhile is not cached).
    private struct KeyState {
        var keys: [String: AsymmetricKey]
        var source: JSONWebKeySet
        var generation = 0
    }
    private let keys: LockedValue<KeyState>
    private let clock: any WallClock
    private let cache: VerifiedTokenCache?

    /// Builds the RSA keys of `keySet` (non-RSA keys are skipped; a broken RSA key is an error).
    /// - Parameter cacheCapacity: most verified tokens remembered (0, the default, turns the cache off).
    /// - Throws: `AuthError.invalidKey` when an RSA key cannot be built or the set has no usable key.
    public init(
        keySet: JSONWebKeySet, configuration: JWTVerifierConfiguration, clock: any WallClock = SystemWallClock(),
        cacheCapacity: Int = 0
    ) throws(AuthError) {
        self.keys = LockedValue(KeyState(keys: try Self.keys(of: keySet), source: keySet))
        self.configuration = configuration
        self.clock = clock
        self.cache = cacheCapacity > 0 ? VerifiedTokenCache(capacity: cacheCapacity) : nil
    }

    /// Replaces the accepted keys with those of `keySet` and forgets every cached token; the same set again changes
    /// nothing (a periodic refresh must not throw away the cache).
    /// - Returns: false when `keySet` is the set in use.
    /// - Throws: `AuthError.invalidKey` (the keys in use stay) when a key is broken or the set has no usable key.
    @discardableResult
    public func replaceKeys(_ keySet: JSONWebKeySet) throws(AuthError) -> Bool {
        guard keys.withLock({ $0.source != keySet }) else { return false }
        let replacement = try Self.keys(of: keySet)
        keys.withLock { state in
            state.keys = replacement
            state.source = keySet
            state.generation += 1
            cache?.removeAll()
        }
        return true
    }

    /// The RS256 signing keys of `keySet` by kid (non-RSA keys are skipped; a broken RSA key is an error).
    static func keys(of keySet: JSONWebKeySet) throws(AuthError) -> [String: AsymmetricKey] {
        var keys: [String: AsymmetricKey] = [:]
        for jwk in keySet.keys where jwk.kty == "RSA" {
            if let alg = jwk.alg, alg != "RS256" { continue }
            if let use = jwk.use, use != "sig" { continue }
            guard let modulus = Base64URL.decode(jwk.n), let exponent = Base64URL.decode(jwk.e) else {
                throw .invalidKey("key \(jwk.kid): n or e is not base64url")
            }
            keys[jwk.kid] = try AuthError.mapping { () throws(CryptoError) in
                try AsymmetricKey.rsaPublicKey(modulus: modulus, exponent: exponent)
            }
        }
        guard !keys.isEmpty else { throw .invalidKey("the key set has no RS256 signing key") }
        return keys
    }

    /// The key ids this verifier accepts.
    public var keyIds: [String] { keys.withLock { $0.keys.keys.sorted() } }

    /// Verifies `token` (without the "Bearer " prefix) and returns its user.
    /// - Throws: `AuthError` saying what was wrong (never echoing the token).
    public func verify(_ token: String) throws(AuthError) -> AuthenticatedUser {
        guard token.utf8.count <= configuration.maximumTokenBytes else { throw .malformed("token too long") }
        if let cache, let entry = cache.lookup(token, now: currentSecond(), leeway: configuration.leewaySeconds) {
            return entry.user
        }
        let parts = token.split(separator: ".", maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformed("expected three dot-separated parts") }
        guard let headerBytes = Base64URL.decode(parts[0]),
            let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes))
        else { throw .malformed("header is not base64url JSON") }
        guard header.alg == "RS256" else { throw .unsupportedAlgorithm(header.alg) }
        guard let kid = header.kid, case let (key?, generation) = keys.withLock({ ($0.keys[kid], $0.generation) }) else {
            throw .unknownKey(header.kid ?? "")
        }
        guard let signature = Base64URL.decode(parts[2]), !signature.isEmpty else { throw .badSignature }
        let signingInput = Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8)
        guard key.verify(signature: signature, message: signingInput) else { throw .badSignature }
        guard let payloadBytes = Base64URL.decode(parts[1]),
            let claims = try? JSONDecoder().decode(JWTClaims.self, from: Data(payloadBytes))
        else { throw .malformed("payload is not base64url JSON") }
        let now = currentSecond()
        let user = try check(claims, now: now)
        if let cache {
            // Under the key lock: a replacement in between (its key may be gone) leaves the token uncached.
            keys.withLock { state in
                if state.generation == generation {
                    cache.store(token, .init(user: user, notBefore: claims.nbf), now: now, leeway: configuration.leewaySeconds)
                }
            }
        }
        return user
    }

    /// Verifies an `Authorization` header value ("Bearer <token>", scheme case-insensitive).
    public func verify(authorizationHeader: String?) throws(AuthError) -> AuthenticatedUser {
        guard let token = BearerToken.extract(authorizationHeader) else { throw .missingToken }
        return try verify(token)
    }

    /// Tokens currently in the cache (0 without one).
    public var cachedTokenCount: Int { cache?.count ?? 0 }

    private func currentSecond() -> Int64 {
        Int64(clock.now().timeIntervalSince1970.rounded(.down))
    }

    private func check(_ claims: JWTClaims, now: Int64) throws(AuthError) -> AuthenticatedUser {
        let leeway = configuration.leewaySeconds
        guard let exp = claims.exp else { throw .missingClaim("exp") }
        guard !TokenWindow.hasExpired(exp: exp, now: now, leeway: leeway) else { throw .expired(exp: exp) }
        guard !TokenWindow.livesTooLong(exp: exp, now: now, leeway: leeway, limit: configuration.maximumLifetimeSeconds) else {
            throw .implausibleExpiry(exp: exp)
        }
        if let nbf = claims.nbf, TokenWindow.isNotYetValid(nbf: nbf, now: now, leeway: leeway) { throw .notYetValid(nbf: nbf) }
        guard let iss = claims.iss else { throw .missingClaim("iss") }
        guard iss == configuration.issuer else { throw .wrongIssuer(iss) }
        guard let use = claims.tokenUse else { throw .missingClaim("token_use") }
        guard configuration.acceptedTokenUses.contains(use) else { throw .wrongTokenUse(use) }
        switch use {
        case "id":
            guard let aud = claims.aud else { throw .missingClaim("aud") }
            guard aud.contains(configuration.clientId) else { throw .wrongClient(aud.joined(separator: ",")) }
        default:
            guard let client = claims.clientId else { throw .missingClaim("client_id") }
            guard client == configuration.clientId else { throw .wrongClient(client) }
        }
        guard let sub = claims.sub, !sub.isEmpty, sub.utf8.count <= 128 else { throw .missingClaim("sub") }
        return AuthenticatedUser(userId: sub, groups: claims.groups ?? [], tokenUse: use, expiresAt: exp)
    }

    struct Header: Decodable {
        let alg: String
        let kid: String?
    }
}
