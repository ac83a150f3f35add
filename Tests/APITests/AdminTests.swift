@testable import API
import Foundation
import HTTPServer
import Runtime
import Synchronization
import Testing

@Suite("Admin routes")
struct AdminTests {
    @Test func adminRoutesNeedTheAdminGroup() async throws {
        let api = try await APITestHarness.shared()
        #expect(try await api.call("GET", "/admin/pipeline", as: nil).status == 401)
        let forbidden = try await api.call("GET", "/admin/pipeline", as: APITestHarness.unique("u"))
        #expect(forbidden.status == 403)
        #expect(forbidden.json["error"] as? String == "forbidden")
        #expect(try await api.call("POST", "/admin/replay/1/start", as: APITestHarness.unique("u")).status == 403)

        let status = try await api.call("GET", "/admin/pipeline", as: APITestHarness.unique("root"), admin: true)
        #expect(status.status == 200, "\(status.text)")
        let counts = try #require(status.json["counts"] as? [String: Int])
        #expect(Set(counts.keys) == ["liveMatches", "trackedMatches", "activeActivities", "pendingActivities", "follows", "devices"])
        let lag = try #require(status.json["lag"] as? [[String: Any]])
        if status.json["lagError"] == nil || status.json["lagError"] is NSNull {
            #expect(Set(lag.compactMap { $0["group"] as? String }) == ["detector", "la-coordinator", "la-coordinator-token-invalid",
                                                                         "la-coordinator-delivery-record", "apns-sender"])
        }
    }

    @Test func replayControlsAreForwardedToTheFakeFeed() async throws {
        let seen = LockedValue<[(String, String, String?, String)]>([])
        var upstream = Router()
        upstream.post("/admin/matches/:id/:action") { request in
            seen.withLock { $0.append(("POST", request.path, request.header("x-admin-token"), request.bodyText)) }
            if request.pathParameters["id"] == "404" { throw HTTPError.notFound("no such match") }
            return .json(["id": request.pathParameters["id"] ?? "", "action": request.pathParameters["action"] ?? ""])
        }
        upstream.get("/admin/matches") { _ in .json([["id": 1]]) }
        let fake = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 2), router: upstream, logger: APITestHarness.logger)
        try fake.start()
        defer { fake.stopInBackground() }
        let api = try await APITestHarness.make { configuration in
            configuration.replayAdminURL = "http://127.0.0.1:\(fake.port)"
            configuration.replayAdminToken = "secret-admin"
        }
        defer { api.server.stopInBackground() }
        let admin = APITestHarness.unique("root")
        for action in ["start", "pause", "resume", "reset"] {
            let response = try await api.call("POST", "/admin/replay/42/\(action)", as: admin, admin: true)
            #expect(response.status == 200, "\(action): \(response.text)")
            #expect(response.json["action"] as? String == action)
        }
        let seek = try await api.call("POST", "/admin/replay/42/seek", as: admin, json: ["delivery": 120], admin: true)
        #expect(seek.status == 200)
        let list = try await api.call("GET", "/admin/replay", as: admin, admin: true)
        #expect(list.status == 200)
        let missing = try await api.call("POST", "/admin/replay/404/start", as: admin, admin: true)
        #expect(missing.status == 404)
        #expect(missing.json["error"] as? String == "replay_refused")
        #expect(try await api.call("POST", "/admin/replay/42/explode", as: admin, admin: true).status == 404)

        let requests = seen.withLock { $0 }
        #expect(requests.map(\.1) == ["/admin/matches/42/start", "/admin/matches/42/pause", "/admin/matches/42/resume",
                                      "/admin/matches/42/reset", "/admin/matches/42/seek", "/admin/matches/404/start"])
        #expect(requests.allSatisfy { $0.2 == "secret-admin" })
        #expect(requests[4].3.contains("\"delivery\":120"))

        // Without an upstream the controls answer 503; with a dead one 502.
        let shared = try await APITestHarness.shared()
        #expect(try await shared.call("POST", "/admin/replay/42/start", as: admin, admin: true).status == 503)
        let dead = try await APITestHarness.make { $0.replayAdminURL = "http://127.0.0.1:1" }
        defer { dead.server.stopInBackground() }
        #expect(try await dead.call("POST", "/admin/replay/42/start", as: admin, admin: true).status == 502)
    }
}
