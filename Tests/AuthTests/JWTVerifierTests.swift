import Auth
import DevCredentials
import Foundation
import Runtime
import Testing
import SharedTestSupport

@Suite("JWT verification")
struct JWTVerifierTests {
    let clock = ManualWallClock(AuthFixtures.start)

    @Test func validAccessTokenGivesUser() throws {
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims(user: "alice"))
        let user = try AuthFixtures.verifier(clock: clock).verify(token)
        #expect(user.userId == "alice")
        #expect(!user.isAdmin)
        #expect(user.tokenUse == "access")
        #expect(user.expiresAt == Int64(AuthFixtures.start.timeIntervalSince1970) + 3600)
    }

    @Test func adminGroupGrantsAdmin() throws {
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims(user: "root", admin: true))
        #expect(try AuthFixtures.verifier(clock: clock).verify(token).isAdmin)
    }

    @Test func bearerHeaderParsing() throws {
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims())
        let verifier = try AuthFixtures.verifier(clock: clock)
        #expect(try verifier.verify(authorizationHeader: "Bearer \(token)").userId == "user-1")
        #expect(try verifier.verify(authorizationHeader: "bearer \(token)").userId == "user-1")
        #expect(throws: AuthError.missingToken) { try verifier.verify(authorizationHeader: nil) }
        #expect(throws: AuthError.missingToken) { try verifier.verify(authorizationHeader: "Basic abc") }
    }

    @Test func rotationAcceptsEveryKeyOfTheSet() throws {
        let verifier = try AuthFixtures.verifier(clock: clock)
        #expect(verifier.keyIds == ["key-a", "key-b"])
        #expect(try verifier.verify(AuthFixtures.signerA.sign(AuthFixtures.claims(user: "a"))).userId == "a")
        #expect(try verifier.verify(AuthFixtures.signerB.sign(AuthFixtures.claims(user: "b"))).userId == "b")
    }

    @Test func expiredTokenRefusedAfterLeeway() throws {
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims(ttl: 60))
        let verifier = try AuthFixtures.verifier(clock: clock)
        clock.advance(by: 60 + 30)  // exactly at exp + leeway: still accepted
        #expect(try verifier.verify(token).userId == "user-1")
        clock.advance(by: 1)
        #expect(throws: AuthError.expired(exp: Int64(AuthFixtures.start.timeIntervalSince1970) + 60)) { try verifier.verify(token) }
    }

    /// Claims at the edges of Int64 come from the token itself: they are refused, never trapped on.
    @Test(arguments: [Int64.max, Int64.max - 1, Int64.min, Int64.min + 1])
    func extremeTimeClaimsAreRefusedNotTrapped(_ value: Int64) throws {
        let verifier = try AuthFixtures.verifier(clock: clock)
        var claims = AuthFixtures.claims()
        claims.exp = value
        let error = try #require(throws: AuthError.self) { try verifier.verify(AuthFixtures.signerA.sign(claims)) }
        #expect(error == (value > 0 ? .implausibleExpiry(exp: value) : .expired(exp: value)))
        var early = AuthFixtures.claims()
        early.nbf = value
        if value > 0 {
            #expect(throws: AuthError.notYetValid(nbf: value)) { try verifier.verify(AuthFixtures.signerA.sign(early)) }
        } else {
            #expect(try verifier.verify(AuthFixtures.signerA.sign(early)).userId == "user-1")
        }
    }

    @Test func aTokenLivingLongerThanTheLimitIsRefused() throws {
        let verifier = try AuthFixtures.verifier(clock: clock)
        let day = try AuthFixtures.signerA.sign(AuthFixtures.claims(ttl: 86_400))
        #expect(try verifier.verify(day).userId == "user-1")
        let year = try AuthFixtures.signerA.sign(AuthFixtures.claims(ttl: 365 * 86_400))
        #expect(throws: AuthError.implausibleExpiry(exp: Int64(AuthFixtures.start.timeIntervalSince1970) + 365 * 86_400)) {
            try verifier.verify(year)
        }
    }

    @Test func notYetValidRefused() throws {
        var claims = AuthFixtures.claims()
        claims.nbf = Int64(AuthFixtures.start.timeIntervalSince1970) + 120
        let token = try AuthFixtures.signerA.sign(claims)
        let verifier = try AuthFixtures.verifier(clock: clock)
        #expect(throws: AuthError.notYetValid(nbf: claims.nbf!)) { try verifier.verify(token) }
        clock.advance(by: 95)  // within the 30 s leeway of nbf
        #expect(try verifier.verify(token).userId == "user-1")
    }

    @Test func wrongIssuerRefused() throws {
        var claims = AuthFixtures.claims()
        claims.iss = "https://evil.example/pool"
        #expect(throws: AuthError.wrongIssuer("https://evil.example/pool")) {
            try AuthFixtures.verifier(clock: clock).verify(AuthFixtures.signerA.sign(claims))
        }
    }

    @Test func wrongClientRefused() throws {
        var claims = AuthFixtures.claims()
        claims.clientId = "other-client"
        #expect(throws: AuthError.wrongClient("other-client")) {
            try AuthFixtures.verifier(clock: clock).verify(AuthFixtures.signerA.sign(claims))
        }
    }

    @Test func wrongTokenUseRefused() throws {
        var claims = AuthFixtures.claims()
        claims.tokenUse = "id"
        claims.clientId = nil
        claims.aud = [AuthFixtures.clientId]
        let token = try AuthFixtures.signerA.sign(claims)
        #expect(throws: AuthError.wrongTokenUse("id")) { try AuthFixtures.verifier(clock: clock).verify(token) }
        // Accepted when id tokens are allowed: the client is checked through `aud`.
        #expect(try AuthFixtures.verifier(clock: clock, uses: ["access", "id"]).verify(token).tokenUse == "id")
        claims.aud = ["someone-else"]
        #expect(throws: AuthError.wrongClient("someone-else")) {
            try AuthFixtures.verifier(clock: clock, uses: ["access", "id"]).verify(AuthFixtures.signerA.sign(claims))
        }
    }

    @Test func missingClaimsRefused() throws {
        var claims = AuthFixtures.claims()
        claims.exp = nil
        #expect(throws: AuthError.missingClaim("exp")) { try AuthFixtures.verifier(clock: clock).verify(AuthFixtures.signerA.sign(claims)) }
        claims = AuthFixtures.claims()
        claims.sub = ""
        #expect(throws: AuthError.missingClaim("sub")) { try AuthFixtures.verifier(clock: clock).verify(AuthFixtures.signerA.sign(claims)) }
    }

    @Test func algNoneRefused() throws {
        let payload = AuthFixtures.payload(AuthFixtures.claims())
        let unsigned = AuthFixtures.b64(AuthFixtures.json(["alg": "none", "typ": "JWT"])) + "." + AuthFixtures.b64(payload) + "."
        #expect(throws: AuthError.unsupportedAlgorithm("none")) { try AuthFixtures.verifier(clock: clock).verify(unsigned) }
        let withKid = AuthFixtures.forge(header: ["alg": "none", "kid": "key-a"], payload: payload) { _ in [] }
        #expect(throws: AuthError.unsupportedAlgorithm("none")) { try AuthFixtures.verifier(clock: clock).verify(withKid) }
    }

    @Test func hs256WithPublicKeyAsSecretRefused() throws {
        let secret = Array(AuthFixtures.keyA.publicKeyPEM.utf8)
        let token = AuthFixtures.forge(header: ["alg": "HS256", "kid": "key-a", "typ": "JWT"], payload: AuthFixtures.payload(AuthFixtures.claims())) {
            AuthFixtures.hmacSHA256(key: secret, message: $0)
        }
        #expect(throws: AuthError.unsupportedAlgorithm("HS256")) { try AuthFixtures.verifier(clock: clock).verify(token) }
    }

    @Test func unknownKidRefused() throws {
        let stranger = JWTSigner(keyPair: AuthFixtures.keyA, kid: "key-zzz")
        #expect(throws: AuthError.unknownKey("key-zzz")) { try AuthFixtures.verifier(clock: clock).verify(stranger.sign(AuthFixtures.claims())) }
        let noKid = AuthFixtures.forge(header: ["alg": "RS256"], payload: AuthFixtures.payload(AuthFixtures.claims())) { (try? AuthFixtures.keyA.sign($0)) ?? [] }
        #expect(throws: AuthError.unknownKey("")) { try AuthFixtures.verifier(clock: clock).verify(noKid) }
    }

    @Test func tamperedPayloadRefused() throws {
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims(user: "mallory"))
        let parts = token.split(separator: ".").map(String.init)
        let forged = AuthFixtures.b64(AuthFixtures.payload(AuthFixtures.claims(user: "alice", admin: true)))
        #expect(throws: AuthError.badSignature) { try AuthFixtures.verifier(clock: clock).verify(parts[0] + "." + forged + "." + parts[2]) }
    }

    @Test func signatureOfAnotherKeyUnderAKnownKidRefused() throws {
        let impostor = JWTSigner(keyPair: AuthFixtures.keyB, kid: "key-a")
        #expect(throws: AuthError.badSignature) { try AuthFixtures.verifier(clock: clock).verify(impostor.sign(AuthFixtures.claims())) }
    }

    @Test func malformedTokensRefused() throws {
        let verifier = try AuthFixtures.verifier(clock: clock)
        for bad in ["", "abc", "a.b", "a.b.c.d", "!!.??.**", String(repeating: "a", count: 9000)] {
            #expect(throws: AuthError.self) { try verifier.verify(bad) }
        }
    }

    @Test func keySetsParseFromTextAndFile() throws {
        let text = AuthFixtures.keySet.jsonText()
        #expect(try JSONWebKeySet(json: text) == AuthFixtures.keySet)
        let path = NSTemporaryDirectory() + "jwks-\(UUID().uuidString).json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try JSONWebKeySet(contentsOfFile: path) == AuthFixtures.keySet)
        #expect(throws: AuthError.self) { try JSONWebKeySet(json: "{\"nope\":1}") }
        #expect(throws: AuthError.self) { try JSONWebKeySet(contentsOfFile: path + ".missing") }
        // A set with no RSA signing key cannot make a verifier.
        #expect(throws: AuthError.self) {
            try JWTVerifier(keySet: JSONWebKeySet(keys: []), configuration: JWTVerifierConfiguration(issuer: "i", clientId: "c"))
        }
    }
}
