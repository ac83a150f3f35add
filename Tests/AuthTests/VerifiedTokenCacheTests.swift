import Auth
import Foundation
import Runtime
import Testing
import SharedTestSupport

@Suite("JWT verifier token cache")
struct VerifiedTokenCacheTests {
    let clock = ManualWallClock(AuthFixtures.start)

    func cachedVerifier(capacity: Int = 100) throws -> JWTVerifier {
        try JWTVerifier(
            keySet: AuthFixtures.keySet,
            configuration: JWTVerifierConfiguration(issuer: AuthFixtures.issuer, clientId: AuthFixtures.clientId),
            clock: clock, cacheCapacity: capacity)
    }

    @Test func repeatedTokenIsServedFromTheCache() throws {
        let verifier = try cachedVerifier()
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims(user: "alice", admin: true))
        let first = try verifier.verify(token)
        let second = try verifier.verify(authorizationHeader: "Bearer \(token)")
        #expect(first == second)
        #expect(second.userId == "alice" && second.isAdmin)
        #expect(verifier.cachedTokenCount == 1)
    }

    @Test func uncachedVerifierKeepsNothing() throws {
        let verifier = try AuthFixtures.verifier(clock: clock)
        _ = try verifier.verify(AuthFixtures.signerA.sign(AuthFixtures.claims()))
        #expect(verifier.cachedTokenCount == 0)
    }

    @Test func cachedTokenStillExpires() throws {
        let verifier = try cachedVerifier()
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims(ttl: 60))
        #expect(try verifier.verify(token).userId == "user-1")
        clock.advance(by: 60 + 30)  // exp + leeway: still accepted, from the cache
        #expect(try verifier.verify(token).userId == "user-1")
        clock.advance(by: 1)
        #expect(throws: AuthError.expired(exp: Int64(AuthFixtures.start.timeIntervalSince1970) + 60)) { try verifier.verify(token) }
        #expect(verifier.cachedTokenCount == 0)
    }

    @Test func cachedTokenStillHonoursNotBefore() throws {
        var claims = AuthFixtures.claims()
        claims.nbf = Int64(AuthFixtures.start.timeIntervalSince1970)
        let token = try AuthFixtures.signerA.sign(claims)
        let verifier = try cachedVerifier()
        #expect(try verifier.verify(token).userId == "user-1")
        clock.advance(by: -31)  // the clock went back before nbf − leeway
        #expect(throws: AuthError.notYetValid(nbf: claims.nbf!)) { try verifier.verify(token) }
    }

    @Test func alteredCopyOfACachedTokenIsRefused() throws {
        let verifier = try cachedVerifier()
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims())
        _ = try verifier.verify(token)
        var parts = token.split(separator: ".").map(String.init)
        // Same header and claims, another user's sub: the signature no longer matches.
        let claims = AuthFixtures.claims(user: "mallory")
        parts[1] = AuthFixtures.b64(AuthFixtures.payload(claims))
        #expect(throws: AuthError.badSignature) { try verifier.verify(parts.joined(separator: ".")) }
    }

    @Test func nonCanonicalSignatureEncodingIsRefused() throws {
        let verifier = try cachedVerifier()
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims())
        // A 256-byte signature is 342 base64url characters; the last one carries 2 bits and 4 unused
        // (zero) bits. Setting an unused bit keeps the decoded bytes of a lenient decoder the same.
        let last = token.utf8.last!
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let index = alphabet.firstIndex(of: last)!
        #expect(index % 16 == 0)
        let altered = String(token.dropLast()) + String(UnicodeScalar(alphabet[index + 1]))
        #expect(throws: AuthError.badSignature) { try verifier.verify(altered) }
        #expect(try verifier.verify(token).userId == "user-1")
    }

    @Test func cacheStaysWithinItsCapacity() throws {
        let verifier = try cachedVerifier(capacity: 2)
        for user in ["u1", "u2", "u3", "u4", "u5"] {
            #expect(try verifier.verify(AuthFixtures.signerA.sign(AuthFixtures.claims(user: user))).userId == user)
            #expect(verifier.cachedTokenCount <= 2)
        }
    }

    @Test func bearerHeaderWhitespaceAndCase() throws {
        let verifier = try cachedVerifier()
        let token = try AuthFixtures.signerA.sign(AuthFixtures.claims())
        #expect(try verifier.verify(authorizationHeader: " \tBEARER   \(token) \t").userId == "user-1")
        #expect(throws: AuthError.missingToken) { try verifier.verify(authorizationHeader: "Bearer") }
        #expect(throws: AuthError.missingToken) { try verifier.verify(authorizationHeader: "Bearer\t\(token)") }
        #expect(throws: AuthError.missingToken) { try verifier.verify(authorizationHeader: "Bearér \(token)") }
        #expect(throws: (any Error).self) { try verifier.verify(authorizationHeader: "Bearer        ") }
    }
}
