import DevCredentials
@testable import DeviceSimulator
import Auth
import ClientCore
import Contracts
import Foundation
import HTTPServer
import Runtime
import Synchronization
import Testing

/// The api client against an in-process HTTP server playing the api: paths, bodies, JWTs.
@Suite(.timeLimit(.minutes(1))) struct BackendHTTPClientTests {
    struct Seen: Sendable {
        var method: String
        var path: String
        var user: String?
        var body: String
    }

    @Test func everyRouteCarriesTheUsersJWTAndTheApisShapes() async throws {
        let keys = NSTemporaryDirectory() + "device-sim-keys-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: keys) }
        #expect(throws: TokenMintingError.self) { try DevKeysTokenMinter(directory: keys, issuer: "iss", clientId: "cid") }
        _ = try DevKeyStore(directory: keys).loadOrCreate()
        let minter = try DevKeysTokenMinter(directory: keys, issuer: "iss", clientId: "cid")
        let verifier = try JWTVerifier(
            keySet: try JSONWebKeySet(contentsOfFile: keys + "/jwks.json"), configuration: JWTVerifierConfiguration(issuer: "iss", clientId: "cid"))

        let seen = LockedValue<[Seen]>([])
        var router = Router()
        router.middleware { request, next in
            let user = try? verifier.verify(authorizationHeader: request.header("authorization")).userId
            seen.withLock { $0.append(Seen(method: request.method.rawValue, path: request.path, user: user, body: request.bodyText)) }
            guard user != nil else { throw HTTPError.unauthorized() }
            return await next(request)
        }
        router.post("/devices") { _ in .json(["ok": true]) }
        router.post("/user/follow/match") { _ in
            .text(#"{"matchId":"m1","following":true,"isLive":false,"expiresAt":"2030-01-01T00:00:00Z","startedDevices":[],"displayState":null}"#)
        }
        router.delete("/user/follow/match") { _ in .json(["ok": true]) }
        router.get("/user/follows") { _ in .text(#"{"follows":[{"matchId":"m1","createdAt":"x","expiresAt":null}]}"#) }
        router.post("/matches/:matchId/activity-token") { _ in .json(["status": "ok"]) }
        router.post("/matches/:matchId/activity-dismissed") { _ in HTTPResponse(status: 500) }
        router.get("/app/config") { _ in .text(#"{"minVersion":"1.2.0","maintenance":false,"message":""}"#) }
        let server = HTTPServer(configuration: HTTPServerConfiguration(port: 0), router: router, logger: Sample.logger)
        try server.start()
        defer { server.stopInBackground() }

        let client = BackendHTTPClient(
            baseURL: "http://127.0.0.1:\(server.port)", userId: "sim-user-3", minter: CachingTokenMinter(minter, lifetime: 60),
            session: BackendHTTPClient.makeSession())
        try await client.registerDevice(DeviceRegistration(
            deviceId: "d1", pushToken: "ab", pushToStartToken: "cd", apnsEnvironment: .sandbox, appVersion: "1.10.0"))
        #expect(try await client.followMatch(matchId: "m1", deviceId: "d1") == FollowResponse(displayState: nil))
        try await client.unfollowMatch(matchId: "m1")
        #expect(try await client.listFollows().matchIds == ["m1"])
        try await client.postActivityToken(matchId: "m1", token: "ef", deviceId: "d1")
        await #expect(throws: BackendHTTPError.self) { try await client.postActivityDismissed(matchId: "m1", deviceId: "d1") }
        #expect(try await client.fetchAppConfig() == AppConfig(minimumVersion: "1.2.0", maintenance: false, message: nil))

        let calls = seen.withLock { $0 }
        #expect(calls.map { "\($0.method) \($0.path)" } == [
            "POST /devices", "POST /user/follow/match", "DELETE /user/follow/match", "GET /user/follows",
            "POST /matches/m1/activity-token", "POST /matches/m1/activity-dismissed", "GET /app/config",
        ])
        #expect(calls.allSatisfy { $0.user == "sim-user-3" })
        func json(_ index: Int) throws -> [String: String] {
            try JSONDecoder().decode([String: String].self, from: Data(calls[index].body.utf8))
        }
        #expect(try json(0) == ["deviceId": "d1", "pushToken": "ab", "pushToStartToken": "cd", "apnsEnvironment": "sandbox", "appVersion": "1.10.0"])
        #expect(try json(1) == ["matchId": "m1", "deviceId": "d1"])
        #expect(try json(2) == ["matchId": "m1"])
        #expect(try json(4) == ["token": "ef", "deviceId": "d1"])
        #expect(try json(5) == ["deviceId": "d1"])
    }

    @Test func anUnreachableApiIsATransportError() async {
        let client = BackendHTTPClient(
            baseURL: "http://127.0.0.1:1", userId: "u", minter: StaticTokenMinter(value: "t"), session: BackendHTTPClient.makeSession(timeout: 2))
        await #expect(throws: BackendHTTPError.self) { try await client.listFollows() }
    }
}
