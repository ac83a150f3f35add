import SharedTestSupport
@testable import API
import Auth
import COpenSSL
import Foundation
import Testing

@Suite("Forged and invalid tokens over HTTP")
struct ForgedTokenTests {
    static func b64(_ bytes: some Sequence<UInt8>) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        _ = SHA256(bytes, bytes.count, &digest)
        return digest
    }

    static func hmac(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var block = key.count > 64 ? sha256(key) : key
        block += [UInt8](repeating: 0, count: 64 - block.count)
        return sha256(block.map { $0 ^ 0x5c } + sha256(block.map { $0 ^ 0x36 } + message))
    }

    static func claims(_ user: String, now: Date = Date()) -> JWTClaims {
        JWTSigner.accessClaims(userId: user, issuer: APITestHarness.issuer, clientId: APITestHarness.clientId, now: now)
    }

    static func encoded(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return Array(try! encoder.encode(value))
    }

    static func forgedTokens(user: String) throws -> [(String, String)] {
        let signer = APITestHarness.signer
        var expired = claims(user, now: Date().addingTimeInterval(-7200))
        expired.exp = Int64(Date().timeIntervalSince1970) - 120
        var future = claims(user)
        future.nbf = Int64(Date().timeIntervalSince1970) + 600
        var wrongIssuer = claims(user)
        wrongIssuer.iss = "https://evil.example"
        var wrongClient = claims(user)
        wrongClient.clientId = "another-app"
        var idToken = claims(user)
        idToken.tokenUse = "id"
        idToken.aud = [APITestHarness.clientId]
        let payload = encoded(claims(user))
        let none = b64(encoded(["alg": "none", "typ": "JWT"])) + "." + b64(payload) + "."
        let hsInput = b64(encoded(["alg": "HS256", "kid": "api-test-key", "typ": "JWT"])) + "." + b64(payload)
        let hs256 = hsInput + "." + b64(hmac(key: Array(APITestHarness.keyPair.publicKeyPEM.utf8), Array(hsInput.utf8)))
        let unknownKid = try JWTSigner(keyPair: APITestHarness.keyPair, kid: "rotated-away").sign(claims(user))
        let good = try signer.sign(claims(user)).split(separator: ".").map(String.init)
        let tampered = good[0] + "." + b64(encoded(claims("someone-else"))) + "." + good[2]
        return [
            ("expired", try signer.sign(expired)), ("nbf in the future", try signer.sign(future)),
            ("wrong issuer", try signer.sign(wrongIssuer)), ("wrong client id", try signer.sign(wrongClient)),
            ("id token (token_use)", try signer.sign(idToken)), ("alg none", none), ("HS256 with the public key", hs256),
            ("unknown kid", unknownKid), ("tampered payload", tampered), ("garbage", "not.a.jwt"),
        ]
    }

    @Test func everyForgedTokenIsRefused() async throws {
        let api = try await APITestHarness.shared()
        let user = APITestHarness.unique("victim")
        for (name, token) in try Self.forgedTokens(user: user) {
            let response = try await RawHTTPClient.request(port: api.port, method: "GET", path: "/user/follows", headers: ["Authorization": "Bearer \(token)"])
            #expect(response.status == 401, "\(name)")
            #expect(response.json["error"] as? String == "unauthorized", "\(name)")
            #expect(response.json["message"] is String, "\(name)")
        }
        let missing = try await api.call("GET", "/user/follows", as: nil)
        #expect(missing.status == 401)
        #expect(missing.headers["www-authenticate"] == "Bearer")
        #expect(try await api.call("GET", "/user/follows", as: user).status == 200)
    }
}
