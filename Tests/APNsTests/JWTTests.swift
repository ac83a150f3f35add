import APNs
import Foundation
import Runtime
import Testing
import SharedTestSupport

@Suite struct JWTTests {
    @Test func tokenIsES256WithRawSignatureThatOpenSSLVerifies() throws {
        let token = try APNsJWT.make(teamID: Fixtures.teamID, keyID: Fixtures.keyID, issuedAt: 1_800_000_000, key: Fixtures.key)
        let parts = token.split(separator: ".")
        #expect(parts.count == 3)
        let header = try #require(Base64URL.decode(parts[0]))
        let claims = try #require(Base64URL.decode(parts[1]))
        #expect(String(decoding: header, as: UTF8.self) == #"{"alg":"ES256","kid":"KEY1234567"}"#)
        #expect(String(decoding: claims, as: UTF8.self) == #"{"iss":"TEAM123456","iat":1800000000}"#)
        let signature = try #require(Base64URL.decode(parts[2]))
        #expect(signature.count == 64)
        let message = Array("\(parts[0]).\(parts[1])".utf8)
        let publicOnly = try APNsSigningKey(pem: Fixtures.key.publicKeyPEM)
        #expect(!publicOnly.canSign)
        #expect(publicOnly.verify(signature: signature, message: message))
        #expect(!Fixtures.otherKey.verify(signature: signature, message: message))
        var tampered = message
        tampered[tampered.count - 1] ^= 1
        #expect(!publicOnly.verify(signature: signature, message: tampered))
        let parsed = try APNsJWT.parse(token)
        #expect(parsed.algorithm == "ES256" && parsed.keyID == Fixtures.keyID && parsed.teamID == Fixtures.teamID)
        #expect(parsed.issuedAt == 1_800_000_000)
        #expect(parsed.isSigned(by: publicOnly))
    }

    @Test func quotesInTheKeyAndTeamIdsAreEscapedAndRoundTrip() throws {
        let token = try APNsJWT.make(teamID: #"T"EAM\1"#, keyID: #"K","alg":"none"#, issuedAt: 1, key: Fixtures.key)
        let parsed = try APNsJWT.parse(token)
        #expect(parsed.teamID == #"T"EAM\1"# && parsed.keyID == #"K","alg":"none"# && parsed.algorithm == "ES256")
    }

    @Test func stringIssuedAtIsRejectedByTheParser() throws {
        let header = Base64URL.encode(#"{"alg":"ES256","kid":"K"}"#.utf8)
        let claims = Base64URL.encode(#"{"iss":"T","iat":"1800000000"}"#.utf8)
        #expect(throws: APNsError.self) { try APNsJWT.parse("\(header).\(claims).AAAA") }
    }

    @Test func garbageKeysAreRejectedWithoutEchoingThem() {
        do {
            _ = try APNsSigningKey(pem: "-----BEGIN PRIVATE KEY-----\nsecretstuff\n-----END PRIVATE KEY-----")
            Issue.record("expected failure")
        } catch {
            #expect(!error.description.contains("secretstuff"))
        }
    }

    @Test func oneTokenIsReusedAndRefreshedAfterTheInterval() throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let provider = try APNsTokenProvider(teamID: Fixtures.teamID, keyID: Fixtures.keyID, key: Fixtures.key, clock: clock)
        let first = try provider.authorization()
        #expect(first.hasPrefix("bearer "))
        #expect(provider.issuedAt == 1_800_000_000)
        clock.advance(by: 49 * 60 + 59)
        #expect(try provider.authorization() == first)
        #expect(provider.mintedCount == 1)
        clock.advance(by: 1)  // exactly 50 minutes
        let second = try provider.authorization()
        #expect(second != first)
        let refreshedAt: Int64 = 1_800_000_000 + 50 * 60
        #expect(provider.issuedAt == refreshedAt)
        #expect(provider.mintedCount == 2)
    }

    @Test func refreshIntervalMustStayWithinTwentyAndSixtyMinutes() {
        #expect(throws: APNsError.self) {
            try APNsTokenProvider(teamID: "T", keyID: "K", key: Fixtures.key, refreshInterval: .seconds(19 * 60))
        }
        #expect(throws: APNsError.self) {
            try APNsTokenProvider(teamID: "T", keyID: "K", key: Fixtures.key, refreshInterval: .seconds(61 * 60))
        }
        #expect(throws: APNsError.self) {
            try APNsTokenProvider(teamID: "T", keyID: "K", key: APNsSigningKey(pem: Fixtures.key.publicKeyPEM))
        }
    }

    @Test func expiredProviderTokenRegeneratesOnlyAfterTwentyMinutesUnlessForced() throws {
        let clock = ManualWallClock(Date(timeIntervalSince1970: 1_800_000_000))
        let provider = try APNsTokenProvider(
            teamID: Fixtures.teamID, keyID: Fixtures.keyID, key: Fixtures.key, clock: clock, refreshInterval: .seconds(40 * 60))
        let first = try provider.authorization()
        clock.advance(by: 19 * 60)
        #expect(try provider.tokenRejected(authorization: first) == false)
        #expect(try provider.authorization() == first)
        clock.advance(by: 60)  // 20 minutes old
        #expect(try provider.tokenRejected(authorization: first) == true)
        let second = try provider.authorization()
        #expect(second != first)
        // A stale rejection of the old token does not mint again.
        #expect(try provider.tokenRejected(authorization: first) == true)
        #expect(try provider.authorization() == second)
        #expect(try provider.tokenRejected(authorization: second, force: true) == true)
        #expect(try provider.authorization() != second)
        #expect(provider.mintedCount == 3)
    }
}
