@testable import API
import Auth
import DevCredentials
import Foundation
import HTTPServer
import Runtime
import SharedTestSupport
import Synchronization
import Testing

/// The rows of issue 39's table against the api over real HTTP: each refused with a 4xx and a reason, none
/// reaching a handler's side effects.
@Suite("Hostile requests over HTTP")
struct HostileRequestTests {
    @Test func aTokenExpiringAtTheEndOfTimeIs401NotACrash() async throws {
        let api = try await APITestHarness.shared().over(.http)
        for exp in [Int64.max, Int64.max - 29, Int64.min] {
            var claims = JWTSigner.accessClaims(
                userId: APITestHarness.unique("u"), issuer: APITestHarness.issuer, clientId: APITestHarness.clientId,
                now: api.clock.now())
            claims.exp = exp
            let token = try APITestHarness.signer.sign(claims)
            let response = try await RawHTTPClient.request(
                port: api.server.port, method: "GET", path: "/user/follows", headers: ["Authorization": "Bearer \(token)"])
            #expect(response.status == 401, "exp \(exp): \(response.text)")
            #expect(response.json["error"] as? String == "unauthorized")
        }
        // Still serving.
        #expect(try await api.call("GET", "/user/follows", as: APITestHarness.unique("u")).status == 200)
    }

    @Test(arguments: ["%2e%2e", "..", ".", "%2E", "a%2Fb", "%00"])
    func replayIdsThatAreNotIdsAre400AndNeverForwarded(_ matchId: String) async throws {
        let forwarded = Atomic<Int>(0)
        var upstream = Router()
        upstream.post("/admin/:a") { _ in
            forwarded.add(1, ordering: .relaxed)
            return .json(["ok": true])
        }
        upstream.post("/admin/matches/:id/:action") { _ in
            forwarded.add(1, ordering: .relaxed)
            return .json(["ok": true])
        }
        let fake = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 1), router: upstream, logger: APITestHarness.logger)
        try fake.start()
        defer { fake.stopInBackground() }
        let api = try await APITestHarness.make { configuration in
            configuration.replayAdminURL = "http://127.0.0.1:\(fake.port)"
            configuration.replayAdminToken = "secret-admin"
        }
        defer { api.server.stopInBackground() }
        let http = api.over(.http)
        let response = try await http.call("POST", "/admin/replay/\(matchId)/start", as: APITestHarness.unique("root"), admin: true)
        #expect(response.status == 400, "\(matchId): \(response.text)")
        #expect(response.json["error"] as? String == "invalid_parameter")
        let good = try await http.call("POST", "/admin/replay/42/start", as: APITestHarness.unique("root"), admin: true)
        #expect(good.status == 200)
        #expect(forwarded.load(ordering: .relaxed) == 1, "only the valid id reached the feed")
    }

    @Test func aJSONBodyOfAnotherMediaTypeIs415AndChangesNothing() async throws {
        let api = try await APITestHarness.shared().over(.http)
        let user = APITestHarness.unique("u")
        let device = APITestHarness.unique("d")
        let body = Array(#"{"deviceId":"\#(device)","pushToken":"\#(APITestHarness.hexToken())","apnsEnvironment":"sandbox","appVersion":"1.0"}"#.utf8)
        for contentType in ["text/plain", "application/x-www-form-urlencoded"] {
            let response = try await RawHTTPClient.request(
                port: api.server.port, method: "POST", path: "/devices",
                headers: ["Authorization": "Bearer \(api.token(user))", "Content-Type": contentType], body: body)
            #expect(response.status == 415, "\(contentType): \(response.text)")
            #expect(response.json["error"] as? String == "unsupported_media_type")
        }
        // Nothing was registered: deleting it finds nothing; the same body as JSON registers it.
        #expect(try await api.call("DELETE", "/devices/\(device)", as: user).status == 404)
        let registered = try await RawHTTPClient.request(
            port: api.server.port, method: "POST", path: "/devices",
            headers: ["Authorization": "Bearer \(api.token(user))", "Content-Type": "application/json"], body: body)
        #expect((200..<300).contains(registered.status), "\(registered.text)")
        #expect(try await api.call("DELETE", "/devices/\(device)", as: user).status == 200)
    }

    @Test func answersSayNosniff() async throws {
        let api = try await APITestHarness.shared().over(.http)
        let live = try await api.call("GET", "/matches/live", as: nil)
        #expect(live.headers["x-content-type-options"] == "nosniff")
        let refused = try await api.call("GET", "/user/follows", as: nil)
        #expect(refused.status == 401)
        #expect(refused.headers["x-content-type-options"] == "nosniff")
    }
}
