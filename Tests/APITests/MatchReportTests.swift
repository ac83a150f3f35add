@testable import API
import Foundation
import HTTPServer
import Operations
import Runtime
import SharedTestSupport
import Testing

/// The operator's view of a match (`GET /admin/matches/:matchId/status`, also `sightscreen match ID`): PostgreSQL's
/// rows of the match, and the per-match push figures summed over two apns-sender metrics pages (one unreachable).
@Suite struct MatchReportTests {
    static func metricsPage(accepted: Int, refused: Int, dead: Int, fresh: [(le: String, count: Int)]) -> String {
        var lines = [
            #"apns_sender_match_pushes_total{match="M",result="accepted"} \#(accepted)"#,
            #"apns_sender_match_pushes_total{match="M",result="refused"} \#(refused)"#,
            #"apns_sender_match_pushes_total{match="M",result="dead"} \#(dead)"#,
            #"apns_sender_match_pushes_total{match="other",result="accepted"} 999"#,
        ]
        for (le, count) in fresh { lines.append(#"apns_sender_match_freshness_seconds_bucket{le="\#(le)",match="M"} \#(count)"#) }
        return lines.joined(separator: "\n").replacingOccurrences(of: "\"M\"", with: "\"__MATCH__\"")
    }

    @Test("the report: followers, activities by status, reason and mode, the last event, channels, pushes summed over replicas, freshness")
    func reportOfAMatch() async throws {
        let match = APITestHarness.unique("final")
        let pages = [
            Self.metricsPage(accepted: 100, refused: 2, dead: 1, fresh: [("0.5", 50), ("1", 90), ("2", 100), ("+Inf", 100)]),
            Self.metricsPage(accepted: 50, refused: 0, dead: 0, fresh: [("0.5", 0), ("1", 40), ("2", 50), ("+Inf", 50)]),
        ].map { $0.replacingOccurrences(of: "__MATCH__", with: match) }
        var router = Router()
        router.get("/a/metrics") { _ in .text(pages[0]) }
        router.get("/b/metrics") { _ in .text(pages[1]) }
        let replicas = HTTPServer(configuration: HTTPServerConfiguration(port: 0, threadCount: 2), router: router, logger: APITestHarness.logger)
        try replicas.start()
        defer { replicas.stopInBackground() }
        let dead = try FreePort.pick()
        let api = try await APITestHarness.make { configuration in
            configuration.senderMetricsURLs = ["a", "b"].map { URL(string: "http://127.0.0.1:\(replicas.port)/\($0)/metrics")! }
                + [URL(string: "http://127.0.0.1:\(dead)/metrics")!]
        }
        defer { api.server.stopInBackground() }
        let db = api.database
        try await db.execute("INSERT INTO matches (match_id, status, is_live, card) VALUES ($1, '2nd Innings', true, '{\"title\":\"IND v SA\"}')", [match])
        try await db.execute(
            "INSERT INTO active_matches (match_id, seq, display_state, last_updated_at) VALUES ($1, 57, '{\"lockScreen\":{\"headline\":\"SA 120/4\"}}', '2026-12-02T10:00:00Z')",
            [match])
        for user in ["u1", "u2", "u3"] {
            try await db.execute("INSERT INTO match_follows (user_id, match_id) VALUES ($1, $2)", [user, match])
        }
        try await db.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, update_token) VALUES ($1, 'u1', 'd1', 'active', 'aa')", [match])
        try await db.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, delivery, channel_id) VALUES ($1, 'u2', 'd1', 'active', 'channel', 'Y2g=')", [match])
        try await db.execute("INSERT INTO live_activities (match_id, user_id, device_id, status, end_reason) VALUES ($1, 'u3', 'd1', 'ended', 'user_unfollow')", [match])
        try await db.execute(
            "INSERT INTO broadcast_channels (match_id, apns_env, channel_id, storage_policy, state, generation) VALUES ($1, 'production', 'Y2g=', 0, 'active', 2)",
            [match])

        #expect(try await api.call("GET", "/admin/matches/\(match)/status", as: APITestHarness.unique("u")).status == 403)
        let answer = try await api.call("GET", "/admin/matches/\(match)/status", as: APITestHarness.unique("root"), admin: true)
        #expect(answer.status == 200, "\(answer.text)")
        let report = try JSONDecoder().decode(MatchReport.self, from: Data(answer.body))
        #expect(report.title == "IND v SA" && report.isLive && report.followers == 3)
        #expect(report.activities.map { "\($0.status) \($0.endReason ?? "-") \($0.delivery) \($0.count)" }
                == ["active - channel 1", "active - token 1", "ended user_unfollow token 1"])
        #expect(report.lastEvent?.seq == 57 && report.lastEvent?.at == "2026-12-02T10:00:00Z" && report.lastEvent?.headline == "SA 120/4")
        #expect(report.channels.map { "\($0.environment) \($0.state) \($0.generation)" } == ["production active 2"])
        let pushes = try #require(report.pushes)
        #expect(pushes.accepted == 150 && pushes.refused == 2 && pushes.dead == 1, "summed over both replicas, the other match not counted")
        #expect(pushes.sources == 2 && pushes.unreachable == ["http://127.0.0.1:\(dead)/metrics"])
        #expect(pushes.freshnessP50 == 0.65625, "rank 75 of 150 in (0.5, 1]: 50 below, 130 at 1 → 0.5 + 0.5 · 25/80")
        #expect(pushes.freshnessP99.map { abs($0 - 1.925) < 1e-9 } == true, "rank 148.5 in (1, 2]: \(String(describing: pushes.freshnessP99))")
        let text = report.text
        #expect(text.contains("followers: 3") && text.contains("activities active: 2 (channel 1, token 1)")
                && text.contains("ended: 1 (user_unfollow token 1)") && text.contains("pushes: 150 accepted, 2 refused, 1 dead"), "\(text)")
    }
}
