import Auth
import Foundation
import Runtime

/// Mints RS256 JWTs (dev and test tokens) with a key pair and its `kid`.
public struct JWTSigner: Sendable {
    public let keyPair: RSAKeyPair
    public let kid: String

    public init(keyPair: RSAKeyPair, kid: String) {
        self.keyPair = keyPair
        self.kid = kid
    }

    /// `base64url(header).base64url(claims).base64url(signature)` with header `{"alg":"RS256","kid":…,"typ":"JWT"}`.
    public func sign(_ claims: JWTClaims) throws(AuthError) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let header = ["alg": "RS256", "kid": kid, "typ": "JWT"]
        guard let headerJSON = try? encoder.encode(header), let claimsJSON = try? encoder.encode(claims) else {
            throw .signingFailed("claims could not be encoded")
        }
        let input = Base64URL.encode(headerJSON) + "." + Base64URL.encode(claimsJSON)
        return input + "." + Base64URL.encode(try keyPair.sign(Array(input.utf8)))
    }

    /// Claims of a Cognito-like access token for `userId`, valid from `now` for `ttl` seconds.
    public static func accessClaims(
        userId: String, issuer: String, clientId: String, now: Date, ttl: Int64 = 3600, admin: Bool = false
    ) -> JWTClaims {
        let issued = Int64(now.timeIntervalSince1970)
        return JWTClaims(
            sub: userId, iss: issuer, exp: issued + ttl, nbf: issued, iat: issued, tokenUse: "access", clientId: clientId,
            groups: admin ? ["admin"] : nil, username: userId)
    }
}
