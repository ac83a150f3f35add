import Auth
import Crypto
import DevCredentials
import Foundation

/// Forged, expired and otherwise invalid tokens for `APITestHarness`'s verifier, each with a name.
enum ForgedJWT {
    static func b64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// HMAC-SHA256 (RFC 2104), for the "HS256 signed with the public key" forgery.
    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] { Digest.hmacSHA256(key: key, message: message) }

    static func claims(_ user: String, now: Date = Date(), admin: Bool = false) -> JWTClaims {
        JWTSigner.accessClaims(userId: user, issuer: APITestHarness.issuer, clientId: APITestHarness.clientId, now: now, admin: admin)
    }

    static func encoded(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try! encoder.encode(value))
    }

    /// Every forgery, for `user` (admin claims set, so the admin routes are covered too).
    static func all(user: String) throws -> [(name: String, token: String)] {
        let signer = APITestHarness.signer
        let now = Date()
        var expired = claims(user, now: now.addingTimeInterval(-7200), admin: true)
        expired.exp = Int64(now.timeIntervalSince1970) - 120
        var future = claims(user, admin: true)
        future.nbf = Int64(now.timeIntervalSince1970) + 600
        var wrongIssuer = claims(user, admin: true)
        wrongIssuer.iss = "https://evil.example"
        var wrongClient = claims(user, admin: true)
        wrongClient.clientId = "another-app"
        var wrongAudience = claims(user, admin: true)
        wrongAudience.tokenUse = "id"
        wrongAudience.aud = ["another-app"]
        var idToken = claims(user, admin: true)
        idToken.tokenUse = "id"
        idToken.aud = [APITestHarness.clientId]
        let payload = encoded(claims(user, admin: true))
        let none = b64(encoded(["alg": "none", "typ": "JWT"])) + "." + b64(payload) + "."
        let noneKid = b64(encoded(["alg": "none", "kid": "api-test-key", "typ": "JWT"])) + "." + b64(payload) + "."
        let hsInput = b64(encoded(["alg": "HS256", "kid": "api-test-key", "typ": "JWT"])) + "." + b64(payload)
        let hs256 = hsInput + "." + b64(hmac(key: Array(APITestHarness.keyPair.publicKeyPEM.utf8), Array(hsInput.utf8)))
        let unknownKid = try JWTSigner(keyPair: APITestHarness.keyPair, kid: "rotated-away").sign(claims(user, admin: true))
        let otherKey = try JWTSigner(keyPair: try RSAKeyPair.generate(), kid: "api-test-key").sign(claims(user, admin: true))
        let good = try signer.sign(claims(user, admin: true)).split(separator: ".").map(String.init)
        let tampered = good[0] + "." + b64(encoded(claims("someone-else", admin: true))) + "." + good[2]
        let flippedSignature = good[0] + "." + good[1] + "." + String(good[2].reversed())
        return [
            ("wrong signature (another key, same kid)", otherKey), ("signature flipped", flippedSignature),
            ("tampered payload", tampered), ("expired", try signer.sign(expired)), ("nbf in the future", try signer.sign(future)),
            ("wrong issuer", try signer.sign(wrongIssuer)), ("wrong client id", try signer.sign(wrongClient)),
            ("wrong audience (id token)", try signer.sign(wrongAudience)), ("token_use id", try signer.sign(idToken)),
            ("alg none", none), ("alg none with kid", noneKid), ("HS256 with the public key PEM", hs256),
            ("unknown kid", unknownKid), ("garbage", "not.a.jwt"), ("empty", ""),
        ]
    }
}
