import Auth
import Crypto
import DevCredentials
import Foundation
import Runtime
import SharedTestSupport

/// Keys generated once per test process (RSA generation is slow) and helpers to forge tokens.
enum AuthFixtures {
    static let issuer = "https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_Test"
    static let clientId = "client-123"
    static let keyA = try! RSAKeyPair.generate()
    static let keyB = try! RSAKeyPair.generate()
    static let signerA = JWTSigner(keyPair: keyA, kid: "key-a")
    static let signerB = JWTSigner(keyPair: keyB, kid: "key-b")
    static let keySet = JSONWebKeySet(keys: [try! keyA.publicJWK(kid: "key-a"), try! keyB.publicJWK(kid: "key-b")])
    static let start = Date(timeIntervalSince1970: 1_800_000_000)

    static func verifier(clock: ManualWallClock, uses: Set<String> = ["access"]) throws -> JWTVerifier {
        try JWTVerifier(
            keySet: keySet, configuration: JWTVerifierConfiguration(issuer: issuer, clientId: clientId, acceptedTokenUses: uses),
            clock: clock)
    }

    static func claims(user: String = "user-1", admin: Bool = false, ttl: Int64 = 3600) -> JWTClaims {
        JWTSigner.accessClaims(userId: user, issuer: issuer, clientId: clientId, now: start, ttl: ttl, admin: admin)
    }

    static func b64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func json(_ object: Any) -> [UInt8] {
        Array(try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]))
    }

    /// HMAC-SHA256 (RFC 2104), used to forge HS256 tokens.
    static func hmacSHA256(key: [UInt8], message: [UInt8]) -> [UInt8] { Digest.hmacSHA256(key: key, message: message) }

    /// A token with an arbitrary header and payload and a given signature function.
    static func forge(header: [String: Any], payload: [UInt8], sign: ([UInt8]) -> [UInt8]) -> String {
        let input = b64(json(header)) + "." + b64(payload)
        return input + "." + b64(sign(Array(input.utf8)))
    }

    static func payload(_ claims: JWTClaims) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return Array(try! encoder.encode(claims))
    }
}
