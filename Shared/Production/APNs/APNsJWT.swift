import Runtime
import Foundation

/// Provider authentication tokens: `base64url(header).base64url(claims).base64url(r‖s)` with
/// header `{"alg":"ES256","kid":…}` and claims `{"iss":teamID,"iat":seconds}` (a number).
public enum APNsJWT {
    /// Signs a new token.
    public static func make(teamID: String, keyID: String, issuedAt: Int64, key: APNsSigningKey) throws(APNsError) -> String {
        // Escaped: a key or team id is configuration, and a quote in one must not make another JSON document.
        let header = #"{"alg":"ES256","kid":"# + JSONText.quoted(keyID) + "}"
        let claims = #"{"iss":"# + JSONText.quoted(teamID) + #","iat":\#(issuedAt)}"#
        let signingInput = Base64URL.encode(header.utf8) + "." + Base64URL.encode(claims.utf8)
        let signature = try key.sign(Array(signingInput.utf8))
        return signingInput + "." + Base64URL.encode(signature)
    }

    /// A token taken apart (not yet verified).
    public struct Parsed: Sendable, Equatable {
        public var algorithm: String
        public var keyID: String
        public var teamID: String
        public var issuedAt: Int64
        public var signingInput: [UInt8]
        public var signature: [UInt8]

        /// Whether `key` signed this token.
        public func isSigned(by key: APNsSigningKey) -> Bool { key.verify(signature: signature, message: signingInput) }
    }

    /// Splits and decodes a token; `iat` must be a JSON number.
    public static func parse(_ token: String) throws(APNsError) -> Parsed {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { throw .malformedToken("expected 3 parts") }
        guard let headerBytes = Base64URL.decode(parts[0]), let claimBytes = Base64URL.decode(parts[1]),
              let signature = Base64URL.decode(parts[2]) else { throw .malformedToken("bad base64url") }
        struct Header: Decodable { var alg: String; var kid: String }
        struct Claims: Decodable { var iss: String; var iat: Int64 }
        guard let header = try? JSONDecoder().decode(Header.self, from: Data(headerBytes)) else {
            throw .malformedToken("header needs alg and kid")
        }
        guard let claims = try? JSONDecoder().decode(Claims.self, from: Data(claimBytes)) else {
            throw .malformedToken("claims need iss and a numeric iat")
        }
        return Parsed(
            algorithm: header.alg, keyID: header.kid, teamID: claims.iss, issuedAt: claims.iat,
            signingInput: Array(parts[0].utf8) + [UInt8(ascii: ".")] + Array(parts[1].utf8), signature: signature)
    }
}
