import Runtime
import Foundation

/// One RSA public key of a JWKS (RFC 7517): `{"kty":"RSA","kid":…,"n":…,"e":…,"alg":"RS256","use":"sig"}`.
public struct JSONWebKey: Codable, Sendable, Equatable {
    public var kty: String
    public var kid: String
    /// Modulus, base64url big-endian.
    public var n: String
    /// Public exponent, base64url big-endian.
    public var e: String
    public var alg: String?
    public var use: String?

    public init(kty: String = "RSA", kid: String, n: String, e: String, alg: String? = "RS256", use: String? = "sig") {
        self.kty = kty
        self.kid = kid
        self.n = n
        self.e = e
        self.alg = alg
        self.use = use
    }
}

/// A key set `{"keys": [...]}` as Cognito publishes at `/.well-known/jwks.json`; several keys allow rotation.
public struct JSONWebKeySet: Codable, Sendable, Equatable {
    public var keys: [JSONWebKey]

    public init(keys: [JSONWebKey]) { self.keys = keys }

    /// Parses JWKS JSON text.
    /// - Throws: `AuthError.invalidKey` when it is not a key set (the text is not echoed).
    public init(json: String) throws(AuthError) {
        do {
            self = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(json.utf8))
        } catch {
            throw .invalidKey("JWKS is not {\"keys\": [{kty, kid, n, e}, ...]}")
        }
    }

    /// Reads a JWKS file.
    /// - Throws: `AuthError.invalidKey` naming the path when it cannot be read or parsed.
    public init(contentsOfFile path: String) throws(AuthError) {
        guard let data = FileManager.default.contents(atPath: path) else { throw .invalidKey("cannot read JWKS file \(path)") }
        try self.init(json: String(decoding: data, as: UTF8.self))
    }

    /// The JSON text of the set (sorted keys).
    public func jsonText() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(self)) ?? Data("{\"keys\":[]}".utf8), as: UTF8.self)
    }
}
