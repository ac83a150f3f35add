import Auth
import DevCredentials
import Foundation
import Runtime
import Testing
import SharedTestSupport

@Suite("Dev key store")
struct DevKeyStoreTests {
    @Test func createsOnceThenReloadsTheSameKey() throws {
        let directory = NSTemporaryDirectory() + "devkeys-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let store = DevKeyStore(directory: directory)
        let first = try store.loadOrCreate()
        let second = try store.loadOrCreate()
        #expect(first.kid == second.kid)
        #expect(first.kid.hasPrefix("dev-"))
        let attributes = try FileManager.default.attributesOfItem(atPath: store.privateKeyPath)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let set = try JSONWebKeySet(contentsOfFile: store.jwksPath)
        #expect(set.keys.map(\.kid) == [first.kid])
        #expect(!(try String(contentsOfFile: store.jwksPath, encoding: .utf8)).contains("PRIVATE"))

        let now = Date()
        let token = try second.sign(JWTSigner.accessClaims(
            userId: "dev-user", issuer: DevKeyStore.defaultIssuer, clientId: DevKeyStore.defaultClientId, now: now, admin: true))
        let verifier = try JWTVerifier(
            keySet: set, configuration: JWTVerifierConfiguration(issuer: DevKeyStore.defaultIssuer, clientId: DevKeyStore.defaultClientId),
            clock: ManualWallClock(now))
        let user = try verifier.verify(token)
        #expect(user.userId == "dev-user")
        #expect(user.isAdmin)
    }

    @Test func privateKeyPEMRoundTrips() throws {
        let pair = AuthFixtures.keyA
        let reloaded = try RSAKeyPair(privateKeyPEM: try pair.privateKeyPEM())
        #expect(try reloaded.publicJWK(kid: "x") == pair.publicJWK(kid: "x"))
        #expect(throws: AuthError.self) { try RSAKeyPair(privateKeyPEM: "-----BEGIN NOTHING-----") }
    }
}
