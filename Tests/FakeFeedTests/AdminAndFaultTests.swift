import Contracts
import FakeFeed
import Foundation
import Testing

/// The admin API (token, controls, speed) and fault injection, over HTTP.
@Suite struct AdminAndFaultTests {
    static let id = 1304076

    @Test func apiTokenIsRequired() async throws {
        let harness = try FeedHarness(ids: [Self.id], configuration: .init(liveMatchIds: [Self.id]))
        defer { harness.stop() }
        let missing = try await harness.request("/api/v2.0/livescores")
        #expect(missing.status == 401)
        #expect(missing.json?["error"]?["code"] == .int(401))
        #expect(missing.json?["error"]?["message"] == .string("Unauthenticated."))
        #expect(try await harness.request("/api/v2.0/livescores?api_token=wrong").status == 401)
        #expect(try await harness.request("/api/v2.0/fixtures/\(Self.id)").status == 401)
        let unknown = try await harness.api("/api/v2.0/fixtures/99")
        #expect(unknown.status == 404 && unknown.json?["error"]?["code"] == .int(404))
    }

    @Test func adminControlsTheReplay() async throws {
        let harness = try FeedHarness(ids: [Self.id, 1144504], configuration: .init(speed: 1, liveMatchIds: [Self.id]))
        defer { harness.stop() }
        #expect(try await harness.request("/admin/matches").status == 401, "admin needs its token")
        let list = try await harness.request("/admin/matches", admin: true)
        guard case .array(let matches)? = list.json else { Issue.record("not a list"); return }
        #expect(matches.count == 2)
        #expect(matches.first { $0["id"] == .int(Self.id) }?["mode"] == .string("running"))
        #expect(matches.first { $0["id"] == .int(1144504) }?["mode"] == .string("scheduled"))

        let seek = try await harness.request("POST", "/admin/matches/\(Self.id)/seek", body: #"{"delivery": 30}"#, admin: true)
        #expect(seek.status == 200 && seek.json?["deliveries"] == .int(30))
        _ = try await harness.request("POST", "/admin/matches/\(Self.id)/pause", admin: true)
        harness.clock.advance(by: 100)
        #expect(harness.feed.match(Self.id)?.position(at: harness.clock.now(), speed: 1).deliveries == 30, "paused")
        _ = try await harness.request("POST", "/admin/matches/\(Self.id)/resume", admin: true)
        harness.clock.advance(by: 5)
        #expect(try await harness.request("/admin/matches/\(Self.id)", admin: true).json?["deliveries"] == .int(35))
        let speed = try await harness.request("POST", "/admin/speed", body: #"{"speed": 4}"#, admin: true)
        #expect(speed.json?["speed"] == .double(4) || speed.json?["speed"] == .int(4))
        harness.clock.advance(by: 2)
        #expect(try await harness.request("/admin/matches/\(Self.id)", admin: true).json?["deliveries"] == .int(43),
                "speed = deliveries per second, position kept across the change")
        _ = try await harness.request("POST", "/admin/matches/\(Self.id)/reset", admin: true)
        #expect(try await harness.live().isEmpty, "a reset match is off livescores")
        _ = try await harness.request("POST", "/admin/matches/1144504/start", admin: true)
        #expect(try await harness.live() == [1144504: "NS"])
        harness.clock.advance(by: 0.25)
        #expect(try await harness.live() == [1144504: "1st Innings"])
        #expect(try await harness.request("POST", "/admin/matches/42/start", admin: true).status == 404)
        let badSeek = try await harness.request("POST", "/admin/matches/\(Self.id)/seek", body: #"{"delivery": 99999}"#, admin: true)
        #expect(badSeek.status == 422 || badSeek.status == 400)
        let stats = try await harness.request("/admin/stats", admin: true)
        #expect(stats.json?["requests"]?["livescores"] != nil)
    }

    @Test func faultsAffectTheNextResponsesOnly() async throws {
        let harness = try FeedHarness(ids: [Self.id], configuration: .init(liveMatchIds: [Self.id]))
        defer { harness.stop() }
        try harness.feed.seek(Self.id, delivery: 40)
        try harness.feed.pause(Self.id)
        func fault(_ json: String) async throws {
            #expect(try await harness.request("POST", "/admin/faults", body: json, admin: true).status == 200)
        }
        try await fault(#"{"kind": "500", "count": 2}"#)
        #expect(try await harness.api("/api/v2.0/livescores").status == 500)
        #expect(try await harness.api("/api/v2.0/livescores").status == 500)
        #expect(try await harness.api("/api/v2.0/livescores").status == 200, "only the next K responses")

        try await fault(#"{"kind": "429", "retryAfter": 7}"#)
        let limited = try await harness.api("/api/v2.0/livescores")
        #expect(limited.status == 429 && limited.headers["retry-after"] == "7")

        try await fault(#"{"kind": "truncated"}"#)
        let truncated = try await harness.api("/api/v2.0/livescores", "include=runs")
        #expect(truncated.status == 200 && truncated.json == nil && truncated.text.hasPrefix("{"))

        try await fault(#"{"kind": "garbage", "endpoint": "fixture"}"#)
        #expect(try await harness.api("/api/v2.0/livescores").json != nil, "endpoint filter: livescores unaffected")
        let garbage = try await harness.api("/api/v2.0/fixtures/\(Self.id)")
        #expect(garbage.status == 200 && garbage.json == nil)

        try await fault(#"{"kind": "missing_fields"}"#)
        let missing = try await harness.api("/api/v2.0/fixtures/\(Self.id)")
        #expect(missing.json?["data"]?["status"] == nil && missing.json?["data"]?["id"] == .int(Self.id))

        let before = try await harness.api("/api/v2.0/fixtures/\(Self.id)", "include=runs").json
        try await fault(#"{"kind": "score_backwards"}"#)
        let backwards = try await harness.api("/api/v2.0/fixtures/\(Self.id)", "include=runs").json
        guard case .array(let runsBefore)? = before?["data"]?["runs"], case .array(let runsAfter)? = backwards?["data"]?["runs"],
              case .int(let scoreBefore)? = runsBefore.last?["score"], case .int(let scoreAfter)? = runsAfter.last?["score"] else {
            Issue.record("no runs rows"); return
        }
        #expect(scoreAfter == scoreBefore - 5)

        try await fault(#"{"kind": "403"}"#)
        #expect(try await harness.api("/api/v2.0/livescores").status == 403)
        try await fault(#"{"kind": "500", "count": 5}"#)
        #expect(try await harness.request("DELETE", "/admin/faults", admin: true).status == 204)
        #expect(try await harness.api("/api/v2.0/livescores").status == 200)
        #expect(try await harness.request("POST", "/admin/faults", body: #"{"kind": "teapot"}"#, admin: true).status >= 400)
    }
}
