@testable import API
import Auth
import Crypto
import DevCredentials
import Foundation
import HTTPServer
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// Cognito key rotation against a local JWKS server (`AUTH_JWKS_URL`): a token of a new key is accepted without a
/// restart, a removed key's token is refused, forged key ids cannot make the api hammer the JWKS endpoint, and an
/// unreachable endpoint keeps the last good keys.
@Suite(.serialized) struct JWKSRotationTests {
    static let rotatedKey = try! RSAKeyPair.generate()

    /// A JWKS endpoint whose key set the test changes, counting the fetches.
    final class JWKSServer: Sendable {
        let keySet: LockedValue<JSONWebKeySet>
        let fetches = LockedValue(0)
        let server: HTTPServer

        init(_ keySet: JSONWebKeySet) throws {
            let keys = LockedValue(keySet)
            let fetches = self.fetches
            self.keySet = keys
            var router = Router()
            router.get("/.well-known/jwks.json") { _ in
                fetches.withLock { $0 += 1 }
                return .json(keys.withLock { $0 })
            }
            server = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 2), router: router, logger: APITestHarness.logger)
            try server.start()
        }

        var url: URL { URL(string: "http://127.0.0.1:\(server.port)/.well-known/jwks.json")! }
        var fetchCount: Int { fetches.withLock { $0 } }
    }

    static func bearer(_ signer: JWTSigner, user: String, clock: any WallClock) -> [String: String] {
        let token = try! signer.sign(JWTSigner.accessClaims(userId: user, issuer: APITestHarness.issuer, clientId: APITestHarness.clientId,
                                                            now: clock.now()))
        return ["Authorization": "Bearer \(token)"]
    }

    @Test("rotation: the new key's token is accepted at once, the removed key's refused, forged kids rate-limited, an outage keeps the keys")
    func rotatedKeysAreFollowedWithoutARestart() async throws {
        let original = JSONWebKeySet(keys: [try APITestHarness.keyPair.publicJWK(kid: "api-test-key")])
        let jwks = try JWKSServer(original)
        let clock = ManualWallClock(Date())
        let api = try await APITestHarness.make(clock: clock) { configuration in
            configuration.jwksURL = jwks.url
            configuration.jwksUnknownKeyInterval = .seconds(60)
        }
        defer { api.server.stopInBackground() }
        let oldSigner = APITestHarness.signer
        let newSigner = JWTSigner(keyPair: Self.rotatedKey, kid: "rotated-key")
        let user = APITestHarness.unique("rotating")

        #expect(try await api.call("GET", "/matches", as: nil, headers: Self.bearer(oldSigner, user: user, clock: clock)).status == 200)
        #expect(jwks.fetchCount == 0, "known keys need no fetch")

        // Cognito rotates: the new key is published and the old one removed.
        jwks.keySet.withLock { $0 = JSONWebKeySet(keys: [try! Self.rotatedKey.publicJWK(kid: "rotated-key")]) }
        let rotated = try await api.call("GET", "/matches", as: nil, headers: Self.bearer(newSigner, user: user, clock: clock))
        #expect(rotated.status == 200, "the unknown kid made the api fetch the JWKS and verify again: \(rotated.text)")
        #expect(jwks.fetchCount == 1)
        let removed = try await api.call("GET", "/matches", as: nil, headers: Self.bearer(oldSigner, user: user, clock: clock))
        #expect(removed.status == 401 && removed.text.contains("api-test-key"), "the removed key's token is refused: \(removed.text)")

        // Forged key ids within the interval: refused, and no further fetch.
        for index in 0..<5 {
            let forged = JWTSigner(keyPair: Self.rotatedKey, kid: "forged-\(index)")
            #expect(try await api.call("GET", "/matches", as: nil, headers: Self.bearer(forged, user: user, clock: clock)).status == 401)
        }
        #expect(jwks.fetchCount == 1, "unknown kids fetch at most once per AUTH_JWKS_UNKNOWN_KID_MS")

        // The endpoint goes away; after the interval an unknown kid tries again and fails; the keys in use stay.
        jwks.server.stopInBackground()
        clock.advance(by: 61)
        let forged = JWTSigner(keyPair: Self.rotatedKey, kid: "forged-late")
        #expect(try await api.call("GET", "/matches", as: nil, headers: Self.bearer(forged, user: user, clock: clock)).status == 401)
        let stillServed = try await api.call("GET", "/matches", as: nil, headers: Self.bearer(newSigner, user: user + "-2", clock: clock))
        #expect(stillServed.status == 200, "an unreachable JWKS URL does not lock out users of the cached keys: \(stillServed.text)")
        #expect(await api.service.jwksRefresher?.refresh(trigger: "periodic") == false, "a periodic fetch fails too, keys kept")
        #expect(api.service.authenticator.verifier.keyIds == ["rotated-key"])
    }

    @Test("the refresher's metrics: refreshes by trigger and result, the keys in use")
    func refreshMetrics() async throws {
        let jwks = try JWKSServer(JSONWebKeySet(keys: [try Self.rotatedKey.publicJWK(kid: "k1")]))
        defer { jwks.server.stopInBackground() }
        let verifier = try JWTVerifier(keySet: JSONWebKeySet(keys: [try APITestHarness.keyPair.publicJWK(kid: "k0")]),
                                       configuration: JWTVerifierConfiguration(issuer: "i", clientId: "c"))
        let registry = MetricsRegistry()
        let clock = ManualWallClock(Date())
        let refresher = JWKSRefresher(url: jwks.url, verifier: verifier, unknownKeyInterval: .seconds(60), clock: clock,
                                      logger: APITestHarness.logger, metrics: registry)
        #expect(await refresher.refreshForUnknownKey("k1"))
        #expect(await !refresher.refreshForUnknownKey("k9"), "rate-limited")
        jwks.keySet.withLock { $0 = JSONWebKeySet(keys: []) }
        #expect(await !refresher.refresh(trigger: "periodic"), "a set without a usable key is refused; k1 stays")
        #expect(verifier.keyIds == ["k1"])
        let text = registry.render()
        #expect(text.contains(#"api_jwks_refreshes_total{result="ok",trigger="unknown_kid"} 1"#), "\(text)")
        #expect(text.contains(#"api_jwks_refreshes_total{result="rate_limited",trigger="unknown_kid"} 1"#))
        #expect(text.contains(#"api_jwks_refreshes_total{result="failed",trigger="periodic"} 1"#))
        #expect(text.contains("api_jwks_keys 1"))
    }
}
